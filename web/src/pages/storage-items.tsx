import { useEffect, useState } from 'preact/hooks';
import { must, type Category, type StorageItem } from '../api/client';
import { api } from '../session';
import { ErrorNote, Field, Form, Link, Loading, Notice, Page, Pager, Select, Table, TextArea, optionalText, text, useLoad, useDelete, EditDeleteCell } from '../ui';
import { publishedNotice, setPublished } from './categories';
import { TranslationFields, translationsOf, useOtherLanguages, type TranslatedText } from '../translations';

const LIMIT = 25;
type Status = NonNullable<StorageItem['status']>;
type StorageType = StorageItem['storage_type'];
export const STATUS_LABELS: Record<Status, string> = { draft: 'Draft', processing: 'AI at work', in_review: 'In review', finalised: 'Finalised' };
const TYPE_LABELS: Record<StorageType, string> = { cookie: 'Cookie', local_storage: 'Local storage', session_storage: 'Session storage' };
type Creator = StorageItem['created_by'];
const CREATOR_LABELS: Record<Creator, string> = { user: 'A person', api: 'An API token', scan: 'A scan' };

/** Every category of the account, for names and choices (an account has a handful). */
export function useCategories() {
  return useLoad(() => must(api.GET('/api/v1/categories', { params: { query: { limit: 100, sort: 'name' } } })).then((r) => r.data), []);
}

/** While the AI works on items of the list, the list is loaded again every this many ms. */
const PROCESSING_POLL_MS = 1000;

/**
 * Says that a category is not on the banner, and so neither are its items (`count` of them, when
 * known), with a button that publishes it.
 */
function UnpublishedWarning({ category, count, onPublish }: { category: Category; count?: number; onPublish: (category: Category) => void }) {
  const items = count === undefined ? 'this item' : count === 1 ? 'its item' : `its ${count} items`;
  return (
    <div class="note warning">
      <p>
        The category {category.name} is not published: {items} will not reach the banner until it is.
        <button type="button" onClick={() => onPublish(category)}>Publish {category.name}</button>
      </p>
    </div>
  );
}

/** An item's name is the cookie's own: only its description and duration are said in other languages. */
const TRANSLATED: TranslatedText[] = [['description', 'Description', true], ['duration', 'Duration']];

function ItemForm({ item, categories, languages, onDone, onCancel, onPublish }: {
  item?: StorageItem; categories: Category[]; languages: string[]; onDone: () => void; onCancel?: () => void; onPublish: (category: Category) => void;
}) {
  const [categoryId, setCategoryId] = useState(item?.category_id ?? '');
  const chosen = categories.find((c) => c.id === categoryId);
  return (
    <Form submit={item ? 'Save item' : 'Add item'} label={item ? `Edit ${item.name}` : 'New storage item'}
      secondary={onCancel && <button type="button" onClick={onCancel}>Cancel</button>} focusFirst={item !== undefined}
      onSubmit={async (data, form) => {
        const fields = {
          name: text(data, 'name'), domain: text(data, 'domain'), description: text(data, 'description'),
          duration: text(data, 'duration'), company_name: text(data, 'company_name'),
          storage_type: text(data, 'storage_type') as StorageType,
          category_id: optionalText(data, 'category_id') ?? null,
          status: text(data, 'status') as Exclude<Status, 'processing'>,
          translations: translationsOf(data, languages, TRANSLATED),
        };
        if (item) await must(api.PUT('/api/v1/storage-items/{id}', { params: { path: { id: item.id } }, body: { storage_item: fields } }));
        else {
          await must(api.POST('/api/v1/storage-items', { body: { storage_item: fields } }));
          form.reset();
        }
        onDone();
      }}>
      <div class="grid">
        <Field label="Name" name="name" defaultValue={item?.name} required hint="A * makes a wildcard, e.g. _ga_*" />
        <Field label="Domain" name="domain" defaultValue={item?.domain ?? ''} />
        <Select label="Type" name="storage_type" defaultValue={item?.storage_type ?? 'cookie'} options={Object.entries(TYPE_LABELS)} />
        <Select label="Category" name="category_id" defaultValue={item?.category_id ?? ''}
          onChange={(event: Event) => setCategoryId((event.currentTarget as HTMLSelectElement).value)}
          options={[['', 'No category'], ...categories.map((c): [string, string] => [c.id, c.name])]} />
        <Select label="Status" name="status" defaultValue={item?.status === 'processing' ? 'draft' : (item?.status ?? 'draft')}
          options={[['draft', 'Draft'], ['in_review', 'In review'], ['finalised', 'Finalised']]} />
        <Field label="Duration" name="duration" defaultValue={item?.duration ?? ''} placeholder="1 year" />
        <Field label="Company" name="company_name" defaultValue={item?.company_name ?? ''} />
      </div>
      <TextArea label="Description" name="description" defaultValue={item?.description ?? ''} />
      <TranslationFields languages={languages} texts={TRANSLATED} current={item?.translations} />
      {chosen && !chosen.published && <UnpublishedWarning category={chosen} onPublish={onPublish} />}
    </Form>
  );
}

