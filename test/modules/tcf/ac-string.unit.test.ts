import { describe, expect, it } from 'vitest';
import { buildAcString, parseAcString } from '../../../banner/src/ac-string.ts';

// Google's Additional Consent v2 format: `2~<consented, dot-separated>~dv.<disclosed, not consented>`.
describe("Google's Additional Consent string", () => {
  it('names the consented providers, then the disclosed ones without consent', () => {
    // The specification's own example: consent for 1, 35, 41 and 101; 9, 21 and 81 disclosed.
    expect(buildAcString([1, 35, 41, 101, 9, 21, 81], [1, 35, 41, 101])).toBe('2~1.35.41.101~dv.9.21.81');
  });

  it('before or without any consent, lists every provider as disclosed', () => {
    expect(buildAcString([1, 2, 3, 4, 10], [])).toBe('2~~dv.1.2.3.4.10');
  });

  it('after consent to all, lists none as only disclosed', () => {
    expect(buildAcString([10, 4, 3, 2, 1], [1, 2, 3, 4, 10])).toBe('2~1.2.3.4.10~dv.');
  });

  it('sorts, drops duplicates and ignores consent to a provider not disclosed', () => {
    expect(buildAcString([89, 2, 2, 1301], [1301, 7, 89])).toBe('2~89.1301~dv.2');
    expect(buildAcString([], [5])).toBe('2~~dv.');
  });

  it('reads back what it writes, version 1 strings too, and refuses what is not one', () => {
    expect(parseAcString('2~1.35.41.101~dv.9.21.81')).toEqual({ version: 2, consented: [1, 35, 41, 101], disclosed: [9, 21, 81] });
    expect(parseAcString('2~~dv.')).toEqual({ version: 2, consented: [], disclosed: [] });
    expect(parseAcString('1~7.12.35')).toEqual({ version: 1, consented: [7, 12, 35], disclosed: [] });
    for (const bad of ['', '2~1.2', '3~1~dv.2', '2~1..2~dv.', '2~a~dv.1', '2~1~dv.1~x', '2~01~dv.', `2~${'1.'.repeat(5000)}1~dv.`, '2~1~1']) {
      expect(parseAcString(bad), bad.slice(0, 20)).toBeUndefined();
    }
  });
});
