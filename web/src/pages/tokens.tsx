import { useState } from 'preact/hooks';
import { must, type ApiToken } from '../api/client';
import { api, useSession } from '../session';
import { CopyButton, ErrorNote, Field, Form, Loading, Notice, Page, Pager, Select, Table, formatDate, text, useLoad } from '../ui';

const LIMIT = 20;
const TYPE_LABELS = { partner: 'Partner', user: 'User', account: 'Account' } as const;

/** The caller's own tokens: a new one is shown once, then only its last four characters. */
export function TokensPage() {
  const session = useSession();
  const me = session.me!;
  const [page, setPage] = useState(1);
  const [created, setCreated] = useState<{ id: string; name: string; token: string }>();
  const [error, setError] = useState<unknown>();
  const [done, setDone] = useState<string>();
  const tokens = useLoad(() => must(api.GET('/api/v1/api-tokens', { params: { query: { page, limit: LIMIT, order: 'desc' } } })), [page]);
  const accounts = useLoad(async () => (me.token_type === 'account' ? undefined
    : (await must(api.GET('/api/v1/accounts', { params: { query: { per_page: 50 } } }))).data), [me]);
  const accountNames = new Map((accounts.data ?? []).map((a) => [a.id, a.name]));
  const revoke = async (token: ApiToken) => {
    if (!confirm(`Revoke the token ${token.name ?? token.token_hint}? Whatever uses it stops working at once.`)) return;
    setError(undefined);
    setDone(undefined);
    try {
      await must(api.DELETE('/api/v1/api-tokens/{id}', { params: { path: { id: token.id } } }));
      setDone(`The token ${token.name ?? `…${token.token_hint}`} was revoked.`);
      if (created?.id === token.id) setCreated(undefined);
      tokens.reload();
    } catch (caught) {
      setError(caught);
    }
  };
  const scopes: [string, string][] = [
    ...(me.token_type === 'user' ? [['', 'Me, on all my accounts'] as [string, string]] : []),
    ...(accounts.data ?? []).map((a): [string, string] => [a.id, `Only the account ${a.name}`]),
  ];
  return (
    <Page title="API tokens">
      <p>Tokens let scripts and other services use the Consentry API. Treat them like passwords.</p>
      {created && (
        <div class="note success created-token" role="status">
          <p>Your new token <strong>{created.name}</strong>. Copy it now: it is shown only this once.</p>
          <pre class="snippet"><code id="new-token">{created.token}</code></pre>
          <CopyButton text={created.token} label="Copy token" />
        </div>
      )}
      {done && <Notice>{done}</Notice>}
      <ErrorNote error={error ?? tokens.error} />
      {tokens.loading && !tokens.data && <Loading what="tokens" />}
      {tokens.data && (
        <>
          <Table label="Your tokens">
            <thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Ends in</th><th scope="col">Account</th><th scope="col">Created</th><th scope="col">Expires</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
            <tbody>
              {tokens.data.data.map((t) => (
                <tr key={t.id}>
                  <th scope="row">
                    {t.name ?? (t.kind === 'session' ? 'Sign-in session' : 'Unnamed')}
                    {session.token?.endsWith(t.token_hint) && t.token_type === me.token_type && <span class="tag">this sign-in</span>}
                  </th>
                  <td>{TYPE_LABELS[t.token_type]}</td>
                  <td><code>…{t.token_hint}</code></td>
                  <td>{t.account_id ? accountNames.get(t.account_id) ?? t.account_id : '—'}</td>
                  <td>{formatDate(t.created_at)}</td>
                  <td>{t.expires_at ? formatDate(t.expires_at) : 'Never'}</td>
                  <td class="row-actions"><button type="button" class="danger" onClick={() => revoke(t)} aria-label={`Revoke ${t.name ?? `the token ending in ${t.token_hint}`}`}>Revoke</button></td>
                </tr>
              ))}
            </tbody>
          </Table>
          <Pager pagination={tokens.data.pagination} limit={LIMIT} onPage={setPage} />
        </>
      )}
      {me.token_type !== 'account' && (
        <section class="card">
          <h2>New token</h2>
          <Form submit="Create token" label="New token" onSubmit={async (data, form) => {
            setCreated(undefined);
            const accountId = text(data, 'account_id');
            const expires = text(data, 'expires_at');
            const answer = await must(api.POST('/api/v1/api-tokens', { body: {
              name: text(data, 'name'),
              ...(accountId ? { account_id: accountId } : {}),
              ...(expires ? { expires_at: new Date(`${expires}T23:59:59.999Z`).toISOString() } : {}),
            } }));
            form.reset();
            setCreated({ id: answer.data.id, name: answer.data.name ?? '', token: answer.token });
            tokens.reload();
          }}>
            <Field label="Name" name="name" required placeholder="CI deploy" />
            {accounts.data && <Select label="Reaches" name="account_id" options={scopes} />}
            <Field label="Expires (optional, UTC day)" name="expires_at" type="date" />
          </Form>
        </section>
      )}
    </Page>
  );
}

export function ChangePassword() {
  const [done, setDone] = useState(false);
  return (
    <Page title="Change password">
      <div class="narrow card">
        {done && <Notice>Your password was changed. Your other sessions were signed out.</Notice>}
        <Form submit="Change password" label="Change password" onSubmit={async (data, form) => {
          setDone(false);
          await must(api.PUT('/api/v1/password', { body: { user: {
            current_password: String(data.get('current_password')), password: String(data.get('password')),
            password_confirmation: String(data.get('password_confirmation')),
          } } }));
          form.reset();
          setDone(true);
        }}>
          <Field label="Current password" name="current_password" type="password" autocomplete="current-password" required />
          <Field label="New password" name="password" type="password" autocomplete="new-password" required hint="At least 8 characters." />
          <Field label="New password again" name="password_confirmation" type="password" autocomplete="new-password" required />
        </Form>
      </div>
    </Page>
  );
}
