/**
 * Where a consent was given, under which mode, and its GPP string, through the API and the widget:
 * each optional, stored as sent; a region lies in the country; a GPP string has the GPP form, fits
 * a cookie and decodes with the IAB's library; every problem is a 422 naming its field.
 */
import { GppModel } from '@iabgpp/cmpapi';
import { describe, expect, it } from 'vitest';
import { GPP_MAX_LENGTH } from '../../../src/modules/consents/consents.schema.ts';
import { call } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';

const { t, tenants: [tenant] } = fileApp({ env: { RATE_LIMIT_MAX: '100000', WIDGET_RATE_LIMIT_PER_MIN: '100000' }, tenants: ['Places'] });

const viaApi = (consent: Record<string, unknown>) =>
  call(t.app, 'POST', '/api/v1/consents', { token: tenant.tokens.account, body: { consent: { session_id: 's', user_preferences: { accept_type: 'all' }, ...consent } } });
const viaWidget = (consent: Record<string, unknown>) =>
  call(t.app, 'POST', `/widget/${tenant.account.id}/consents`, { body: { consent: { session_id: 's', user_preferences: { accept_type: 'all' }, ...consent } } });
const invalid = (...messages: string[]) => ({ status: 422, body: { errors: messages.map((error) => ({ error })) } });

/** A usnat GPP string as a CMP writes it after an opt-out with GPC, made with the IAB's library. */
function optedOut(): string {
  const model = new GppModel();
  model.setFieldValue('usnat', 'SaleOptOutNotice', 1);
  model.setFieldValue('usnat', 'SaleOptOut', 1);
  model.setFieldValue('usnat', 'SharingOptOut', 1);
  model.setFieldValue('usnat', 'Gpc', true);
  return model.encode();
}

/** What GET /consents/{id} shows of the consent a 201 answered. */
async function stored(res: { status: number; body: { data: { id: string } } }) {
  expect(res.status).toBe(201);
  const detail = await call(t.app, 'GET', `/api/v1/consents/${res.body.data.id}`, { token: tenant.tokens.member });
  const { country, region, mode, gpp_string } = detail.body.data;
  return { country, region, mode, gpp_string };
}

/**
 * What is stored of a consent that says nothing of its place: nothing through the API; through the
 * widget, the visitor's place (none known for loopback) and the mode the account's rules give it.
 */
const UNSAID = { 'the API': null, 'the widget': 'opt-in' } as const;

describe.each([['the API', viaApi], ['the widget', viaWidget]] as const)('a consent through %s', (channel, send) => {
  it('stores country, region, mode and GPP string as sent, and null where none was', async () => {
    const gpp = optedOut();
    expect(await stored(await send({ country: 'US', region: 'US-CA', mode: 'opt-out', gpp_string: gpp })))
      .toEqual({ country: 'US', region: 'US-CA', mode: 'opt-out', gpp_string: gpp });
    expect(await stored(await send({}))).toEqual({ country: null, region: null, mode: UNSAID[channel], gpp_string: null });
    expect(await stored(await send({ country: null, region: null, mode: null, gpp_string: null })))
      .toEqual({ country: null, region: null, mode: UNSAID[channel], gpp_string: null });
    for (const mode of ['opt-in', 'notice', 'none']) expect((await stored(await send({ country: 'DE', mode }))).mode).toBe(mode);
    // A GPP string whose header names no section: no section applies (an opt-in region).
    expect((await stored(await send({ country: 'FR', mode: 'opt-in', gpp_string: 'DBAA' }))).gpp_string).toBe('DBAA');
  });

  it('refuses a country or region of the wrong form, naming the field', async () => {
    for (const country of ['us', 'USA', 'U', 'U1', '']) expect(await send({ country })).toMatchObject(invalid('Country is invalid'));
    for (const region of ['CA', 'us-ca', 'US_CA', 'US-CALI', 'US-']) expect(await send({ country: 'US', region })).toMatchObject(invalid('Region is invalid'));
  });

  it('refuses a country no ISO 3166-1 code names, and takes Kosovo\'s XK', async () => {
    for (const country of ['ZZ', 'UK', 'XX']) expect(await send({ country })).toMatchObject(invalid('Country is not an ISO 3166-1 country code'));
    expect((await stored(await send({ country: 'XK' }))).country).toBe('XK');
  });

  it('refuses a region outside the country, or without one', async () => {
    expect(await send({ country: 'DE', region: 'US-CA' })).toMatchObject(invalid('Region must lie in the country (DE-…)'));
    expect(await send({ region: 'US-CA' })).toMatchObject(invalid('Region needs the country it lies in'));
    expect((await stored(await send({ country: 'GB', region: 'GB-SCT' }))).region).toBe('GB-SCT');
  });

  it('refuses a mode not in the list', async () => {
    expect(await send({ mode: 'opt_out' })).toMatchObject(invalid('Mode is not included in the list'));
  });

  it('refuses a GPP string of the wrong form, too long, or that the IAB library cannot decode', async () => {
    for (const gpp_string of ['DBABLA~BVQqAAAAAgA.QA ', 'DBABLA~~BVQq', 'DBABLA~BVQq+AA', '~DBABLA', 'DBABLA.', '']) {
      expect(await send({ gpp_string })).toMatchObject(invalid(gpp_string === '' ? "Gpp string can't be blank" : 'Gpp string is invalid'));
    }
    expect(await send({ gpp_string: `DB${'A'.repeat(GPP_MAX_LENGTH - 1)}` })).toMatchObject(invalid(`Gpp string is too long (maximum is ${GPP_MAX_LENGTH} characters)`));
    const undecodable = [
      'DBABLA~BVQq', // the usnat core segment cut short
      'DBABjw~CAAAAAAAAAAAAAA', // the header names two sections, one follows
      'CPXxRfAPXxRfAAfKABENB-CgAAAAAAAAAAYgAAAAAAAA', // a bare TCF string: no GPP header
      'garbage',
    ];
    for (const gpp_string of undecodable) {
      expect(await send({ gpp_string }), gpp_string).toMatchObject(invalid('Gpp string is not a GPP string the IAB library can decode'));
    }
  });

  it('names every problem of a consent together', async () => {
    expect(await send({ country: 'DE', region: 'FR-IDF', gpp_string: 'garbage' }))
      .toMatchObject(invalid('Region must lie in the country (DE-…)', 'Gpp string is not a GPP string the IAB library can decode'));
  });
});
