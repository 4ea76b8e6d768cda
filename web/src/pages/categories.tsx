import { useState } from 'preact/hooks';
import { must, type Category } from '../api/client';
import { api } from '../session';
import { Checkbox, ErrorNote, Field, Form, Loading, Notice, Page, Pager, Table, TextArea, text, useLoad, useDelete, EditDeleteCell } from '../ui';
import { TranslationFields, translationsOf, useOtherLanguages, type TranslatedText } from '../translations';

const LIMIT = 20;
const TRANSLATED: TranslatedText[] = [['name', 'Name'], ['description', 'Description', true]];

/** Puts a category on the banner, or takes it off; either way visitors are asked again. */
export const setPublished = (category: Pick<Category, 'id'>, published: boolean) =>
  must(api.PUT('/api/v1/categories/{id}', { params: { path: { id: category.id } }, body: { category: { published } } }));

export const publishedNotice = (category: Pick<Category, 'name'>, published: boolean) => published
  ? `${category.name} is published: it is on the banner, with its finalised items.`
  : `${category.name} is unpublished: it and its items are off the banner.`;

/** A category's place on the banner, in a word. */
export function PublishedTag({ category }: { category: Pick<Category, 'published'> }) {
  return category.published ? <span class="tag status-finalised">Published</span> : <span class="tag unpublished">Draft</span>;
}

function CategoryForm({ category, languages, onDone, onCancel }: { category?: Category; languages: string[]; onDone: () => void; onCancel?: () => void }) {
  // A new category's switch is sent only once touched: left alone, the server sets it, on for the slug
  // marketing, which the switch shows as the name or slug is typed.
  const [sale, setSale] = useState<boolean | undefined>(category?.sale_or_sharing);
  const [named, setNamed] = useState({ name: '', slug: '' });
  const marketing = (named.slug || named.name).trim().toLowerCase() === 'marketing';
  const typed = (key: 'name' | 'slug') => (event: Event) => setNamed({ ...named, [key]: (event.currentTarget as HTMLInputElement).value });
  return (
    <Form submit={category ? 'Save category' : 'Add category'} label={category ? `Edit ${category.name}` : 'New category'}
      secondary={onCancel && <button type="button" onClick={onCancel}>Cancel</button>} focusFirst={category !== undefined}
      onSubmit={async (data, form) => {
        const fields = {
          name: text(data, 'name'), description: text(data, 'description'), required: data.get('required') === 'on',
          ...(text(data, 'slug') ? { slug: text(data, 'slug') } : {}),
          ...(sale !== undefined && { sale_or_sharing: sale }),
          translations: translationsOf(data, languages, TRANSLATED),
        };
        if (category) {
          await must(api.PUT('/api/v1/categories/{id}', { params: { path: { id: category.id } }, body: { category: fields } }));
        } else {
          await must(api.POST('/api/v1/categories', { body: { category: fields } }));
          form.reset();
          setSale(undefined);
          setNamed({ name: '', slug: '' });
        }
        onDone();
      }}>
      <Field label="Name" name="name" defaultValue={category?.name} required onInput={typed('name')} />
      <Field label="Slug" name="slug" defaultValue={category?.slug} hint="Left empty, it is made from the name." pattern="[a-z0-9]+([\-_][a-z0-9]+)*" onInput={typed('slug')} />
      <TextArea label="Description" name="description" defaultValue={category?.description} />
      <Checkbox label="Required (visitors cannot reject it)" name="required" defaultChecked={category?.required} />
      <Checkbox label="Sale or sharing: opting out of sale/sharing switches this off" role="switch"
        checked={sale ?? marketing} onChange={(event) => setSale((event.currentTarget as HTMLInputElement).checked)} aria-describedby="sale-or-sharing-hint" />
      <p class="hint" id="sale-or-sharing-hint">Where the banner runs opt-out (the US states with a privacy law), a visitor's
        "Do Not Sell or Share My Personal Information", or a Global Privacy Control signal, switches off the categories marked so:
        those that sell or share personal data or serve targeted advertising.{!category && ' Unless you set it, it is on for a category whose slug is marketing.'}</p>
      <TranslationFields languages={languages} texts={TRANSLATED} current={category?.translations} />
    </Form>
  );
}

export function CategoriesPage() {
  const [page, setPage] = useState(1);
  const [editing, setEditing] = useState<Category>();
  const languages = useOtherLanguages().data ?? [];
  const list = useLoad(() => must(api.GET('/api/v1/categories', { params: { query: { page, limit: LIMIT, sort: 'name' } } })), [page]);
  const [remove, error, succeeded] = useDelete<Category>((category) => `Delete the category ${category.name}?`,
    (category) => must(api.DELETE('/api/v1/categories/{id}', { params: { path: { id: category.id } } })), list.reload);
  const [toggled, setToggled] = useState<{ error?: unknown; done?: string }>({});
  const toggle = async (category: Category) => {
    const published = !category.published;
    if (!published && !confirm(`Unpublish ${category.name}? It and its items leave the banner, and visitors are asked again.`)) return;
    setToggled({});
    try {
      await setPublished(category, published);
      setToggled({ done: publishedNotice(category, published) });
      list.reload();
    } catch (caught) {
      setToggled({ error: caught });
    }
  };
  return (
    <Page title="Categories">
      <p>The groups of cookies your visitors accept or reject, such as analytics or marketing.
        Only published categories are on the banner: one the AI created is a draft until you publish it.</p>
      <ErrorNote error={list.error ?? error ?? toggled.error} />
      {toggled.done && <Notice>{toggled.done}</Notice>}
      {list.loading && !list.data && <Loading what="categories" />}
      {list.data && (list.data.data.length === 0 ? <p>No categories yet.</p> : (
        <>
          <Table label="Categories">
            <thead><tr>
              <th scope="col">Name</th><th scope="col">Banner</th><th scope="col">Slug</th><th scope="col">Required</th><th scope="col">Sale or sharing</th><th scope="col">Description</th>
              <th scope="col"><span class="visually-hidden">Actions</span></th>
            </tr></thead>
            <tbody>
              {list.data.data.map((c) => (
                <tr key={c.id}>
                  <th scope="row">{c.name}</th><td><PublishedTag category={c} /></td><td><code>{c.slug}</code></td>
                  <td>{c.required ? 'Yes' : 'No'}</td><td>{c.sale_or_sharing ? 'Yes' : 'No'}</td><td class="text">{c.description}</td>
                  <EditDeleteCell name={c.name} onEdit={() => setEditing(c)} onDelete={() => remove(c)}>
                    <button type="button" class={c.published ? undefined : 'primary'} onClick={() => toggle(c)}
                      aria-label={`${c.published ? 'Unpublish' : 'Publish'} ${c.name}`}>{c.published ? 'Unpublish' : 'Publish'}</button>
                  </EditDeleteCell>
                </tr>
              ))}
            </tbody>
          </Table>
          <Pager pagination={list.data.pagination} limit={LIMIT} onPage={setPage} />
        </>
      ))}
      <section class="card">
        {editing ? (
          <>
            <h2>Edit {editing.name}</h2>
            <CategoryForm key={editing.id} category={editing} languages={languages} onCancel={() => setEditing(undefined)} onDone={() => { setEditing(undefined); succeeded(); }} />
          </>
        ) : (
          <>
            <h2>New category</h2>
            <CategoryForm key={languages.join()} languages={languages} onDone={succeeded} />
          </>
        )}
      </section>
    </Page>
  );
}
