import { useState } from 'preact/hooks';
import { must, type Body } from '../api/client';
import { api } from '../session';
import { ErrorNote, Field, Form, Loading, Page, Pager, Select, Table, formatDate, optionalText, text, useLoad } from '../ui';

type Entry = Body<'/api/v1/audit-log', 'get'>['data'][number];
type ActorType = Entry['actor_type'];

const LIMIT = 25;
const ACTORS: [ActorType | '', string][] = [['', 'Anyone'], ['user', 'A person'], ['token', 'An account token'], ['partner', 'The partner'], ['ai', 'The AI'], ['system', 'The service']];
const ACTOR_LABELS = Object.fromEntries(ACTORS) as Record<ActorType, string>;

interface Filters { actor_type?: ActorType; resource_type?: string; since?: string; until?: string }

/** A date field's value (a day) as the start of that day in the browser's time zone, for the API. */
const dayStart = (day: string | undefined) => (day ? new Date(`${day}T00:00:00`).toISOString() : undefined);

/** What changed, field by field: `name: before → after` (a creation or deletion shows one side). */
function Changes({ entry }: { entry: Entry }) {
  const before = (entry.before ?? {}) as Record<string, unknown>;
  const after = (entry.after ?? {}) as Record<string, unknown>;
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  if (fields.length === 0) return <>—</>;
  const shown = (value: unknown) => (value === undefined ? '—' : JSON.stringify(value));
  return (
    <ul class="plain">{fields.map((field) => (
      <li key={field}><code>{field}</code>: {shown(before[field])} → {shown(after[field])}</li>
    ))}</ul>
  );
}

/** Who changed what in the account's configuration, newest first, with filters. */
export function AuditLogPage() {
  const [page, setPage] = useState(1);
  const [filters, setFilters] = useState<Filters>({});
  const log = useLoad(() => must(api.GET('/api/v1/audit-log', { params: { query: { page, limit: LIMIT, ...filters } } })), [page, filters]);
  return (
    <Page title="Audit log">
      <p>Every change to this account's configuration: who made it, when, and the fields before and after.
        Secrets never appear here.</p>
      <Form submit="Filter" label="Filter the audit log" onSubmit={async (data) => {
        const actor = text(data, 'actor_type') as ActorType | '';
        const until = optionalText(data, 'until');
        setFilters({
          ...(actor && { actor_type: actor }),
          ...(optionalText(data, 'resource_type') && { resource_type: text(data, 'resource_type') }),
          ...(optionalText(data, 'since') && { since: dayStart(text(data, 'since')) }),
          // The whole of the last day chosen.
          ...(until && { until: new Date(new Date(`${until}T00:00:00`).getTime() + 86_400_000).toISOString() }),
        });
        setPage(1);
      }}>
        <Select label="Changed by" name="actor_type" options={ACTORS} />
        <Field label="Resource (optional)" name="resource_type" placeholder="banner, category, storage_item…" />
        <Field label="From (optional)" name="since" type="date" />
        <Field label="To (optional)" name="until" type="date" />
      </Form>
      <ErrorNote error={log.error} />
      {log.loading && !log.data && <Loading what="the audit log" />}
      {log.data && log.data.data.length === 0 && <p>No change recorded{Object.keys(filters).length > 0 ? ' with these filters' : ''}.</p>}
      {log.data && log.data.data.length > 0 && (
        <>
          <Table label="Audit log">
            <thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">What</th><th scope="col">Changes</th></tr></thead>
            <tbody>{log.data.data.map((entry) => (
              <tr key={entry.id}>
                <th scope="row">{formatDate(entry.created_at)}</th>
                <td>{ACTOR_LABELS[entry.actor_type]}{entry.actor_id && <div class="hint">{entry.actor_id}</div>}</td>
                <td>{entry.action} {entry.resource_type}{entry.resource_id && <div class="hint">{entry.resource_id}</div>}</td>
                <td><Changes entry={entry} /></td>
              </tr>
            ))}</tbody>
          </Table>
          <Pager pagination={log.data.pagination} limit={LIMIT} onPage={setPage} />
        </>
      )}
    </Page>
  );
}
