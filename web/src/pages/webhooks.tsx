import { useState } from 'preact/hooks';
import { must, type Body } from '../api/client';
import { api } from '../session';
import { Checkbox, CopyButton, ErrorNote, Field, Form, Loading, Notice, Page, Pager, Table, formatDate, text, useLoad } from '../ui';

type Webhook = Body<'/api/v1/webhooks/{id}', 'get'>['data'];
type Delivery = Body<'/api/v1/webhooks/{id}/deliveries', 'get'>['data'][number];

const LIMIT = 20;
const EVENTS: [Webhook['events'][number], string][] = [
  ['consent.recorded', 'Consents recorded (batched, once a second at most)'],
  ['consent.erased', 'Consents erased'],
  ['scan.completed', 'Scans completed, with what changed'],
  ['storage_item.discovered', 'New cookies and storage keys found by a scan'],
  ['ai_action.created', 'AI suggestions and changes'],
  ['notice.changed', 'What the banner shows changed'],
];
const STATUS_LABELS: Record<Delivery['status'], string> = { pending: 'Waiting', delivered: 'Delivered', parked: 'Parked' };

/** The account's webhooks: a new one's secret shown once, each one's delivery log with "Send again". */
export function WebhooksPage() {
  const [page, setPage] = useState(1);
  const [created, setCreated] = useState<{ url: string; secret: string }>();
  const [open, setOpen] = useState<string>();
  const [error, setError] = useState<unknown>();
  const [done, setDone] = useState<string>();
  const hooks = useLoad(() => must(api.GET('/api/v1/webhooks', { params: { query: { page, limit: LIMIT } } })), [page]);
  const act = (message: string, run: () => Promise<unknown>) => async () => {
    setError(undefined);
    setDone(undefined);
    try {
      await run();
      setDone(message);
      hooks.reload();
    } catch (caught) {
      setError(caught);
    }
  };
  return (
    <Page title="Webhooks">
      <p>Webhooks tell your own systems what happens in this account, signed as the
        {' '}<a href="https://www.standardwebhooks.com/">Standard Webhooks</a> specification says.</p>
      {created && (
        <div class="note success" role="status">
          <p>The signing secret of <strong>{created.url}</strong>. Copy it now: it is shown only this once.</p>
          <pre class="snippet"><code>{created.secret}</code></pre>
          <CopyButton text={created.secret} label="Copy secret" />
        </div>
      )}
      {done && <Notice>{done}</Notice>}
      <ErrorNote error={error ?? hooks.error} />
      {hooks.loading && !hooks.data && <Loading what="webhooks" />}
      {hooks.data && hooks.data.data.length > 0 && (
        <>
          <Table label="Webhooks">
            <thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">State</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
            <tbody>{hooks.data.data.map((hook) => (
              <tr key={hook.id}>
                <th scope="row">{hook.url}{hook.description && <div class="hint">{hook.description}</div>}</th>
                <td>{hook.events.join(', ')}</td>
                <td>{hook.enabled ? (hook.failing_since ? `Failing since ${formatDate(hook.failing_since)}` : 'Enabled') : (hook.disabled_reason ? `Disabled: ${hook.disabled_reason}` : 'Disabled')}</td>
                <td class="row-actions">
                  <button type="button" onClick={() => setOpen(open === hook.id ? undefined : hook.id)} aria-expanded={open === hook.id}>Deliveries</button>
                  <button type="button" onClick={act(`${hook.url} is ${hook.enabled ? 'disabled' : 'enabled'}.`, () =>
                    must(api.PATCH('/api/v1/webhooks/{id}', { params: { path: { id: hook.id } }, body: { webhook: { enabled: !hook.enabled } } })))}>
                    {hook.enabled ? 'Disable' : 'Enable'}</button>
                  <button type="button" onClick={act('The new secret is shown above.', async () => {
                    const answer = await must(api.POST('/api/v1/webhooks/{id}/rotate-secret', { params: { path: { id: hook.id } } }));
                    setCreated({ url: hook.url, secret: answer.secret });
                  })}>New secret</button>
                  <button type="button" class="danger" onClick={() => confirm(`Delete the webhook ${hook.url} and its delivery log?`) && act(`${hook.url} was deleted.`, () =>
                    must(api.DELETE('/api/v1/webhooks/{id}', { params: { path: { id: hook.id } } })))()}>Delete</button>
                </td>
              </tr>
            ))}</tbody>
          </Table>
          <Pager pagination={hooks.data.pagination} limit={LIMIT} onPage={setPage} />
        </>
      )}
      {open && <Deliveries key={open} webhookId={open} />}
      <section class="card">
        <h2>New webhook</h2>
        <Form submit="Add webhook" label="New webhook" onSubmit={async (data, form) => {
          setCreated(undefined);
          const events = EVENTS.map(([event]) => event).filter((event) => data.get(`event-${event}`) === 'on');
          const description = text(data, 'description');
          const url = text(data, 'url');
          const answer = await must(api.POST('/api/v1/webhooks', { body: { webhook: { url, events, ...(description && { description }) } } }));
          form.reset();
          setCreated({ url: answer.data.url, secret: answer.secret });
          hooks.reload();
        }}>
          <Field label="URL" name="url" type="url" required placeholder="https://example.com/hooks/consentry" hint="https, on a public address." />
          <Field label="Description (optional)" name="description" />
          <fieldset>
            <legend>Events</legend>
            {EVENTS.map(([event, label]) => <Checkbox key={event} name={`event-${event}`} label={`${label} (${event})`} />)}
          </fieldset>
        </Form>
      </section>
    </Page>
  );
}

/** One webhook's delivery log, newest first, with "Send again". */
function Deliveries({ webhookId }: { webhookId: string }) {
  const [page, setPage] = useState(1);
  const [error, setError] = useState<unknown>();
  const log = useLoad(() => must(api.GET('/api/v1/webhooks/{id}/deliveries', { params: { path: { id: webhookId }, query: { page, limit: LIMIT } } })), [webhookId, page]);
  const again = async (delivery: Delivery) => {
    setError(undefined);
    try {
      await must(api.POST('/api/v1/webhooks/{id}/deliveries/{delivery_id}/retry', { params: { path: { id: webhookId, delivery_id: delivery.id } } }));
      log.reload();
    } catch (caught) {
      setError(caught);
    }
  };
  return (
    <section class="card">
      <h2>Deliveries</h2>
      <ErrorNote error={error ?? log.error} />
      {log.loading && !log.data && <Loading what="deliveries" />}
      {log.data && log.data.data.length === 0 && <p>Nothing sent yet.</p>}
      {log.data && log.data.data.length > 0 && (
        <>
          <Table label="Deliveries">
            <thead><tr><th scope="col">Event</th><th scope="col">Made</th><th scope="col">Status</th><th scope="col">Answer</th><th scope="col">Attempts</th><th scope="col">Next attempt</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
            <tbody>{log.data.data.map((d) => (
              <tr key={d.id}>
                <th scope="row">{d.event}</th>
                <td>{formatDate(d.created_at)}</td>
                <td>{STATUS_LABELS[d.status]}</td>
                <td>{d.response_code ?? '—'}{d.error && <div class="hint">{d.error}</div>}</td>
                <td>{d.attempts}</td>
                <td>{formatDate(d.next_attempt_at)}</td>
                <td class="row-actions"><button type="button" onClick={() => again(d)}>Send again</button></td>
              </tr>
            ))}</tbody>
          </Table>
          <Pager pagination={log.data.pagination} limit={LIMIT} onPage={setPage} />
        </>
      )}
    </section>
  );
}
