import { useState } from 'preact/hooks';
import { must, type Body } from '../api/client';
import { api } from '../session';
import { Checkbox, ErrorNote, Field, Form, Loading, Notice, formatDate, text, useLoad } from '../ui';

type Settings = Body<'/api/v1/banner', 'get'>['data'];

/** Whole numbers typed with commas or spaces between them. */
const idsOf = (typed: string) => typed.split(/[\s,]+/).filter(Boolean).map(Number);

/**
 * The banner's IAB TCF settings (docs/tcf.md), saved on their own: the Global Vendor List in force,
 * the CMP's registered id, the publisher's country, the vendors and Google's ad technology providers.
 */
export function TcfSection({ settings, onSaved }: { settings: Settings; onSaved: () => void }) {
  const [saved, setSaved] = useState<string>();
  const vendorList = useLoad(() => must(api.GET('/api/v1/tcf/vendor-list')), []);
  const tcf = settings.tcf;
  const list = vendorList.data?.data ?? undefined;
  return (
    <section class="card" aria-labelledby="tcf-title">
      <h2 id="tcf-title">IAB TCF</h2>
      <p>For publishers whose ad partners read the visitor's choice as a TC string; shown only where the
        rules ask for consent (opt-in). Register a CMP ID with the IAB first; the operator's guide (docs/tcf.md) says how.</p>
      {vendorList.loading && !vendorList.data && <Loading what="the vendor list" />}
      {list && <p>Global Vendor List version <strong>{list.version}</strong> (TCF policy {list.tcf_policy_version}), {list.vendors.length} vendors, fetched {formatDate(list.fetched_at)}.</p>}
      {vendorList.data && !list && <p class="note">No Global Vendor List is loaded: the operator sets TCF_GVL_FILE or TCF_GVL_URL. TCF cannot be turned on until one is.</p>}
      <ErrorNote error={vendorList.error} />
      <Form submit="Save TCF settings" label="IAB TCF settings" onSubmit={async (data) => {
        setSaved(undefined);
        const number = (name: string) => (text(data, name) === '' ? null : Number(text(data, name)));
        await must(api.PATCH('/api/v1/banner', {
          body: {
            banner: {
              tcf: {
                enabled: data.get('tcf_enabled') === 'on',
                cmp_id: number('cmp_id'),
                cmp_version: number('cmp_version') ?? 1,
                publisher_country_code: text(data, 'publisher_country_code').toUpperCase() || null,
                vendor_ids: idsOf(text(data, 'vendor_ids')),
                google_atp_ids: idsOf(text(data, 'google_atp_ids')),
              },
            },
          },
        }));
        setSaved('The TCF settings were saved.');
        onSaved();
      }}>
        <Checkbox label="Use the IAB TCF in opt-in regions" name="tcf_enabled" defaultChecked={tcf.enabled} />
        <Field label="CMP ID" name="cmp_id" type="number" min={1} defaultValue={tcf.cmp_id?.toString() ?? ''} hint="The id the IAB registered for this CMP." />
        <Field label="CMP version" name="cmp_version" type="number" min={1} defaultValue={String(tcf.cmp_version)} />
        <Field label="Publisher country" name="publisher_country_code" defaultValue={tcf.publisher_country_code ?? ''} placeholder="DE" pattern="[A-Za-z]{2}" />
        <Field label="Vendor ids" name="vendor_ids" defaultValue={tcf.vendor_ids.join(', ')}
          hint={list ? `Ids from the vendor list, separated by commas, e.g. ${list.vendors.slice(0, 3).map((v) => `${v.id} (${v.name})`).join(', ')}.` : 'Ids from the vendor list, separated by commas.'} />
        <Field label="Google ad technology provider ids" name="google_atp_ids" defaultValue={tcf.google_atp_ids.join(', ')} hint="For Google's Additional Consent string; leave empty for none." />
      </Form>
      {saved && <Notice>{saved}</Notice>}
    </section>
  );
}
