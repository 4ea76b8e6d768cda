import { useEffect } from 'preact/hooks';
import { must } from './api/client';
import { AiPage } from './pages/ai';
import { AccountsPage, Overview } from './pages/accounts';
import { CategoriesPage } from './pages/categories';
import { ServicesPage } from './pages/services';
import { ConsentDetail, ConsentsPage } from './pages/consents';
import { MembersPage } from './pages/members';
import { GroupPage, PartnerPage } from './pages/partner';
import { AcceptInvitation, ForgotPassword, ResetPassword, SignIn, SignUp } from './pages/public';
import { ScanReport, ScansPage } from './pages/scans';
import { StorageItemsPage } from './pages/storage-items';
import { ChangePassword, TokensPage } from './pages/tokens';
import { WebhooksPage } from './pages/webhooks';
import { AuditLogPage } from './pages/audit-log';
import { match, navigate, useLocation, type Location } from './router';
import { api, chooseAccount, signOut, useSession, type Session } from './session';
import { Link, Loading, Page, lazy, useLoad } from './ui';

/** The banner editor carries the banner's built-in words of every language: a file of its own, loaded when opened. */
const BannerPage = lazy<{ accountId: string }>(() => import('./pages/banner').then((m) => m.BannerPage), 'banner editor');

const PUBLIC: [string, (p: Record<string, string>) => preact.JSX.Element][] = [
  ['/sign-in', () => <SignIn />],
  ['/sign-up', () => <SignUp />],
  ['/forgot-password', () => <ForgotPassword />],
  ['/reset-password/:token', (p) => <ResetPassword token={p.token} />],
  ['/invitations/:secret', (p) => <AcceptInvitation secret={p.secret} />],
];

const ACCOUNT_PAGES: [string, string][] = [
  ['', 'Overview'],
  ['/categories', 'Categories'],
  ['/banner', 'Banner'],
  ['/storage-items', 'Storage items'],
  ['/services', 'Services'],
  ['/ai', 'AI suggestions'],
  ['/consents', 'Consent log'],
  ['/scans', 'Scans'],
  ['/webhooks', 'Webhooks'],
  ['/audit-log', 'Audit log'],
  ['/members', 'Members'],
];

function routeFor(location: Location, session: Session): preact.JSX.Element {
  const { path } = location;
  for (const [pattern, render] of PUBLIC) {
    const params = match(pattern, path);
    if (params) return render(params);
  }
  const me = session.me;
  if (!me) return <Redirect to="/sign-in" />;
  const routes: [string, (p: Record<string, string>) => preact.JSX.Element][] = [
    ['/', () => <Home />],
    ['/tokens', () => <TokensPage />],
    ['/password', () => <ChangePassword />],
    ['/partner', () => <PartnerPage />],
    ['/partner/groups/:id', (p) => <GroupPage id={p.id} />],
    ['/accounts', () => <AccountsPage />],
    ['/accounts/:id', (p) => <Overview key={p.id} id={p.id} />],
    ['/accounts/:id/categories', (p) => <CategoriesPage key={p.id} />],
    ['/accounts/:id/banner', (p) => <BannerPage key={p.id} accountId={p.id} />],
    ['/accounts/:id/storage-items', (p) => <StorageItemsPage key={p.id} accountId={p.id} />],
    ['/accounts/:id/services', (p) => <ServicesPage key={p.id} />],
    ['/accounts/:id/ai', (p) => <AiPage key={p.id} accountId={p.id} />],
    ['/accounts/:id/consents', (p) => <ConsentsPage key={p.id} accountId={p.id} />],
    ['/accounts/:id/consents/:consent', (p) => <ConsentDetail accountId={p.id} id={p.consent} />],
    ['/accounts/:id/scans', (p) => <ScansPage key={p.id} accountId={p.id} />],
    ['/accounts/:id/scans/:scan', (p) => <ScanReport accountId={p.id} id={p.scan} />],
    ['/accounts/:id/webhooks', (p) => <WebhooksPage key={p.id} />],
    ['/accounts/:id/audit-log', (p) => <AuditLogPage key={p.id} />],
    ['/accounts/:id/members', (p) => <MembersPage key={p.id} />],
  ];
  for (const [pattern, render] of routes) {
    const params = match(pattern, path);
    if (params) return render(params);
  }
  return <Page title="Page not found"><p>There is no page here. <Link href="/">Go to the start page</Link>.</p></Page>;
}

