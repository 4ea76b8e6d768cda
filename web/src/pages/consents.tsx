import { useMemo, useState } from 'preact/hooks';
import { ApiError, must, wordsOf } from '../api/client';
import { navigate, useLocation } from '../router';
import { api, currentSession } from '../session';
import { GeoAttribution, modeName, placeOf } from '../places';
import { ErrorNote, Field, Link, Loading, Notice, Page, Pager, Table, formatDate, useLoad } from '../ui';
import { useCategories } from './storage-items';

const LIMIT = 25;
const ACCEPT_LABELS = { all: 'Accepted all', custom: 'Chose', necessary: 'Necessary only' } as const;

interface Filters { session_id?: string; user_id?: string; created_after?: string; created_before?: string }

/**
 * The export in a file. The route needs the token in a header, which a plain link cannot send, so
 * the page fetches it and hands the browser a blob to save: the file passes through the page's
 * memory once (fine for hundreds of thousands of consents; a bigger log is better exported with curl,
 * which streams it straight to disk).
 */
async function download(format: 'csv' | 'ndjson', filters: Filters, accountId: string): Promise<number> {
  const session = currentSession();
  const query = new URLSearchParams({ format, ...filters });
  if (session.token?.startsWith('csu_')) query.set('account_id', accountId);
  let response: Response;
  try {
    response = await fetch(`/api/v1/consents/export?${query}`, { headers: { authorization: `Bearer ${session.token}` } });
  } catch {
    throw new ApiError(0, wordsOf(undefined, 0));
  }
  if (!response.ok) throw new ApiError(response.status, wordsOf(await response.json().catch(() => undefined), response.status));
  const blob = await response.blob();
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = `consents-${accountId}.${format}`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
  return blob.size;
}

