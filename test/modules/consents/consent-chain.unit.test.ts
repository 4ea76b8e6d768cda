import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { chain, GENESIS, linkHash, personalHash } from '../../../src/modules/consents/consent-chain.ts';
import type { NewConsent } from '../../../src/modules/consents/consents.repository.ts';

const consent: NewConsent = {
  id: '01a2182b-9d90-707e-8806-757d005feab8',
  account_id: '01a2182b-9d92-76fa-9da4-d25559515d2d',
  session_id: 'sess-1',
  user_id: 'user-ü',
  ip_address: '203.0.113.0',
  user_agent: 'Mozilla/5.0',
  url: 'https://shop.example/',
  gpc: true,
  created_at: new Date('2026-11-26T12:34:56.789Z'),
  user_preferences: {
    accept_type: 'custom',
    accepted_categories: ['01a2182b-9d93-71a6-8f16-df6d3cce270a'],
    rejected_categories: ['01a2182b-9d94-71ef-bbc5-e55ab7fc37a5'],
    accepted_services: { Zeta: ['b', 'a'], 'alpha "q"': ['x'], 'Émile': [] },
    rejected_services: {},
  },
};
const SALT = '00112233445566778899aabbccddeeff';

/*
 * Every stored chain was hashed with these encodings: a change to them would make every existing
 * receipt and `verify` fail. The expected values were computed by the first implementation.
 */
describe('the consent chain encoding', () => {
  it('hashes the personal fields and the link as it always has', () => {
    const personal = personalHash(SALT, consent);
    expect(personal).toBe('cef49c4aef56e31ce0803c9d878e48bbb136c52692f3f4013a38cac1d317f599');
    expect(linkHash(GENESIS, 7, consent, personal)).toBe('86b8866531ae663dce941cc3cd0a8f1fd3d31fcc27f88d5ced436d2e6e9d1ce4');
  });

  it('does not depend on the order of the preferences\' keys (jsonb reorders them)', () => {
    const p = consent.user_preferences;
    const reordered = {
      ...consent,
      user_preferences: {
        rejected_services: p.rejected_services, accepted_services: { 'Émile': [], 'alpha "q"': ['x'], Zeta: ['b', 'a'] },
        rejected_categories: p.rejected_categories, accepted_categories: p.accepted_categories, accept_type: p.accept_type,
      },
    };
    const personal = personalHash(SALT, consent);
    expect(linkHash(GENESIS, 7, reordered, personal)).toBe(linkHash(GENESIS, 7, consent, personal));
  });

  it('links each consent to the one before it', () => {
    const [first, second] = chain({ seq: 6, hash: GENESIS }, [consent, { ...consent, id: '01a2182b-9d90-707e-8806-757d005feab9' }], [SALT, SALT]);
    expect(first).toEqual({ seq: 7, hash: '86b8866531ae663dce941cc3cd0a8f1fd3d31fcc27f88d5ced436d2e6e9d1ce4', personal_hash: first.personal_hash, personal_salt: SALT });
    expect(second.seq).toBe(8);
    expect(second.hash).toBe(linkHash(first.hash, 8, { ...consent, id: '01a2182b-9d90-707e-8806-757d005feab9' }, second.personal_hash));
  });
});

describe('the consent chain encoding of country, region, mode and GPP string', () => {
  const personal = personalHash(SALT, consent);
  const placed: NewConsent = { ...consent, country: 'US', region: 'US-CA', mode: 'opt-out', gpp_string: 'DBABLA~BVQqAAAAAgA.QA' };

  it('leaves the link of a consent without them as it always was, whether they are absent or null', () => {
    const none = { ...consent, country: null, region: null, mode: null, gpp_string: null };
    expect(linkHash(GENESIS, 7, none, personal)).toBe('86b8866531ae663dce941cc3cd0a8f1fd3d31fcc27f88d5ced436d2e6e9d1ce4');
  });

  it('hashes them as an eighth item of the canonical array, keys sorted, when one is set', () => {
    // Written out by hand, as an auditor recomputing a link would.
    const simple: NewConsent = {
      ...placed,
      user_preferences: { accept_type: 'all', accepted_categories: [], rejected_categories: [], accepted_services: {}, rejected_services: {} },
    };
    const text = `${GENESIS}\n["${consent.id}","${consent.account_id}",7,"2026-11-26T12:34:56.789Z",`
      + '{"accept_type":"all","accepted_categories":[],"accepted_services":{},"rejected_categories":[],"rejected_services":{}},'
      + `true,"${personal}",{"country":"US","gpp_string":"DBABLA~BVQqAAAAAgA.QA","mode":"opt-out","region":"US-CA"}]`;
    expect(linkHash(GENESIS, 7, simple, personal)).toBe(createHash('sha256').update(text).digest('hex'));
    const modeOnly = { ...simple, country: null, region: null, gpp_string: null };
    const modeText = text.replace('{"country":"US","gpp_string":"DBABLA~BVQqAAAAAgA.QA","mode":"opt-out","region":"US-CA"}',
      '{"country":null,"gpp_string":null,"mode":"opt-out","region":null}');
    expect(linkHash(GENESIS, 7, modeOnly, personal)).toBe(createHash('sha256').update(modeText).digest('hex'));
  });

  it('changes the link when any one of them is set, changed or cleared', () => {
    const base = linkHash(GENESIS, 7, placed, personal);
    const variants: Partial<NewConsent>[] = [
      { country: 'DE' }, { country: null }, { region: 'US-NY' }, { region: null }, { mode: 'opt-in' }, { mode: null },
      { gpp_string: 'DBABLA~BVQqAAAAAgA.YA' }, { gpp_string: null },
    ];
    const hashes = variants.map((change) => linkHash(GENESIS, 7, { ...placed, ...change }, personal));
    for (const hash of hashes) expect(hash).not.toBe(base);
    expect(new Set(hashes).size).toBe(variants.length);
    for (const field of ['country', 'region', 'mode', 'gpp_string'] as const) {
      expect(linkHash(GENESIS, 7, { ...consent, [field]: placed[field] }, personal)).not.toBe('86b8866531ae663dce941cc3cd0a8f1fd3d31fcc27f88d5ced436d2e6e9d1ce4');
    }
  });
});
