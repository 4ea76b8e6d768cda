/**
 * The place a banner's consent is recorded with: what the banner sent stands; the visitor's place,
 * as a locator finds it, fills in only what the banner did not say, and is looked up only then.
 */
import { describe, expect, it } from 'vitest';
import { placeOfConsent, type VisitorPlace } from '../../../src/modules/widget/widget.service.ts';

const consent = { session_id: 's', user_preferences: { accept_type: 'all' as const } };
const californian: VisitorPlace = { country: 'US', region: 'US-CA', mode: 'opt-out' };

/** A locator that answers `place` and counts how often it was asked. */
function locator(place: VisitorPlace) {
  const asked = { times: 0 };
  return { asked, locate: async () => { asked.times++; return place; } };
}

describe('placeOfConsent', () => {
  it('fills country, region and mode from the visitor\'s place when the banner sent none', async () => {
    const { asked, locate } = locator(californian);
    expect(await placeOfConsent(consent, locate)).toEqual({ ...consent, ...californian });
    expect(await placeOfConsent({ ...consent, country: null, region: null, mode: null }, locate)).toMatchObject(californian);
    expect(asked.times).toBe(2);
  });

  it('keeps what the banner sent, and does not look the visitor up when it sent both a country and a mode', async () => {
    const { asked, locate } = locator(californian);
    const sent = { ...consent, country: 'DE', mode: 'opt-in' as const };
    expect(await placeOfConsent(sent, locate)).toEqual(sent);
    expect(asked.times).toBe(0);
  });

  it('takes the place\'s mode for a country the banner sent, and the place for a mode it sent, never mixing two places', async () => {
    const { locate } = locator(californian);
    // A page that knows its visitor is in Virginia: the region is the page's, only the mode is looked up.
    expect(await placeOfConsent({ ...consent, country: 'US', region: 'US-VA' }, locate)).toMatchObject({ country: 'US', region: 'US-VA', mode: 'opt-out' });
    expect(await placeOfConsent({ ...consent, country: 'US' }, locate)).toMatchObject({ country: 'US', region: undefined, mode: 'opt-out' });
    expect(await placeOfConsent({ ...consent, mode: 'notice' }, locate)).toMatchObject({ country: 'US', region: 'US-CA', mode: 'notice' });
    // A region sent without its country stays the banner's (and is refused as such), not replaced.
    expect(await placeOfConsent({ ...consent, region: 'US-VA' }, locate)).toMatchObject({ country: undefined, region: 'US-VA', mode: 'opt-out' });
  });

  it('records what the banner sent when there is no locator', async () => {
    expect(await placeOfConsent(consent)).toEqual(consent);
    expect(await placeOfConsent({ ...consent, country: 'FR' })).toEqual({ ...consent, country: 'FR' });
  });
});
