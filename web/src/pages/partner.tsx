import { useState } from 'preact/hooks';
import { must, type Group } from '../api/client';
import { navigate } from '../router';
import { api } from '../session';
import { ErrorNote, Field, Form, Link, Loading, Notice, Page, Table, formatDate, lazy, optionalNumber, optionalText, text, useLoad } from '../ui';
import { domainsOf } from './accounts';

const PER_PAGE = 20;

const STATUS_WORDS: Record<string, string> = {
  account_created: 'Created', vendors_setup: 'Cookies described', code_installed: 'Installed', live: 'Live', inactive: 'Inactive',
};

function PageLinks({ page, next, onPage }: { page: number; next: number | null; onPage: (n: number) => void }) {
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>Previous</button>
      <span>Page {page}</span>
      <button type="button" disabled={next === null} onClick={() => onPage(page + 1)}>Next</button>
    </nav>
  );
}

function groupFields(data: FormData) {
  return {
    name: text(data, 'name'), external_id: optionalText(data, 'external_id') ?? null,
    max_pageviews_per_month: optionalNumber(data, 'max_pageviews'), max_unique_visitors_per_month: optionalNumber(data, 'max_visitors'),
  };
}

function GroupFields({ group }: { group?: Group }) {
  return (
    <div class="grid">
      <Field label="Name" name="name" defaultValue={group?.name} required />
      <Field label="Your reference (external id)" name="external_id" defaultValue={group?.external_id ?? ''} />
      <Field label="Pageviews per month (quota)" name="max_pageviews" type="number" min={0} step={1}
        defaultValue={group?.max_pageviews_per_month?.toString() ?? ''} hint="Empty: no limit." />
      <Field label="Unique visitors per month (quota)" name="max_visitors" type="number" min={0} step={1}
        defaultValue={group?.max_unique_visitors_per_month?.toString() ?? ''} hint="Empty: no limit." />
    </div>
  );
}

const quota = (value: number | null) => (value === null ? 'No limit' : value.toLocaleString('en-GB'));

/** A partner's groups (one per customer, usually) with their quotas. */
export function PartnerPage() {
  const [page, setPage] = useState(1);
  const groups = useLoad(() => must(api.GET('/api/v1/groups', { params: { query: { page, per_page: PER_PAGE } } })), [page]);
  return (
    <Page title="Groups">
      <p>Each group holds the accounts of one of your customers, with its monthly quotas.</p>
      <ErrorNote error={groups.error} />
      {groups.loading && !groups.data && <Loading what="groups" />}
      {groups.data && (groups.data.data.length === 0 ? <p>No groups yet. Create the first one below.</p> : (
        <>
          <Table label="Groups">
            <thead><tr><th scope="col">Name</th><th scope="col">Reference</th><th scope="col">Pageviews / month</th><th scope="col">Visitors / month</th><th scope="col">Created</th></tr></thead>
            <tbody>
              {groups.data.data.map((g) => (
                <tr key={g.id}>
                  <th scope="row"><Link href={`/partner/groups/${g.id}`}>{g.name}</Link></th>
                  <td>{g.external_id ?? '—'}</td><td>{quota(g.max_pageviews_per_month)}</td><td>{quota(g.max_unique_visitors_per_month)}</td>
                  <td>{formatDate(g.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </Table>
          <PageLinks page={page} next={groups.data.pagination.next} onPage={setPage} />
        </>
      ))}
      <section class="card">
        <h2>New group</h2>
        <Form submit="Create group" label="New group" onSubmit={async (data) => {
          const group = await must(api.POST('/api/v1/groups', { body: { group: groupFields(data) } }));
          navigate(`/partner/groups/${group.id}`);
        }}>
          <GroupFields />
        </Form>
      </section>
    </Page>
  );
}

/** One group: its quotas, its accounts, a new account in it. */
const StatsPanel = lazy<{ groupId?: string }>(() => import('./stats').then((m) => m.StatsPanel), 'statistics');

export function GroupPage({ id }: { id: string }) {
  const [page, setPage] = useState(1);
  const [saved, setSaved] = useState(false);
  const group = useLoad(() => must(api.GET('/api/v1/groups/{id}', { params: { path: { id } } })), [id]);
  const accounts = useLoad(() => must(api.GET('/api/v1/accounts', { params: { query: { group_id: id, page, per_page: PER_PAGE } } })), [id, page]);
  if (group.error) return <Page title="Group"><ErrorNote error={group.error} /></Page>;
  if (!group.data) return <Loading what="the group" />;
  const g = group.data;
  return (
    <Page title={g.name}>
      <p><Link href="/partner">All groups</Link></p>
      <section>
        <h2>Accounts</h2>
        <ErrorNote error={accounts.error} />
        {accounts.data && (accounts.data.data.length === 0 ? <p>No accounts in this group yet.</p> : (
          <>
            <Table label="Accounts of the group">
              <thead><tr><th scope="col">Name</th><th scope="col">Domain</th><th scope="col">Status</th><th scope="col">Created</th></tr></thead>
              <tbody>
                {accounts.data.data.map((a) => (
                  <tr key={a.id}>
                    <th scope="row"><Link href={`/accounts/${a.id}`}>{a.name}</Link></th>
                    <td>{a.domain}</td><td>{STATUS_WORDS[a.onboarding_status] ?? a.onboarding_status}</td><td>{formatDate(a.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </Table>
            <PageLinks page={page} next={accounts.data.pagination.next} onPage={setPage} />
          </>
        ))}
      </section>
      <StatsPanel groupId={id} />
      <section class="card">
        <h2>New account in this group</h2>
        <Form submit="Create account" label="New account in this group" onSubmit={async (data, form) => {
          await must(api.POST('/api/v1/accounts', { body: { account: {
            name: text(data, 'name'), domain: text(data, 'domain'), group_id: id,
            allowed_domains: domainsOf(text(data, 'allowed_domains')),
            ...(text(data, 'default_language') ? { default_language: text(data, 'default_language') } : {}),
          } } }));
          form.reset();
          accounts.reload();
        }}>
          <div class="grid">
            <Field label="Name" name="name" required />
            <Field label="Website domain" name="domain" required placeholder="www.example.com" />
            <Field label="Other allowed domains" name="allowed_domains" hint="Separated by commas." />
            <Field label="Default language" name="default_language" placeholder="en" />
          </div>
        </Form>
      </section>
      <section class="card">
        <h2>Group settings and quotas</h2>
        <Form submit="Save group" label="Group settings" onSubmit={async (data) => {
          setSaved(false);
          await must(api.PUT('/api/v1/groups/{id}', { params: { path: { id } }, body: { group: groupFields(data) } }));
          setSaved(true);
          group.reload();
        }}>
          <GroupFields key={g.updated_at} group={g} />
          {saved && <Notice>Group saved.</Notice>}
        </Form>
      </section>
    </Page>
  );
}
