import { useEffect, useState } from 'preact/hooks';
import { must, type Scan } from '../api/client';
import { api } from '../session';
import { ErrorNote, Field, Form, Link, Loading, Notice, Page, Pager, Table, formatDate, text, useLoad } from '../ui';
import { DemoNote } from './accounts';

const LIMIT = 20;
const STATUS_LABELS: Record<Scan['status'], string> = {
  queued: 'Waiting to start', in_progress: 'Scanning', completed: 'Done', failed: 'Failed', cancelled: 'Cancelled',
};
const running = (scan: Scan) => scan.status === 'queued' || scan.status === 'in_progress';
/** How often a running scan's progress is read again. */
const POLL_MS = 2_000;

/** Scans of the account's website: start one, follow it, and read what it found. */
export function ScansPage({ accountId }: { accountId: string }) {
  const [page, setPage] = useState(1);
  const [done, setDone] = useState<string>();
  const [error, setError] = useState<unknown>();
  const account = useLoad(() => must(api.GET('/api/v1/accounts/{id}', { params: { path: { id: accountId } } })), [accountId]);
  const scans = useLoad(() => must(api.GET('/api/v1/scans', { params: { query: { page, limit: LIMIT, order: 'desc' } } })), [page]);
  const active = scans.data?.data.some(running) ?? false;
  useEffect(() => {
    if (!active) return;
    const timer = setTimeout(scans.reload, POLL_MS);
    return () => clearTimeout(timer);
  }, [active, scans.data]);
  const cancel = async (scan: Scan) => {
    setError(undefined);
    try {
      await must(api.DELETE('/api/v1/scans/{id}', { params: { path: { id: scan.id } } }));
      setDone(`The scan of ${scan.starting_url} was cancelled.`);
      scans.reload();
    } catch (caught) {
      setError(caught);
    }
  };
  return (
    <Page title="Scans">
      <p>A scan visits your website in a browser, lists every cookie and storage key it finds, and
        reports what is set before the visitor consents.</p>
      {account.data?.demo && <DemoNote />}
      {account.data && (
        <section class="card">
          <h2>New scan</h2>
          <Form submit="Start scan" label="New scan" onSubmit={async (data) => {
            setDone(undefined);
            const pages = text(data, 'max_pages');
            await must(api.POST('/api/v1/scans', { body: { scan: { starting_url: text(data, 'starting_url'), ...(pages && { max_pages: Number(pages) }) } } }));
            setDone('The scan was queued. This page follows its progress.');
            scans.reload();
          }}>
            <Field label="Starting page" name="starting_url" type="url" required defaultValue={`https://${account.data.domain}/`}
              hint="A page of the account's domain or of its allowed domains." />
            <Field label="Pages at most" name="max_pages" type="number" min={1} max={500} defaultValue="50" />
          </Form>
        </section>
      )}
      {done && <Notice>{done}</Notice>}
      <ErrorNote error={error ?? scans.error} />
      {scans.loading && !scans.data && <Loading what="scans" />}
      {scans.data && scans.data.data.length === 0 && <p>No scan yet.</p>}
      {scans.data && scans.data.data.length > 0 && (
        <>
          <Table label="Scans">
            <thead><tr><th scope="col">Started from</th><th scope="col">State</th><th scope="col">Pages</th><th scope="col">Items found</th><th scope="col">Set before consent</th><th scope="col">Queued</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
            <tbody>
              {scans.data.data.map((scan) => (
                <tr key={scan.id}>
                  <th scope="row"><Link href={`/accounts/${accountId}/scans/${scan.id}`}>{scan.starting_url}</Link></th>
                  <td>{STATUS_LABELS[scan.status]}{scan.error && <span class="hint"> ({scan.error})</span>}</td>
                  <td>{scan.pages_scanned} of {scan.max_pages}</td>
                  <td>{scan.storage_items_found}</td>
                  <td>{scan.report ? <BeforeConsentCounts summary={scan.report.summary} /> : '—'}</td>
                  <td>{formatDate(scan.created_at)}</td>
                  <td class="row-actions">{running(scan) && (
                    <button type="button" class="danger" onClick={() => cancel(scan)} aria-label={`Cancel the scan of ${scan.starting_url}`}>Cancel</button>
                  )}</td>
                </tr>
              ))}
            </tbody>
          </Table>
          <Pager pagination={scans.data.pagination} limit={LIMIT} onPage={setPage} />
        </>
      )}
    </Page>
  );
}