/** Recomputes the account's hash chain on the server and says what it found. */
function VerifyLog({ accountId }: { accountId: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [result, setResult] = useState<{ valid: boolean; checked: number; first_bad_id: string | null }>();
  const verify = async () => {
    setBusy(true);
    setError(undefined);
    setResult(undefined);
    try {
      setResult(await must(api.GET('/api/v1/consents/verify')));
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="verify">
      <button type="button" onClick={verify} disabled={busy}>{busy ? 'Checking…' : 'Verify the log'}</button>
      <ErrorNote error={error} />
      {result?.valid && <Notice>The log is intact: the hash chain of {result.checked} consents was recomputed and every link matches.</Notice>}
      {result && !result.valid && (
        <div class="note error" role="alert">
          <p>The log does not verify: {result.first_bad_id
            ? <>the chain breaks at <Link href={`/accounts/${accountId}/consents/${result.first_bad_id}`}>this consent</Link>, which was changed after it was recorded.</>
            : <>the newest consents are missing from it.</>} {result.checked} consents were checked.</p>
        </div>
      )}
    </div>
  );
}

function Export({ filters, accountId }: { filters: Filters; accountId: string }) {
  const [busy, setBusy] = useState<string>();
  const [error, setError] = useState<unknown>();
  const [done, setDone] = useState<string>();
  const run = (format: 'csv' | 'ndjson') => async () => {
    setBusy(format);
    setError(undefined);
    setDone(undefined);
    try {
      const size = await download(format, filters, accountId);
      setDone(`The export was saved (${format === 'csv' ? 'CSV' : 'NDJSON'}, ${Math.max(1, Math.round(size / 1024))} KB).`);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(undefined);
    }
  };
  const filtered = Object.keys(filters).length > 0;
  return (
    <div class="export">
      <p>Export {filtered ? 'the consents that match the filter' : 'every consent'}, oldest first, with its hash:</p>
      <div class="actions">
        <button type="button" onClick={run('csv')} disabled={busy !== undefined}>{busy === 'csv' ? 'Exporting…' : 'Export CSV'}</button>
        <button type="button" onClick={run('ndjson')} disabled={busy !== undefined}>{busy === 'ndjson' ? 'Exporting…' : 'Export NDJSON'}</button>
      </div>
      <ErrorNote error={error} />
      {done && <Notice>{done}</Notice>}
    </div>
  );
}

/** A day typed in a date field, as the start (or the end) of that day in UTC. */
const dayBound = (value: string | undefined, end: boolean) =>
  (value && /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T${end ? '23:59:59.999' : '00:00:00.000'}Z` : undefined);

/** The filter's fields, named as in the address: what was typed, so that a reload or a shared link shows it again. */
const FILTER_FIELDS = ['session_id', 'user_id', 'created_after', 'created_before'] as const;

/** The part of an address's query that says which list of the log is shown: its filters and its page. */
function listQueryOf(query: URLSearchParams): string {
  const kept = new URLSearchParams();
  for (const name of [...FILTER_FIELDS, 'page']) {
    const value = query.get(name);
    if (value) kept.set(name, value);
  }
  const text = kept.toString();
  return text ? `?${text}` : '';
}

/** The API's filters from the address's query (days as typed become the bounds of those days). */
function filtersOf(query: URLSearchParams): Filters {
  const typed = (name: string) => query.get(name)?.trim() || undefined;
  return Object.fromEntries(Object.entries({
    session_id: typed('session_id'), user_id: typed('user_id'),
    created_after: dayBound(typed('created_after'), false), created_before: dayBound(typed('created_before'), true),
  }).filter(([, v]) => v !== undefined));
}

/**
 * The filters and the page live in the address's query, not in the page's state: a reload, a shared
 * link and the browser's Back button show the same filtered list.
 */
export function ConsentsPage({ accountId }: { accountId: string }) {
  const { path, query } = useLocation();
  const search = query.toString();
  const page = Math.max(1, Number.parseInt(query.get('page') ?? '', 10) || 1);
  const filters = useMemo(() => filtersOf(new URLSearchParams(search)), [search]);
  const list = useLoad(() => must(api.GET('/api/v1/consents', { params: { query: { page, limit: LIMIT, ...filters } } })), [page, filters]);
  const show = (next: URLSearchParams) => navigate(next.toString() ? `${path}?${next}` : path);
  const apply = (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    const next = new URLSearchParams();
    for (const name of FILTER_FIELDS) {
      const value = String(data.get(name) ?? '').trim();
      if (value) next.set(name, value);
    }
    show(next);
  };
  const goTo = (to: number) => {
    const next = new URLSearchParams(search);
    if (to > 1) next.set('page', String(to));
    else next.delete('page');
    show(next);
  };
  return (
    <Page title="Consent log">
      <p>Every choice a visitor made on your website, newest first. Records are never changed or deleted.</p>
      {/* Keyed by the filters in the address, so that Back shows the fields of the list it shows. */}
      <form key={FILTER_FIELDS.map((name) => query.get(name) ?? '').join('\n')} class="filters" onSubmit={apply} aria-label="Filter consents">
        <Field label="Session" name="session_id" defaultValue={query.get('session_id') ?? ''} />
        <Field label="User id" name="user_id" defaultValue={query.get('user_id') ?? ''} />
        <Field label="From (UTC day)" name="created_after" type="date" defaultValue={query.get('created_after') ?? ''} />
        <Field label="Until (UTC day)" name="created_before" type="date" defaultValue={query.get('created_before') ?? ''} />
        <div class="actions"><button type="submit">Filter</button></div>
      </form>
      <ErrorNote error={list.error} />
      {list.loading && !list.data && <Loading what="consents" />}
      {list.data && (list.data.data.length === 0 ? <p>No consents match.</p> : (
        <>
          <Table label="Consents">
            <thead><tr><th scope="col">When</th><th scope="col">Choice</th><th scope="col">Session</th><th scope="col">Page</th><th scope="col">Where</th><th scope="col">Mode</th><th scope="col">GPC</th></tr></thead>
            <tbody>
              {list.data.data.map((c) => (
                <tr key={c.id}>
                  <th scope="row"><Link href={`/accounts/${accountId}/consents/${c.id}${listQueryOf(query)}`}>{formatDate(c.created_at)}</Link></th>
                  <td>{ACCEPT_LABELS[c.user_preferences.accept_type]}</td>
                  <td><code>{c.session_id}</code></td>
                  <td class="source">{c.url ?? '—'}</td>
                  <td>{placeOf(c.country, c.region)}</td>
                  <td>{modeName(c.mode)}</td>
                  <td>{c.gpc ? 'Yes' : 'No'}</td>
                </tr>
              ))}
            </tbody>
          </Table>
          <Pager pagination={list.data.pagination} limit={LIMIT} onPage={goTo} />
          <GeoAttribution />
        </>
      ))}
      <section class="card">
        <h2>Proof and export</h2>
        <p>Each consent is chained to the one before it by a SHA-256 hash, so a record changed or removed afterwards breaks the chain.</p>
        <VerifyLog accountId={accountId} />
        <Export filters={filters} accountId={accountId} />
      </section>
    </Page>
  );
}

/** A consent; the list it was opened from rides in the address's query, so that the way back shows that list. */
export function ConsentDetail({ accountId, id }: { accountId: string; id: string }) {
  const { query } = useLocation();
  const consent = useLoad(() => must(api.GET('/api/v1/consents/{id}', { params: { path: { id } } })).then((r) => r.data), [id]);
  const categories = useCategories();
  const names = new Map((categories.data ?? []).flatMap((c) => [[c.id, c.name], [c.slug, c.name]]));
  const list = (values: string[]) => (values.length === 0 ? 'None' : values.map((v) => names.get(v) ?? v).join(', '));
  const c = consent.data;
  return (
    <Page title="Consent">
      <p><Link href={`/accounts/${accountId}/consents${listQueryOf(query)}`}>Back to the consent log</Link></p>
      <ErrorNote error={consent.error} />
      {!c && !consent.error && <Loading what="the consent" />}
      {c && (
        <dl class="details card">
          <dt>Recorded</dt><dd>{formatDate(c.created_at)} <span class="muted">({c.created_at})</span></dd>
          <dt>Id</dt><dd><code>{c.id}</code></dd>
          <dt>Choice</dt><dd>{ACCEPT_LABELS[c.user_preferences.accept_type]}</dd>
          <dt>Accepted categories</dt><dd>{list(c.user_preferences.accepted_categories)}</dd>
          <dt>Rejected categories</dt><dd>{list(c.user_preferences.rejected_categories)}</dd>
          <dt>Session</dt><dd><code>{c.session_id}</code></dd>
          <dt>User id</dt><dd>{c.user_id ?? '—'}</dd>
          <dt>Page</dt><dd class="source">{c.url ?? '—'}</dd>
          <dt>Browser</dt><dd class="source">{c.user_agent ?? '—'}</dd>
          <dt>IP address (masked)</dt><dd>{c.ip_address ?? '—'}</dd>
          <dt>Global Privacy Control</dt><dd>{c.gpc ? 'Sent' : 'Not sent'}</dd>
          <dt>Country</dt><dd>{c.country ? placeOf(c.country) : 'Unknown'}</dd>
          <dt>Region</dt><dd>{c.region ?? (c.country ? 'Not known' : 'Unknown')}</dd>
          <dt>Banner mode</dt><dd>{modeName(c.mode)}</dd>
          <dt>GPP string</dt><dd>{c.gpp_string ? <code>{c.gpp_string}</code> : 'None'}</dd>
          {c.erased_at && <><dt>Erased</dt><dd>{formatDate(c.erased_at)}: the personal fields were cleared on request; the proof below stays.</dd></>}
        </dl>
      )}
      {c?.country && <GeoAttribution />}
      {c && (
        <section class="card">
          <h2>Proof</h2>
          {c.hash ? (
            <>
              <p>This consent is number {c.chain_seq} in the account's hash chain. Its hash covers the hash of the consent
                before it and everything shown above, so it matches only while neither was changed.</p>
              <dl class="details">
                <dt>Place in the chain</dt><dd>{c.chain_seq}</dd>
                <dt>Hash</dt><dd><code id="consent-hash">{c.hash}</code></dd>
                <dt>Personal fields' hash</dt><dd><code>{c.personal_hash ?? '—'}</code></dd>
              </dl>
            </>
          ) : <p>This consent was stored before the log was chained: it has a place ({c.chain_seq}) but no hash.</p>}
          <VerifyLog accountId={accountId} />
        </section>
      )}
    </Page>
  );
}