export function StorageItemsPage({ accountId }: { accountId: string }) {
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState('');
  const [category, setCategory] = useState('');
  const [storageType, setStorageType] = useState('');
  const [creator, setCreator] = useState('');
  const [editing, setEditing] = useState<StorageItem>();
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [outcome, setOutcome] = useState<{ error?: unknown; done?: preact.ComponentChildren }>({});
  const categories = useCategories();
  const languages = useOtherLanguages().data ?? [];
  const list = useLoad(() => must(api.GET('/api/v1/storage-items', { params: { query: {
    page, limit: LIMIT, sort: 'name',
    ...(status ? { status: status as Status } : {}),
    ...(storageType ? { storage_type: storageType as StorageType } : {}),
    ...(creator ? { created_by: creator as Creator } : {}),
    ...(category === 'none' ? { uncategorised: true } : category ? { category_id: category } : {}),
  } } })), [page, status, category, storageType, creator]);
  useEffect(() => setSelected(new Set()), [page, status, category, storageType, creator]);
  const byId = new Map((categories.data ?? []).map((c) => [c.id, c]));
  // While the AI works on items shown, the list follows it; a category it created is loaded when shown.
  useEffect(() => {
    if (categories.data && list.data?.data.some((item) => item.category_id && !byId.has(item.category_id))) categories.reload();
    if (!list.data?.data.some((item) => item.status === 'processing')) return;
    const timer = setTimeout(list.reload, PROCESSING_POLL_MS);
    return () => clearTimeout(timer);
  }, [list.data]);
  // The unpublished categories that hold items: none of those items reaches the banner.
  const unpublished = useLoad(() => Promise.all((categories.data ?? []).filter((c) => !c.published).map(async (c) => ({
    category: c,
    count: (await must(api.GET('/api/v1/storage-items', { params: { query: { category_id: c.id, limit: 1 } } }))).pagination.count,
  }))), [categories.data, list.data]);
  const filter = (set: (value: string) => void) => (event: Event) => { set((event.currentTarget as HTMLSelectElement).value); setPage(1); };
  const [remove, error, succeeded] = useDelete<StorageItem>((item) => `Delete ${item.name}?`,
    (item) => must(api.DELETE('/api/v1/storage-items/{id}', { params: { path: { id: item.id } } })), list.reload);

  const act = async (work: () => Promise<preact.ComponentChildren>) => {
    setOutcome({});
    try {
      setOutcome({ done: await work() });
    } catch (caught) {
      setOutcome({ error: caught });
    }
  };
  const classify = (ids?: string[]) => act(async () => {
    const { processing } = (await must(api.POST('/api/v1/storage-items/classify', { body: ids ? { ids } : null }))).data;
    setSelected(new Set());
    list.reload();
    if (processing === 0) return ids ? 'None of the selected items is an uncategorised draft: there is nothing to classify.' : 'There is no uncategorised draft to classify.';
    return <>The AI is classifying {processing} {processing === 1 ? 'item' : 'items'}: each shows its category here when it is done.
      Approve them under <Link href={`/accounts/${accountId}/ai`}>AI suggestions</Link>.</>;
  });
  const publish = (c: Category) => act(async () => {
    await setPublished(c, true);
    categories.reload();
    return publishedNotice(c, true);
  });
  const toggle = (id: string, on: boolean) => setSelected((now) => {
    const next = new Set(now);
    if (on) next.add(id);
    else next.delete(id);
    return next;
  });
  const shown = list.data?.data ?? [];
  const allSelected = shown.length > 0 && shown.every((item) => selected.has(item.id));

  return (
    <Page title="Storage items">
      <p>The cookies and browser storage your website uses. Only finalised items in a published category reach the banner.</p>
      <div class="filters" role="group" aria-label="Filters">
        <Select label="Status" value={status} onChange={filter(setStatus)} options={[['', 'Any status'], ...Object.entries(STATUS_LABELS)]} />
        <Select label="Category" value={category} onChange={filter(setCategory)}
          options={[['', 'Any category'], ['none', 'Uncategorised'], ...(categories.data ?? []).map((c): [string, string] => [c.id, c.name])]} />
        <Select label="Type" value={storageType} onChange={filter(setStorageType)} options={[['', 'Any type'], ...Object.entries(TYPE_LABELS)]} />
        <Select label="Added by" value={creator} onChange={filter(setCreator)} options={[['', 'Anyone'], ...Object.entries(CREATOR_LABELS)]} />
      </div>
      <div class="toolbar" role="group" aria-label="Classify with the AI">
        <button type="button" aria-disabled={selected.size === 0} onClick={() => selected.size > 0 && classify([...selected])}>
          Classify selected ({selected.size})
        </button>
        <button type="button" onClick={() => classify()}>Classify all uncategorised</button>
      </div>
      {(unpublished.data ?? []).filter(({ count }) => count > 0).map(({ category: c, count }) =>
        <UnpublishedWarning key={c.id} category={c} count={count} onPublish={publish} />)}
      <ErrorNote error={list.error ?? categories.error ?? unpublished.error ?? error ?? outcome.error} />
      {outcome.done && <Notice>{outcome.done}</Notice>}
      {list.loading && !list.data && <Loading what="storage items" />}
      {list.data && (list.data.data.length === 0 ? <p>No storage items match.</p> : (
        <>
          <Table label="Storage items">
            <thead><tr>
              <th scope="col"><input type="checkbox" checked={allSelected} aria-label="Select every item of this page"
                onChange={(event) => { const on = event.currentTarget.checked; setSelected(on ? new Set(shown.map((item) => item.id)) : new Set()); }} /></th>
              <th scope="col">Name</th><th scope="col">Type</th><th scope="col">Domain</th><th scope="col">Category</th>
              <th scope="col">Status</th><th scope="col">Added by</th><th scope="col">Duration</th><th scope="col"><span class="visually-hidden">Actions</span></th>
            </tr></thead>
            <tbody>
              {list.data.data.map((item) => {
                const itemCategory = item.category_id ? byId.get(item.category_id) : undefined;
                return (
                  <tr key={item.id}>
                    <td><input type="checkbox" checked={selected.has(item.id)} aria-label={`Select ${item.name}`}
                      onChange={(event) => toggle(item.id, event.currentTarget.checked)} /></td>
                    <th scope="row" class="breakable">
                      <code>{item.name}</code>
                      {item.is_wildcard_cookie && <span class="tag">wildcard</span>}
                      {item.wildcard_cookie_id && <span class="tag muted">matches a wildcard</span>}
                    </th>
                    <td>{TYPE_LABELS[item.storage_type]}</td>
                    <td class="breakable">{item.domain || '—'}</td>
                    <td>
                      {item.category_id ? itemCategory?.name ?? '…' : <span class="muted">None</span>}
                      {itemCategory && !itemCategory.published && <span class="tag unpublished">not published</span>}
                    </td>
                    <td><span class={`tag status-${item.status}`}>{STATUS_LABELS[item.status as Status] ?? item.status}</span></td>
                    <td>{CREATOR_LABELS[item.created_by]}</td>
                    <td>{item.duration || '—'}</td>
                    <EditDeleteCell name={item.name} onEdit={() => setEditing(item)} onDelete={() => remove(item)} />
                  </tr>
                );
              })}
            </tbody>
          </Table>
          <Pager pagination={list.data.pagination} limit={LIMIT} onPage={setPage} />
        </>
      ))}
      <p class="muted">The AI's suggestions for these items are under <Link href={`/accounts/${accountId}/ai`}>AI suggestions</Link>.</p>
      {categories.data && (
        <section class="card">
          {editing ? (
            <>
              <h2>Edit {editing.name}</h2>
              <ItemForm key={editing.id} item={editing} categories={categories.data} languages={languages} onCancel={() => setEditing(undefined)}
                onDone={() => { setEditing(undefined); succeeded(); }} onPublish={publish} />
            </>
          ) : (
            <>
              <h2>New storage item</h2>
              <ItemForm key={languages.join()} categories={categories.data} languages={languages} onDone={succeeded} onPublish={publish} />
            </>
          )}
        </section>
      )}
    </Page>
  );
}
