/**
 * docs/regions.md carries the table of US state privacy laws behind `US-PRIVACY-STATES`: each law of
 * src/geo/us-privacy-laws.json on a row of its own, with its name and date, and the day the table
 * was reviewed, so that the page says what the code does.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { US_PRIVACY_LAWS, US_PRIVACY_LAWS_REVIEWED } from '../../src/geo/us-privacy-laws.ts';

const page = readFileSync(resolve(import.meta.dirname, '../../docs/regions.md'), 'utf8');

describe('docs/regions.md', () => {
  it('has a row for every law of the table, with its name and date, and no other', () => {
    const rows = page.split('\n').filter((line) => /^\| `US-[A-Z]{2}` \|/.test(line));
    expect(rows.map((row) => row.split('|')[1].trim())).toEqual(US_PRIVACY_LAWS.map((law) => `\`${law.region}\``));
    for (const [index, law] of US_PRIVACY_LAWS.entries()) {
      const cells = rows[index].split('|').map((cell) => cell.trim());
      expect([cells[2], cells[3]], law.region).toEqual([law.name, law.effective]);
      expect(cells[4], law.region).toContain(law.source);
    }
  });

  it('gives the day the table was reviewed, and says it is not legal advice', () => {
    expect(page).toContain(`reviewed on **${US_PRIVACY_LAWS_REVIEWED}**`);
    expect(page).toContain('This is not legal advice');
  });
});