type Report = NonNullable<Scan['report']>;
const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** A scan's counts in the list: what fails first, in red; "None to fix" only when nothing does. */
function BeforeConsentCounts({ summary }: { summary: Report['summary'] }) {
  if (summary.passed) return <>None to fix</>;
  const failures = [
    summary.uncategorised > 0 && `${summary.uncategorised} without a category`,
    summary.violations > 0 && `${summary.violations} refusable`,
  ].filter(Boolean);
  return <strong class="failure"><span class="visually-hidden">Fails: </span>{failures.join(', ')}</strong>;
}

/**
 * What was set before the visitor chose: first the items without a category (nothing holds them
 * back, so they fail), then those of a category visitors may refuse; a pass only when neither.
 */
function SetBeforeConsent({ accountId, report }: { accountId: string; report: Report }) {
  const { uncategorised, violations } = report;
  if (report.summary.passed) {
    return <p>Nothing without a category, and nothing of a category visitors may refuse, was set before they chose.</p>;
  }
  return (
    <>
      {uncategorised.length > 0 && (
        <>
          <div class="note error">
            <p><strong>{plural(uncategorised.length, 'item without a category was', 'items without a category were')} set before visitors chose.</strong>
              {' '}Nothing holds {uncategorised.length === 1 ? 'it' : 'them'} back: give each a category
              on <Link href={`/accounts/${accountId}/storage-items`}>Storage items</Link> (a required one only if the site cannot work without it).</p>
          </div>
          <Table label="Without a category">
            <thead><tr><th scope="col">Name</th><th scope="col">Domain</th><th scope="col">Kind</th><th scope="col">First seen on</th></tr></thead>
            <tbody>{uncategorised.map((item) => (
              <tr key={`${item.storage_type} ${item.domain} ${item.name}`}>
                <th scope="row" class="failure">{item.name}</th><td>{item.domain}</td><td>{item.storage_type.replace('_', ' ')}</td><td>{item.first_seen_url}</td>
              </tr>
            ))}</tbody>
          </Table>
        </>
      )}
      {violations.length > 0 && (
        <>
          <div class="note error">
            <p><strong>{plural(violations.length, 'item of a category visitors may refuse was', 'items of a category visitors may refuse were')} set before they chose.</strong></p>
          </div>
          <Table label="Set before consent">
            <thead><tr><th scope="col">Name</th><th scope="col">Domain</th><th scope="col">Category</th><th scope="col">First seen on</th></tr></thead>
            <tbody>{violations.map((v) => (
              <tr key={`${v.storage_type} ${v.domain} ${v.name}`}><th scope="row">{v.name}</th><td>{v.domain}</td><td>{v.category}</td><td>{v.first_seen_url}</td></tr>
            ))}</tbody>
          </Table>
        </>
      )}
      {violations.length === 0 && <p>Nothing of a category visitors may refuse was set before they chose; the items above have no category yet.</p>}
    </>
  );
}

const CREATORS: Record<NonNullable<Report['unseen_items']>[number]['created_by'], string> = { user: 'A person', api: 'An API token', scan: 'A scan' };

/**
 * The account's items this scan did not find, nor any later one (the demo's examples, a cookie the
 * site dropped, or one on pages the scan did not reach), with a button that removes them after asking.
 */
function UnseenItems({ scan, onRemoved }: { scan: Scan; onRemoved: () => void }) {
  const [removed, setRemoved] = useState<number>();
  const [error, setError] = useState<unknown>();
  const items = scan.report?.unseen_items ?? [];
  if (items.length === 0 && removed === undefined) return null;
  const remove = async () => {
    if (!confirm(`Remove ${plural(items.length, 'storage item', 'storage items')} this scan did not find? This cannot be undone.`)) return;
    setError(undefined);
    try {
      const answer = await must(api.POST('/api/v1/scans/{id}/remove-unseen-items', {
        params: { path: { id: scan.id } }, body: { storage_item_ids: items.map((item) => item.storage_item_id) },
      }));
      setRemoved(answer.data.removed.length);
      onRemoved();
    } catch (caught) {
      setError(caught);
    }
  };
  return (
    <>
      <h2>Not found by this scan</h2>
      {removed !== undefined && <Notice>{plural(removed, 'storage item was', 'storage items were')} removed.</Notice>}
      <ErrorNote error={error} />
      {items.length > 0 && (
        <>
          <p>Your account lists {plural(items.length, 'item', 'items')} that neither this scan nor a later one found on the site:
            examples such as the demo's, cookies the site no longer sets, or ones set only on pages the scan did not reach.
            Remove them if your site does not use them.</p>
          <Table label="Not found by this scan">
            <thead><tr><th scope="col">Name</th><th scope="col">Domain</th><th scope="col">Kind</th><th scope="col">Added by</th></tr></thead>
            <tbody>{items.map((item) => (
              <tr key={item.storage_item_id}>
                <th scope="row">{item.name}</th><td>{item.domain || '—'}</td><td>{item.storage_type.replace('_', ' ')}</td><td>{CREATORS[item.created_by]}</td>
              </tr>
            ))}</tbody>
          </Table>
          <p><button type="button" class="danger" onClick={remove}>{items.length === 1 ? 'Remove this item' : `Remove these ${items.length} items`}</button></p>
        </>
      )}
    </>
  );
}

