import { useState } from 'preact/hooks';
import { must } from '../api/client';
import { api } from '../session';
import { ErrorNote, Field, Link, Loading, Page, Pager, Table, formatDate, useLoad } from '../ui';
import { useCategories } from './storage-items';

const LIMIT = 25;
const ACCEPT_LABELS = { all: 'Accepted all', custom: 'Chose', necessary: 'Necessary only' } as const;

interface Filters { session_id?: string; user_id?: string; created_after?: string; created_before?: string }

/** A day typed in a date field, as the start (or the end) of that day in UTC. */
const dayBound = (value: string, end: boolean) => (value ? `${value}T${end ? '23:59:59.999' : '00:00:00.000'}Z` : undefined);

export function ConsentsPage({ accountId }: { accountId: string }) {
  const [page, setPage] = useState(1);
  const [filters, setFilters] = useState<Filters>({});
  const list = useLoad(() => must(api.GET('/api/v1/consents', { params: { query: { page, limit: LIMIT, ...filters } } })), [page, filters]);
  const apply = (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    const value = (name: string) => String(data.get(name) ?? '').trim() || undefined;
    setFilters(Object.fromEntries(Object.entries({
      session_id: value('session_id'), user_id: value('user_id'),
      created_after: dayBound(value('created_after') ?? '', false), created_before: dayBound(value('created_before') ?? '', true),
    }).filter(([, v]) => v !== undefined)));
    setPage(1);
  };
  return (
    <Page title="Consent log">
      <p>Every choice a visitor made on your website, newest first. Records are never changed or deleted.</p>
      <form class="filters" onSubmit={apply} aria-label="Filter consents">
        <Field label="Session" name="session_id" />
        <Field label="User id" name="user_id" />
        <Field label="From (UTC day)" name="created_after" type="date" />
        <Field label="Until (UTC day)" name="created_before" type="date" />
        <div class="actions"><button type="submit">Filter</button></div>
      </form>
      <ErrorNote error={list.error} />
      {list.loading && !list.data && <Loading what="consents" />}
      {list.data && (list.data.data.length === 0 ? <p>No consents match.</p> : (
        <>
          <Table label="Consents">
            <thead><tr><th scope="col">When</th><th scope="col">Choice</th><th scope="col">Session</th><th scope="col">Page</th><th scope="col">GPC</th></tr></thead>
            <tbody>
              {list.data.data.map((c) => (
                <tr key={c.id}>
                  <th scope="row"><Link href={`/accounts/${accountId}/consents/${c.id}`}>{formatDate(c.created_at)}</Link></th>
                  <td>{ACCEPT_LABELS[c.user_preferences.accept_type]}</td>
                  <td><code>{c.session_id}</code></td>
                  <td class="source">{c.url ?? '—'}</td>
                  <td>{c.gpc ? 'Yes' : 'No'}</td>
                </tr>
              ))}
            </tbody>
          </Table>
          <Pager pagination={list.data.pagination} limit={LIMIT} onPage={setPage} />
        </>
      ))}
    </Page>
  );
}

export function ConsentDetail({ accountId, id }: { accountId: string; id: string }) {
  const consent = useLoad(() => must(api.GET('/api/v1/consents/{id}', { params: { path: { id } } })).then((r) => r.data), [id]);
  const categories = useCategories();
  const names = new Map((categories.data ?? []).flatMap((c) => [[c.id, c.name], [c.slug, c.name]]));
  const list = (values: string[]) => (values.length === 0 ? 'None' : values.map((v) => names.get(v) ?? v).join(', '));
  const c = consent.data;
  return (
    <Page title="Consent">
      <p><Link href={`/accounts/${accountId}/consents`}>Back to the consent log</Link></p>
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
        </dl>
      )}
    </Page>
  );
}
