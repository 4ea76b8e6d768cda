import { useState } from 'preact/hooks';
import { ApiError, must, type Account, type AiAction, type StorageItem } from '../api/client';
import { api } from '../session';
import { Checkbox, ErrorNote, Field, Form, Link, Loading, Notice, Page, Pager, Select, Table, formatDate, useLoad } from '../ui';
import { STATUS_LABELS, useCategories } from './storage-items';

const LIMIT = 20;
const ACTION_LABELS: Record<AiAction['action_type'], string> = {
  auto_categorise: 'Category', autofill: 'Details filled in', auto_approve: 'Approved', translate: 'Translation',
};

const STATE_LABELS: Record<AiAction['status'], string> = { suggested: 'Suggested', applied: 'Applied', reverted: 'Reverted', rejected: 'Rejected' };

const languageNames = new Intl.DisplayNames(['en'], { type: 'language' });

/** Texts by language (`{"de": {"description": "…"}}`): `in German: description …`. */
const inLanguages = (value: object) => Object.entries(value as Record<string, Record<string, string>>)
  .map(([code, texts]) => `in ${languageNames.of(code) ?? code}: ${Object.entries(texts).map(([key, text]) => `${key} ${text}`).join(', ')}`)
  .join('; ');

/**
 * What the AI suggested, in words: a category by its name, a status by its label, texts by their
 * language. An accepted suggestion names the standard category and the account's category it
 * became: only the latter shows.
 */
const describe = (params: Record<string, unknown>, categoryNames: Map<string, string>) =>
  Object.entries(params)
    .filter(([key]) => !(key === 'category' && 'category_id' in params))
    .sort(([a], [b]) => (a === 'status' ? 1 : b === 'status' ? -1 : 0))
    .map(([key, value]) => {
      if (key === 'category_id' && typeof value === 'string') return `category: ${categoryNames.get(value) ?? 'a deleted category'}`;
      if (key === 'status' && typeof value === 'string') return `status: ${STATUS_LABELS[value as keyof typeof STATUS_LABELS] ?? value}`;
      if (key === 'translations' && value !== null && typeof value === 'object') return inLanguages(value);
      return `${key.replace(/_/g, ' ')}: ${value ?? 'none'}`;
    })
    .join('; ');

/** `saved` lives in the page: the form is rebuilt from the account each time a save reloads it. */
function AiSettings({ account, saved, setSaved, onSaved }: { account: Account; saved: boolean; setSaved: (saved: boolean) => void; onSaved: () => void }) {
  const ai = account.ai_features;
  return (
    <Form submit="Save AI settings" label="AI settings" onSubmit={async (data) => {
      setSaved(false);
      await must(api.PATCH('/api/v1/accounts/{id}', { params: { path: { id: account.id } }, body: { account: { ai_features: {
        autofill: data.get('autofill') === 'on', auto_categorise: data.get('auto_categorise') === 'on',
        auto_approve: data.get('auto_approve') === 'on', auto_approve_threshold: Number(data.get('threshold')) / 100,
      } } } }));
      setSaved(true);
      onSaved();
    }}>
      <Checkbox label="Sort new items into categories" name="auto_categorise" defaultChecked={ai.auto_categorise} />
      <Checkbox label="Fill in descriptions, companies and durations" name="autofill" defaultChecked={ai.autofill} />
      <Checkbox label="Approve items the AI is sure about" name="auto_approve" defaultChecked={ai.auto_approve} />
      <Field label="Approve from this confidence (%)" name="threshold" type="number" min={0} max={100} step={1} required
        defaultValue={String(Math.round(ai.auto_approve_threshold * 100))} />
      {saved && <Notice>AI settings saved.</Notice>}
    </Form>
  );
}

