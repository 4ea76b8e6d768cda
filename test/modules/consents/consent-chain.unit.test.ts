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