function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
}

/** Where a signed-in person starts: a partner at their groups, an account at its overview. */
function Home() {
  const session = useSession();
  const me = session.me!;
  const accounts = useLoad(async () => (me.token_type === 'user' ? must(api.GET('/api/v1/accounts', { params: { query: { per_page: 50 } } })) : undefined), [me]);
  if (me.token_type === 'partner') return <Redirect to="/partner" />;
  if (me.token_type === 'account') return <Redirect to={`/accounts/${me.account!.id}`} />;
  if (!accounts.data) return <Loading what="your accounts" />;
  const ids = accounts.data.data.map((a) => a.id);
  const chosen = session.accountId && ids.includes(session.accountId) ? session.accountId : ids[0];
  return <Redirect to={chosen ? `/accounts/${chosen}` : '/accounts'} />;
}

/** Users with several accounts switch here; the choice is kept for the next visit. */
function AccountSwitcher({ accountId }: { accountId: string }) {
  const { accountsChanged } = useSession();
  const accounts = useLoad(() => must(api.GET('/api/v1/accounts', { params: { query: { per_page: 50 } } })), [accountsChanged]);
  const list = accounts.data?.data ?? [];
  if (list.length < 2) return null;
  return (
    <div class="switcher">
      <label for="account-switcher">Account</label>
      <select id="account-switcher" value={accountId} onChange={(event) => {
        const id = (event.currentTarget as HTMLSelectElement).value;
        navigate(location.pathname.replace(/^\/accounts\/[^/]+/, `/accounts/${id}`));
      }}>
        {list.map((account) => <option key={account.id} value={account.id}>{account.name}</option>)}
      </select>
    </div>
  );
}

function Header({ session, path }: { session: Session; path: string }) {
  const me = session.me;
  const accountId = match('/accounts/:id', path)?.id ?? /^\/accounts\/([^/]+)/.exec(path)?.[1];
  const current = (href: string) => (path === href ? 'page' : undefined);
  const who = me?.user?.name ?? me?.partner?.name ?? me?.account?.name;
  return (
    <header class="top">
      <div class="bar">
        <Link href="/" class="brand">Consentry</Link>
        {me && (
          <nav aria-label="You" class="you">
            <span class="who">{who}</span>
            <Link href="/tokens" aria-current={current('/tokens')}>API tokens</Link>
            {me.token_type === 'user' && <Link href="/password" aria-current={current('/password')}>Password</Link>}
            <button type="button" class="link" onClick={async () => { await signOut(); navigate('/sign-in'); }}>Sign out</button>
          </nav>
        )}
      </div>
      {me && (
        <div class="bar sub">
          {me.token_type === 'partner' && (
            <nav aria-label="Partner">
              <Link href="/partner" aria-current={current('/partner')}>Groups and accounts</Link>
            </nav>
          )}
          {me.token_type === 'user' && accountId && <AccountSwitcher accountId={accountId} />}
          {accountId && me.token_type !== 'partner' && (
            <nav aria-label="Account pages">
              {ACCOUNT_PAGES.map(([suffix, label]) => {
                const href = `/accounts/${accountId}${suffix}`;
                const active = suffix === '' ? path === href : path.startsWith(href);
                return <Link key={suffix} href={href} aria-current={active ? 'page' : undefined}>{label}</Link>;
              })}
            </nav>
          )}
          {me.token_type === 'user' && !accountId && <nav aria-label="Accounts"><Link href="/accounts">Your accounts</Link></nav>}
        </div>
      )}
    </header>
  );
}

export function App() {
  const session = useSession();
  const location = useLocation();
  const accountId = /^\/accounts\/([^/]+)/.exec(location.path)?.[1];
  // Before the pages render: their requests carry the account they are about.
  if (accountId && session.me?.token_type === 'user') chooseAccount(accountId, { quiet: true });
  // A new page takes the keyboard focus to its heading, as a page load would.
  useEffect(() => {
    document.getElementById('page-title')?.focus({ preventScroll: false });
  }, [location.path]);
  if (!session.ready) return <main id="main"><Loading what="Consentry" /></main>;
  return (
    <>
      <a href="#main" class="skip">Skip to content</a>
      <Header session={session} path={location.path} />
      <main id="main">{routeFor(location, session)}</main>
    </>
  );
}