export function AiPage({ accountId }: { accountId: string }) {
  const [page, setPage] = useState(1);
  const [type, setType] = useState('');
  const [error, setError] = useState<unknown>();
  const [done, setDone] = useState<preact.ComponentChildren>();
  const [settingsSaved, setSettingsSaved] = useState(false);
  const account = useLoad(() => must(api.GET('/api/v1/accounts/{id}', { params: { path: { id: accountId } } })), [accountId]);
  const categories = useCategories();
  const list = useLoad(async () => {
    const answer = await must(api.GET('/api/v1/ai-actions', { params: { query: {
      page, limit: LIMIT, order: 'desc', ...(type ? { action_type: type as AiAction['action_type'] } : {}),
    } } }));
    const ids = [...new Set(answer.data.filter((a) => a.actionable_type === 'StorageItem').map((a) => a.actionable_id))];
    const items = new Map<string, StorageItem | null>();
    await Promise.all(ids.map(async (id) => {
      try {
        items.set(id, (await must(api.GET('/api/v1/storage-items/{id}', { params: { path: { id } } }))).data);
      } catch (caught) {
        if (!(caught instanceof ApiError && caught.status === 404)) throw caught;
        items.set(id, null);
      }
    }));
    return { ...answer, items };
  }, [page, type]);
  const categoryNames = new Map((categories.data ?? []).map((c) => [c.id, c.name]));

  /** Runs a change and says what `work` answers (nothing when it was called off), then loads the page again. */
  const run = (work: () => Promise<preact.ComponentChildren>) => async () => {
    setError(undefined);
    setDone(undefined);
    setSettingsSaved(false);
    try {
      setDone(await work());
      list.reload();
      categories.reload();
    } catch (caught) {
      setError(caught);
    }
  };
  const act = (label: string, work: () => Promise<unknown>) => run(async () => {
    await work();
    return label;
  });
  const accept = (action: AiAction) => act('Suggestion accepted.', () =>
    must(api.POST('/api/v1/ai-actions/{id}/accept', { params: { path: { id: action.id } } })));
  const approve = (action: AiAction) => act('Item approved.', () =>
    must(api.PUT('/api/v1/storage-items/{id}', { params: { path: { id: action.actionable_id } }, body: { storage_item: { status: 'finalised' } } })));
  const revert = (action: AiAction) => act('Change reverted.', () =>
    must(api.POST('/api/v1/ai-actions/{id}/revert', { params: { path: { id: action.id } } })));
  const reject = (action: AiAction) => act('Suggestion rejected.', () =>
    must(api.POST('/api/v1/ai-actions/{id}/reject', { params: { path: { id: action.id } } })));

  /** A row offers Approve for a change the AI applied to an item that waits for a person. */
  const approvable = (action: AiAction, item: StorageItem | null | undefined): item is StorageItem =>
    action.status === 'applied' && !!item && item.status !== 'finalised';
  // The items of the rows shown that Approve all finalises: each once, and only those with a category.
  const shownItems = new Map<string, StorageItem>();
  for (const action of list.data?.data ?? []) {
    const item = list.data!.items.get(action.actionable_id);
    if (approvable(action, item) && item.category_id !== null) shownItems.set(item.id, item);
  }
  const approveAll = run(async () => {
    const items = [...shownItems.values()];
    const names = items.map((item) => item.name);
    if (!confirm(`Approve ${items.length === 1 ? 'this item' : `these ${items.length} items`}: ${names.join(', ')}?\n\n`
      + 'Each is finalised as the AI filled it in, and shows on the banner once its category is published. '
      + 'Suggestions the AI was unsure of are not approved: accept or reject them one by one.')) return undefined;
    const { approved, skipped } = (await must(api.POST('/api/v1/storage-items/approve', { body: { ids: items.map((item) => item.id) } }))).data;
    const drafts = [...new Set(items.filter((item) => approved.includes(item.id)).map((item) => item.category_id!))]
      .map((id) => categories.data?.find((c) => c.id === id)).filter((c) => c && !c.published).map((c) => c!.name);
    const count = `${approved.length} ${approved.length === 1 ? 'item' : 'items'} approved.`
      + (skipped.length > 0 ? ` ${skipped.length} changed meanwhile and ${skipped.length === 1 ? 'was' : 'were'} left as ${skipped.length === 1 ? 'it is' : 'they are'}.` : '');
    if (drafts.length === 0) return count;
    return <>{count} {drafts.length === 1 ? 'Its category' : 'Their categories'} {drafts.join(', ')} {drafts.length === 1 ? 'is' : 'are'} not
      published yet: publish {drafts.length === 1 ? 'it' : 'them'} under <Link href={`/accounts/${accountId}/categories`}>Categories</Link> to
      put {approved.length === 1 ? 'it' : 'them'} on the banner.</>;
  });

  return (
    <Page title="AI suggestions">
      <p>What the AI decided or suggested for your storage items, how sure it was and what it rests on. Every change can be undone.</p>
      <div class="filters" role="group" aria-label="Filters">
        <Select label="Kind" value={type} onChange={(e: Event) => { setType((e.currentTarget as HTMLSelectElement).value); setPage(1); }}
          options={[['', 'Every kind'], ...Object.entries(ACTION_LABELS)]} />
      </div>
      {shownItems.size > 0 && (
        <div class="toolbar">
          <button type="button" class="primary" onClick={approveAll}>Approve all shown ({shownItems.size})</button>
        </div>
      )}
      <ErrorNote error={list.error ?? error} />
      {done && <Notice>{done}</Notice>}
      {list.loading && !list.data && <Loading what="AI suggestions" />}
      {list.data && (list.data.data.length === 0 ? <p>The AI has not done anything here yet. Turn it on below, then add storage items.</p> : (
        <>
          <Table label="AI suggestions">
            <thead><tr>
              <th scope="col">Item</th><th scope="col"><span class="visually-hidden">Actions</span></th><th scope="col">Kind</th>
              <th scope="col">Suggestion</th><th scope="col">Confidence</th><th scope="col">Why</th><th scope="col">State</th><th scope="col">When</th>
            </tr></thead>
            <tbody>
              {list.data.data.map((action) => {
                const item = list.data!.items.get(action.actionable_id);
                const name = action.actionable_type === 'Category'
                  ? `Category ${categoryNames.get(action.actionable_id) ?? String((action.suggested_params as { name?: unknown }).name ?? '')}`
                  : item ? item.name : item === null ? 'A deleted item' : '…';
                return (
                  <tr key={action.id}>
                    <th scope="row"><code>{name}</code>{item && <span class={`tag status-${item.status}`}>{STATUS_LABELS[item.status as keyof typeof STATUS_LABELS]}</span>}</th>
                    <td class="row-actions">
                      {action.status === 'suggested' && action.action_type === 'auto_categorise' && item && item.category_id === null &&
                        <button type="button" onClick={accept(action)} aria-label={`Accept the suggestion for ${name}`}>Accept</button>}
                      {action.status === 'suggested' &&
                        <button type="button" class="danger" onClick={reject(action)} aria-label={`Reject the suggestion for ${name}`}>Reject</button>}
                      {approvable(action, item) &&
                        <button type="button" onClick={approve(action)} aria-label={`Approve ${name}`}>Approve</button>}
                      {action.status === 'applied' &&
                        <button type="button" class="danger" onClick={revert(action)} aria-label={`Revert this change to ${name}`}>Revert</button>}
                    </td>
                    <td>{ACTION_LABELS[action.action_type]}</td>
                    <td class="text">{describe(action.suggested_params as Record<string, unknown>, categoryNames)}</td>
                    <td>{Math.round(action.confidence * 100)}%</td>
                    <td class="source"><p class="reason">{action.reason}</p><p class="muted">Source: {action.source}</p></td>
                    <td>{STATE_LABELS[action.status]}</td>
                    <td>{formatDate(action.created_at)}</td>
                  </tr>
                );
              })}
            </tbody>
          </Table>
          <Pager pagination={list.data.pagination} limit={LIMIT} onPage={setPage} />
        </>
      ))}
      <section class="card">
        <h2>AI settings</h2>
        <ErrorNote error={account.error} />
        {account.data && <AiSettings key={account.data.updated_at} account={account.data} saved={settingsSaved}
          setSaved={(saved) => { setDone(undefined); setSettingsSaved(saved); }} onSaved={account.reload} />}
      </section>
    </Page>
  );
}
