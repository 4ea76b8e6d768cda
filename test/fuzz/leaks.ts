/**
 * Tenant isolation of every GET route, generated from the app's route table: tenant A's tokens, on
 * A's records, B's records and with filters naming B's records, never see an id or a name of B.
 */
import { call } from '../helpers/app.ts';
import { EVERYONE, resourceOf, type Side, type Who, type World } from './world.ts';

export interface Probe {
  route: string;
  who: Who | 'none';
  url: string;
  status: number;
  /** B's ids and marker found in the body. */
  leaked: string[];
}

export interface LeakReport {
  probes: number;
  /** Answers that showed B's data. */
  leaks: Probe[];
  /** B's record in the path answered something other than 401, 403 or 404. */
  reached: Probe[];
  /** Routes where no answer showed A its own data: the probe could not have seen a leak either. */
  blind: string[];
}

function queriesFor(a: Side, b: Side): string[] {
  return [
    '', 'limit=100', 'per_page=50', 'include_cancelled=true', `account_id=${a.tenant.account.id}`, `account_id=${b.tenant.account.id}`,
    `group_id=${b.tenant.group.id}`, `category_id=${b.main.categories[0]}`, `actionable_id=${b.main['storage-items'][1]}`,
    `session_id=${b.sessionId}`, `user_id=${b.consentUserId}`, 'created_after=2000-01-01T00:00:00Z&limit=100',
  ];
}

const ownText = (side: Side) => [side.marker, ...side.allIds];

/**
 * Routes whose answers name no record while all is well (a verification's counts, the visitor's
 * country and mode): they cannot be blind.
 */
// The vendor list is the IAB's, the same for every tenant; an account's TCF vendor file is not found while TCF is off.
const NO_RECORDS = new Set(['/api/v1/consents/verify', '/widget/:account_id/region', '/api/v1/tcf/vendor-list', '/widget/:account_id/tcf-vendors.json']);

/** Probes every GET route, or only the routes named in `only`. */
export async function probeLeaks(world: World, only?: string[]): Promise<LeakReport> {
  const { app } = world.t;
  const { a, b } = world;
  const foreign = [b.marker, ...b.allIds];
  const report: LeakReport = { probes: 0, leaks: [], reached: [], blind: [] };
  // The GPP, TCF and extras files are the same static files for every account, named by their content's hash: no tenant's record.
  const routes = app.routeTable.filter((route) => route.method === 'GET' && /^\/(api\/v1|widget)\//.test(route.url) && route.auth !== 'none')
    .filter((route) => !['/widget/gpp.:hash.js', '/widget/tcf.:hash.js', '/widget/extras.:hash.js'].includes(route.url))
    .filter((route) => !only || only.includes(route.url));
  for (const route of routes) {
    const params = [...route.url.matchAll(/:(\w+)/g)].map((match) => match[1]!);
    // Paths: every record of A the route names, and (except on the public widget, which serves
    // any account to anyone) every record of B.
    const paths: { url: string; foreign: boolean }[] = [];
    if (params.length === 0) paths.push({ url: route.url, foreign: false });
    for (const param of params) {
      const resource = resourceOf(route.url, param);
      if (!resource) throw new Error(`no records known for :${param} of ${route.url}`);
      for (const id of [...a.main[resource], ...a.spare[resource]]) paths.push({ url: route.url.replace(`:${param}`, id), foreign: false });
      if (route.auth !== 'public') {
        for (const id of [...b.main[resource], ...b.spare[resource]]) paths.push({ url: route.url.replace(`:${param}`, id), foreign: true });
      }
    }
    // A path naming two records (an account and its consent) gets A's first record for the other one.
    for (const path of paths) {
      for (const param of params) {
        const resource = resourceOf(route.url, param)!;
        path.url = path.url.replace(`:${param}`, a.main[resource][0]!);
      }
    }
    const callers: (Who | 'none')[] = route.auth === 'public' ? ['none', ...EVERYONE] : EVERYONE;
    // A visitor's receipt needs the session that gave the consent.
    const queries = params.length === 0 ? queriesFor(a, b) : ['', `account_id=${a.tenant.account.id}`, `session_id=${a.sessionId}`];
    let sawOwn = false;
    for (const path of paths) {
      for (const query of queries) {
        const url = query ? `${path.url}?${query}` : path.url;
        for (const who of callers) {
          const res = await call(app, 'GET', url, { token: who === 'none' ? undefined : a.tenant.tokens[who] });
          report.probes++;
          const text = typeof res.body === 'string' ? res.body : JSON.stringify(res.body);
          // Pagination links repeat the query: what the request named itself is not a leak.
          const echoed = [...new URLSearchParams(query).values()].reduce((rest, value) => rest.split(value).join(''), text);
          const probe: Probe = { route: route.url, who, url, status: res.status, leaked: foreign.filter((t) => echoed.includes(t)) };
          if (probe.leaked.length > 0) report.leaks.push(probe);
          if (path.foreign && ![401, 403, 404].includes(res.status)) report.reached.push(probe);
          if (res.status === 200 && ownText(a).some((t) => text.includes(t))) sawOwn = true;
        }
      }
    }
    if (!sawOwn && !NO_RECORDS.has(route.url)) report.blind.push(route.url);
  }
  return report;
}
