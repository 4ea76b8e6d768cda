import { must, type Account } from '../api/client';
import { navigate } from '../router';
import { accountChanged, api, useSession } from '../session';
import { CopyButton, ErrorNote, Field, Form, Link, Loading, Notice, Page, lazy, text, useLoad } from '../ui';
import { useState } from 'preact/hooks';

const STEPS: [Account['onboarding_status'], string][] = [
  ['account_created', 'Account created'],
  ['vendors_setup', 'Cookies described'],
  ['code_installed', 'Script installed'],
  ['live', 'Live (10 visitors in 30 days)'],
];

/** Said wherever a demo account's catalogue could pass for the owner's site. */
export function DemoNote() {
  return (
    <p class="note" role="note"><strong>This is a demo account.</strong> Its categories and storage items (such
      as <code>_ga</code> and <code>_fbp</code>) are examples, not your website's. Scan your own site: the scan's
      report offers to remove what it did not find.</p>
  );
}

export const domainsOf = (value: string) => value.split(/[\s,]+/).map((d) => d.trim()).filter(Boolean);

/** The user's accounts, and a new one (the user becomes its owner). */
export function AccountsPage() {
  const accounts = useLoad(() => must(api.GET('/api/v1/accounts', { params: { query: { per_page: 50 } } })), []);
  return (
    <Page title="Your accounts">
      <ErrorNote error={accounts.error} />
      {accounts.data && (accounts.data.data.length === 0
        ? <p>You are not a member of any account yet. Create one for your website, or ask a colleague to invite you.</p>
        : <ul class="cards">{accounts.data.data.map((a) => (
          <li key={a.id} class="card"><Link href={`/accounts/${a.id}`}>{a.name}</Link> <span class="muted">{a.domain}</span></li>
        ))}</ul>)}
      <section class="card">
        <h2>New account</h2>
        <Form submit="Create account" label="New account" onSubmit={async (data) => {
          const account = await must(api.POST('/api/v1/accounts', { body: { account: { name: text(data, 'name'), domain: text(data, 'domain') } } }));
          navigate(`/accounts/${account.id}`);
        }}>
          <Field label="Name" name="name" required />
          <Field label="Website domain" name="domain" required placeholder="www.example.com" />
        </Form>
      </section>
    </Page>
  );
}

export function AccountSettings({ account, onSaved }: { account: Account; onSaved: (a: Account) => void }) {
  const [saved, setSaved] = useState(false);
  return (
    <Form submit="Save settings" label="Account settings" onSubmit={async (data) => {
      setSaved(false);
      const updated = await must(api.PATCH('/api/v1/accounts/{id}', {
        params: { path: { id: account.id } },
        body: { account: {
          name: text(data, 'name'), domain: text(data, 'domain'),
          allowed_domains: domainsOf(text(data, 'allowed_domains')), default_language: text(data, 'default_language'),
        } },
      }));
      setSaved(true);
      onSaved(updated);
    }}>
      <Field label="Name" name="name" defaultValue={account.name} required />
      <Field label="Website domain" name="domain" defaultValue={account.domain} required />
      <Field label="Other allowed domains" name="allowed_domains" defaultValue={account.allowed_domains.join(', ')}
        hint="Separated by commas; *.example.com covers every subdomain." />
      <Field label="Default language" name="default_language" defaultValue={account.default_language} required
        hint="A language code such as en, fr or de-CH." />
      {saved && <Notice>Settings saved.</Notice>}
    </Form>
  );
}

const StatsPanel = lazy<{ groupId?: string }>(() => import('./stats').then((m) => m.StatsPanel), 'statistics');

/** One account: where it stands, how to install the banner, its settings. */
export function Overview({ id }: { id: string }) {
  const session = useSession();
  const account = useLoad(() => must(api.GET('/api/v1/accounts/{id}', { params: { path: { id } } })), [id]);
  // The status moves on when the script is installed, whatever was described: the step says what is.
  const described = useLoad(async () => {
    const counts = await Promise.all((['/api/v1/categories', '/api/v1/storage-items'] as const).map((path) =>
      must(api.GET(path, { params: { query: { account_id: id, per_page: 1 } } })).then((list) => list.pagination.count)));
    return counts.some((count) => count > 0);
  }, [id]);
  const snippet = `<script src="${location.origin}/widget/${id}.js"></script>`;
  if (account.error) return <Page title="Account"><ErrorNote error={account.error} /></Page>;
  if (!account.data) return <Loading what="the account" />;
  const a = account.data;
  const reached = STEPS.findIndex(([status]) => status === a.onboarding_status);
  return (
    <Page title={a.name}>
      <p class="muted">{a.domain}{session.me?.token_type === 'partner' && <> · <Link href={`/partner/groups/${a.group_id}`}>its group</Link></>}</p>
      {a.demo && <DemoNote />}
      <section class="card">
        <h2>Getting started</h2>
        {a.onboarding_status === 'inactive'
          ? <p class="note error">Inactive: the script was installed, but fewer than 10 visitors were seen in the last 30 days.</p>
          : (
            <ol class="steps" aria-describedby="live-explained">
              {STEPS.map(([status, label], index) => {
                const done = status === 'vendors_setup' ? described.data === true : index <= reached;
                return (
                  <li key={status} class={done ? 'done' : ''}>
                    {label}<span class="visually-hidden">{done ? ' (done)' : ' (to do)'}</span>
                  </li>
                );
              })}
            </ol>
          )}
        <p class="hint" id="live-explained">Live: the banner reached at least 10 different visitors in the last 30 days.
          A visitor is a browser session the banner asked or that made a choice, counted once however many pages it viewed;
          your own visits count too. An installed script whose site has had fewer for 30 days shows as inactive.</p>
      </section>
      <section class="card">
        <h2>Install the banner</h2>
        <p>Add this line to every page of your website, as early in the &lt;head&gt; as you can:</p>
        <pre class="snippet"><code id="install-snippet">{snippet}</code></pre>
        <CopyButton text={snippet} label="Copy snippet" />
      </section>
      {session.me?.token_type !== 'partner' && <StatsPanel />}
      <section class="card">
        <h2>Settings</h2>
        <AccountSettings account={a} onSaved={() => { account.reload(); accountChanged(); }} />
      </section>
    </Page>
  );
}
