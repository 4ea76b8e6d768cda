import { describe, expect, it } from 'vitest';
import { chooseEncoding } from '../../src/http/accept-encoding.ts';

describe('chooseEncoding', () => {
  it('prefers brotli, then gzip, honours q=0 and *, and falls back to identity', () => {
    expect(chooseEncoding('gzip, br')).toBe('br');
    expect(chooseEncoding('gzip, deflate')).toBe('gzip');
    expect(chooseEncoding('br;q=0, gzip')).toBe('gzip');
    expect(chooseEncoding('br;q=0, gzip;q=0')).toBe('identity');
    expect(chooseEncoding('*')).toBe('br');
    expect(chooseEncoding('*, br;q=0')).toBe('gzip');
    expect(chooseEncoding('*;q=0, gzip')).toBe('gzip');
    expect(chooseEncoding(undefined)).toBe('identity');
    expect(chooseEncoding('')).toBe('identity');
    expect(chooseEncoding('deflate')).toBe('identity');
  });

  it('reads names and weights in any case and spacing, and refuses a weight that does not parse', () => {
    expect(chooseEncoding('GZIP ; Q=0.5 , Br;q=0.1')).toBe('br');
    expect(chooseEncoding('br;q=0.000, gzip;q=1.0')).toBe('gzip');
    expect(chooseEncoding('br;q=high, gzip')).toBe('gzip');
  });

  it('picks among what the caller offers: a body kept uncompressed is sent so to everyone', () => {
    expect(chooseEncoding('gzip, br', ['gzip', 'identity'])).toBe('gzip');
    expect(chooseEncoding('gzip, br', ['identity'])).toBe('identity');
    // The same header, parsed once, still answers each caller by what it offers.
    expect(chooseEncoding('gzip, br', ['br', 'gzip', 'identity'])).toBe('br');
  });
});
