import { useState } from 'preact/hooks';
import { must, type Category, type StorageItem } from '../api/client';
import { api } from '../session';
import { ErrorNote, Field, Form, Link, Loading, Page, Pager, Select, Table, TextArea, optionalText, text, useLoad, useDelete, EditDeleteCell } from '../ui';
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

/** An item's name is the cookie's own: only its description and duration are said in other languages. */
const TRANSLATED: TranslatedText[] = [['description', 'Description', true], ['duration', 'Duration']];

function ItemForm({ item, categories, languages, onDone, onCancel }: {
  item?: StorageItem; categories: Category[]; languages: string[]; onDone: () => void; onCancel?: () => void;
}) {
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
          options={[['', 'No category'], ...categories.map((c): [string, string] => [c.id, c.name])]} />
        <Select label="Status" name="status" defaultValue={item?.status === 'processing' ? 'draft' : (item?.status ?? 'draft')}
          options={[['draft', 'Draft'], ['in_review', 'In review'], ['finalised', 'Finalised']]} />
        <Field label="Duration" name="duration" defaultValue={item?.duration ?? ''} placeholder="1 year" />
        <Field label="Company" name="company_name" defaultValue={item?.company_name ?? ''} />
      </div>
      <TextArea label="Description" name="description" defaultValue={item?.description ?? ''} />
      <TranslationFields languages={languages} texts={TRANSLATED} current={item?.translations} />
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
  const categories = useCategories();
  const languages = useOtherLanguages().data ?? [];
  const list = useLoad(() => must(api.GET('/api/v1/storage-items', { params: { query: {
    page, limit: LIMIT, sort: 'name',
    ...(status ? { status: status as Status } : {}),
    ...(storageType ? { storage_type: storageType as StorageType } : {}),
    ...(creator ? { created_by: creator as Creator } : {}),
    ...(category === 'none' ? { uncategorised: true } : category ? { category_id: category } : {}),
  } } })), [page, status, category, storageType, creator]);
  const names = new Map((categories.data ?? []).map((c) => [c.id, c.name]));
  const filter = (set: (value: string) => void) => (event: Event) => { set((event.currentTarget as HTMLSelectElement).value); setPage(1); };
  const [remove, error, succeeded] = useDelete<StorageItem>((item) => `Delete ${item.name}?`,
    (item) => must(api.DELETE('/api/v1/storage-items/{id}', { params: { path: { id: item.id } } })), list.reload);
  return (
    <Page title="Storage items">
      <p>The cookies and browser storage your website uses. Only finalised items with a category reach the banner.</p>
      <div class="filters" role="group" aria-label="Filters">
        <Select label="Status" value={status} onChange={filter(setStatus)} options={[['', 'Any status'], ...Object.entries(STATUS_LABELS)]} />
        <Select label="Category" value={category} onChange={filter(setCategory)}
          options={[['', 'Any category'], ['none', 'Uncategorised'], ...(categories.data ?? []).map((c): [string, string] => [c.id, c.name])]} />
        <Select label="Type" value={storageType} onChange={filter(setStorageType)} options={[['', 'Any type'], ...Object.entries(TYPE_LABELS)]} />
        <Select label="Added by" value={creator} onChange={filter(setCreator)} options={[['', 'Anyone'], ...Object.entries(CREATOR_LABELS)]} />
      </div>
      <ErrorNote error={list.error ?? categories.error ?? error} />
      {list.loading && !list.data && <Loading what="storage items" />}
      {list.data && (list.data.data.length === 0 ? <p>No storage items match.</p> : (
        <>
          <Table label="Storage items">
            <thead><tr>
              <th scope="col">Name</th><th scope="col">Type</th><th scope="col">Domain</th><th scope="col">Category</th>
              <th scope="col">Status</th><th scope="col">Added by</th><th scope="col">Duration</th><th scope="col"><span class="visually-hidden">Actions</span></th>
            </tr></thead>
            <tbody>
              {list.data.data.map((item) => (
                <tr key={item.id}>
                  <th scope="row">
                    <code>{item.name}</code>
                    {item.is_wildcard_cookie && <span class="tag">wildcard</span>}
                    {item.wildcard_cookie_id && <span class="tag muted">matches a wildcard</span>}
                  </th>
                  <td>{TYPE_LABELS[item.storage_type]}</td>
                  <td>{item.domain || '—'}</td>
                  <td>{item.category_id ? names.get(item.category_id) ?? '…' : <span class="muted">None</span>}</td>
                  <td><span class={`tag status-${item.status}`}>{STATUS_LABELS[item.status as Status] ?? item.status}</span></td>
                  <td>{CREATOR_LABELS[item.created_by]}</td>
                  <td>{item.duration || '—'}</td>
                  <EditDeleteCell name={item.name} onEdit={() => setEditing(item)} onDelete={() => remove(item)} />
                </tr>
              ))}
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
                onDone={() => { setEditing(undefined); succeeded(); }} />
            </>
          ) : (
            <>
              <h2>New storage item</h2>
              <ItemForm key={languages.join()} categories={categories.data} languages={languages} onDone={succeeded} />
            </>
          )}
        </section>
      )}
    </Page>
  );
}
