import { describe, expect, it } from 'vitest';
import { expandRegions } from '../../src/geo/regions.ts';
import { DEFAULT_MODE, DEFAULT_REGIONAL_RULES, type Mode, type RegionalRule } from '../../src/geo/regional-rules.ts';
import { optInClocks } from '../../src/geo/time-zones.ts';

const at = new Date('2026-12-06T00:00:00Z');
/** Rules as the banner gets them: the named groups expanded. */
const expanded = (rules: readonly RegionalRule[]) => rules.map((rule) => ({ regions: expandRegions(rule.regions, at), mode: rule.mode }));

/** A zone's clock as a browser there reads it (region.ts): its offsets on 1 January and 1 July. */
function clockOf(zone: string): string {
  const offset = (month: number) => {
    const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'shortOffset' }).formatToParts(new Date(Date.UTC(2026, month, 1)));
    const [, sign, hours, minutes] = /GMT(?:([+-])(\d+)(?::(\d+))?)?/.exec(parts.find((part) => part.type === 'timeZoneName')!.value)!;
    return sign ? (sign === '-' ? 1 : -1) * (Number(hours) * 60 + Number(minutes ?? 0)) : 0;
  };
  return `${offset(0)}/${offset(6)}`;
}

/** Whether the banner settles a visitor in `zone` as opt-in, as region.ts reads the list. */
function settled(rules: readonly RegionalRule[], defaultMode: Mode, zone: string): boolean {
  const clocks = optInClocks(expanded(rules), defaultMode, at);
  return clocks.length > 0 && clocks.includes(clockOf(zone)) !== (clocks[0] === '*');
}

describe('optInClocks', () => {
  it('settles under the shipped rules every clock no US zone keeps', () => {
    const clocks = optInClocks(expanded(DEFAULT_REGIONAL_RULES), DEFAULT_MODE, at);
    expect(clocks[0]).toBe('*');
    expect(clocks).toContain('300/240');
    expect(clockOf('Europe/Berlin')).toBe('-60/-120');
    for (const zone of ['Europe/Berlin', 'Europe/London', 'Europe/Helsinki', 'Asia/Tokyo', 'Asia/Kolkata', 'Australia/Sydney', 'America/Sao_Paulo', 'America/Bogota', 'UTC']) {
      expect([zone, settled(DEFAULT_REGIONAL_RULES, DEFAULT_MODE, zone)]).toEqual([zone, true]);
    }
    // The US's clocks, and the other countries that keep them (Toronto, Havana, Tahiti).
    for (const zone of ['America/New_York', 'America/Chicago', 'America/Denver', 'America/Phoenix', 'America/Los_Angeles', 'America/Anchorage', 'Pacific/Honolulu', 'America/Indianapolis', 'America/Toronto', 'America/Havana', 'Pacific/Tahiti']) {
      expect([zone, settled(DEFAULT_REGIONAL_RULES, DEFAULT_MODE, zone)]).toEqual([zone, false]);
    }
  });

  it('settles a clock only when every country keeping it is opt-in, and each subdivision a rule names', () => {
    // Opt-in everywhere but Japan: Seoul keeps Tokyo's clock, Sydney another.
    const japan: RegionalRule[] = [{ regions: ['JP'], mode: 'none' }];
    expect(settled(japan, 'opt-in', 'Asia/Seoul')).toBe(false);
    expect(settled(japan, 'opt-in', 'Australia/Sydney')).toBe(true);
    // The EEA alone opt-in: Central Europe's clock is Serbia's and Monaco's too; only the Azores' is
    // Portugal's alone.
    const eea: RegionalRule[] = [{ regions: ['EEA', 'GB', 'CH'], mode: 'opt-in' }];
    expect(settled(eea, 'none', 'Europe/Berlin')).toBe(false);
    expect(optInClocks(expanded(eea), 'none', at)).toEqual([clockOf('Atlantic/Azores')]);
    // Opt-in by default, but one Canadian province otherwise: every clock Canada keeps waits for the answer.
    const ontario: RegionalRule[] = [{ regions: ['CA-ON'], mode: 'notice' }];
    expect(settled(ontario, 'opt-in', 'America/Toronto')).toBe(false);
    expect(settled(ontario, 'opt-in', 'America/Vancouver')).toBe(false);
    expect(settled(ontario, 'opt-in', 'Europe/Berlin')).toBe(true);
  });

  it('lists the shorter way: the settled clocks when they are few', () => {
    const clocks = optInClocks(expanded([{ regions: ['AU', 'NZ', 'AQ', 'NF'], mode: 'opt-in' }]), 'none', at);
    expect(clocks[0]).not.toBe('*');
    expect(clocks).toContain(clockOf('Australia/Sydney'));
    expect(settled([{ regions: ['AU', 'NZ', 'AQ', 'NF'], mode: 'opt-in' }], 'none', 'Europe/Berlin')).toBe(false);
  });

  it('settles nothing for rules that give opt-in nowhere', () => {
    expect(optInClocks([{ regions: ['US'], mode: 'opt-out' }], 'notice', at)).toEqual([]);
  });
});
