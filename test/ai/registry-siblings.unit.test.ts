import { describe, expect, it } from 'vitest';
import type { StandardCategory } from '../../src/ai/knowledge/categories.ts';
import type { CookieFact } from '../../src/ai/knowledge/knowledge.ts';
import { relabelledBySiblings } from '../../src/ai/knowledge/registry-siblings.ts';

const fact = (name: string, category: StandardCategory, company = 'Acme', description = 'Keeps certain Acme tools working'): CookieFact =>
  ({ name, pattern: false, category, description, company, duration: undefined, domain: '' });

/** The registry, as the relabelling sees it: a few names with their vendor and category. */
const listing = (entries: Record<string, [vendor: string, category: StandardCategory]>) => (name: string) => {
  const entry = entries[name];
  return entry && { vendor: entry[0], category: entry[1] };
};

describe('relabelling the database through the registry listing of siblings', () => {
  it('gives a family the one category the registry lists its members with, under the same company', () => {
    const facts = [fact('XSID', 'marketing'), fact('XHSID', 'marketing'), fact('XAPISID', 'marketing'), fact('XSAPISID', 'marketing')];
    const relabelled = relabelledBySiblings(facts, listing({ XSID: ['Acme', 'functional'], XHSID: ['acme', 'functional'] }));
    expect([...relabelled.keys()].map((f) => f.name)).toEqual(['XAPISID', 'XSAPISID']);
    expect(relabelled.get(facts[2])).toMatchObject({ category: 'functional', relabelled: expect.stringMatching(/sibling `XSID`, `XHSID`, which the registry lists as functional/) });
    // The facts themselves are left as they were.
    expect(facts[2].category).toBe('marketing');
  });

  it('leaves a family alone when the listing is another company\'s, disagrees, is necessary, or the description is generic', () => {
    const family = () => [fact('a1', 'analytics'), fact('a2', 'analytics'), fact('a3', 'analytics')];
    expect(relabelledBySiblings(family(), listing({ a1: ['Other Vendor', 'functional'] })).size).toBe(0);
    expect(relabelledBySiblings(family(), listing({ a1: ['Acme', 'functional'], a2: ['Acme', 'marketing'] })).size).toBe(0);
    expect(relabelledBySiblings(family(), listing({ a1: ['Acme', 'necessary'] })).size).toBe(0);
    const generic = Array.from({ length: 13 }, (_, i) => fact(`g${i}`, 'marketing'));
    expect(relabelledBySiblings(generic, listing({ g0: ['Acme', 'functional'] })).size).toBe(0);
    // Other descriptions are other families.
    expect(relabelledBySiblings([fact('b1', 'marketing'), fact('b2', 'marketing', 'Acme', 'Something else')], listing({ b1: ['Acme', 'functional'] })).size).toBe(0);
  });

  it('never makes a necessary member optional, nor relabels a consent name', () => {
    const facts = [fact('c1', 'marketing'), fact('c_session', 'necessary'), fact('c_consent', 'marketing')];
    expect(relabelledBySiblings(facts, listing({ c1: ['Acme', 'functional'] })).size).toBe(0);
  });
});