type Named = { name: string; domain: string; storage_type: string };
const keyOf = (item: Named) => `${item.storage_type} ${item.domain.replace(/^\./, '').toLowerCase()} ${item.name}`;

/** Whether the previous completed scan did not find this item. */
function isNew(report: Report, item: Named): boolean {
  return report.changes?.new_items.some((added) => keyOf(added) === keyOf(item)) ?? false;
}

/** What changed since the previous completed scan: how many new (marked below) and which are gone. */
function Changes({ report, accountId }: { report: Report; accountId: string }) {
  const changes = report.changes;
  if (!changes) return null;
  const { new_items: added, gone_items: gone } = changes;
  return (
    <>
      <h2>Since the <Link href={`/accounts/${accountId}/scans/${changes.previous_scan_id}`}>previous scan</Link></h2>
      {added.length === 0 && gone.length === 0 && <p>Nothing new and nothing gone.</p>}
      {added.length > 0 && <p>{plural(added.length, 'item is', 'items are')} new: marked <span class="tag">new</span> below.</p>}
      {gone.length > 0 && (
        <Table label="No longer found">
          <thead><tr><th scope="col">No longer found</th><th scope="col">Domain</th><th scope="col">Kind</th></tr></thead>
          <tbody>{gone.map((item) => (
            <tr key={keyOf(item)}><th scope="row">{item.name}</th><td>{item.domain || '—'}</td><td>{item.storage_type.replace('_', ' ')}</td></tr>
          ))}</tbody>
        </Table>
      )}
    </>
  );
}

/** One scan's report: what breaks the visitors' choice first, then everything found and every page visited. */
export function ScanReport({ accountId, id }: { accountId: string; id: string }) {
  const scan = useLoad(() => must(api.GET('/api/v1/scans/{id}', { params: { path: { id } } })).then((r) => r.data), [id]);
  const current = scan.data;
  useEffect(() => {
    if (!current || !running(current)) return;
    const timer = setTimeout(scan.reload, POLL_MS);
    return () => clearTimeout(timer);
  }, [current]);
  if (scan.error) return <Page title="Scan"><ErrorNote error={scan.error} /></Page>;
  if (!current) return <Loading what="the scan" />;
  const report = current.report;
  return (
    <Page title={`Scan of ${current.starting_url}`}>
      <p><Link href={`/accounts/${accountId}/scans`}>All scans</Link></p>
      <p role="status">{STATUS_LABELS[current.status]}: {current.pages_scanned} of at most {current.max_pages} pages,
        {' '}{current.storage_items_found} items found ({current.new_storage_items} new). {current.error}</p>
      {report && (
        <>
          <h2>Set before consent</h2>
          <SetBeforeConsent accountId={accountId} report={report} />
          <UnseenItems scan={current} onRemoved={scan.reload} />
          <Changes report={report} accountId={accountId} />
          <h2>Everything found</h2>
          <Table label="Everything found">
            <thead><tr><th scope="col">Name</th><th scope="col">Domain</th><th scope="col">Kind</th><th scope="col">Lasts</th><th scope="col">Before consent</th></tr></thead>
            <tbody>{report.storage_items.map((item) => (
              <tr key={`${item.storage_type} ${item.domain} ${item.name}`}>
                <th scope="row">{item.name}{isNew(report, item) && <span class="tag">new</span>}</th><td>{item.domain}</td><td>{item.storage_type.replace('_', ' ')}</td><td>{item.duration}</td><td>{item.set_before_consent ? 'Yes' : 'No'}</td>
              </tr>
            ))}</tbody>
          </Table>
          <h2>Pages visited</h2>
          <Table label="Pages visited">
            <thead><tr><th scope="col">Page</th><th scope="col">Pass</th><th scope="col">Status</th></tr></thead>
            <tbody>{report.pages.map((visit) => (
              <tr key={`${visit.pass} ${visit.url}`}><th scope="row">{visit.url}</th><td>{visit.pass === 'before_consent' ? 'Before consent' : 'After "Accept all"'}</td><td>{visit.error ?? visit.status}</td></tr>
            ))}</tbody>
          </Table>
        </>
      )}
    </Page>
  );
}
