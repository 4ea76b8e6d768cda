import { useState } from 'preact/hooks';
import { must, type Category } from '../api/client';
import { api } from '../session';
import { Checkbox, ErrorNote, Field, Form, Loading, Page, Pager, Table, TextArea, text, useLoad, useDelete, EditDeleteCell } from '../ui';
import { TranslationFields, translationsOf, useOtherLanguages, type TranslatedText } from '../translations';

const LIMIT = 20;
const TRANSLATED: TranslatedText[] = [['name', 'Name'], ['description', 'Description', true]];

function CategoryForm({ category, languages, onDone, onCancel }: { category?: Category; languages: string[]; onDone: () => void; onCancel?: () => void }) {
  return (
    <Form submit={category ? 'Save category' : 'Add category'} label={category ? `Edit ${category.name}` : 'New category'}
      secondary={onCancel && <button type="button" onClick={onCancel}>Cancel</button>} focusFirst={category !== undefined}
      onSubmit={async (data, form) => {
        const fields = {
          name: text(data, 'name'), description: text(data, 'description'), required: data.get('required') === 'on',
          ...(text(data, 'slug') ? { slug: text(data, 'slug') } : {}),
          translations: translationsOf(data, languages, TRANSLATED),
        };
        if (category) {
          await must(api.PUT('/api/v1/categories/{id}', { params: { path: { id: category.id } }, body: { category: fields } }));
        } else {
          await must(api.POST('/api/v1/categories', { body: { category: fields } }));
          form.reset();
        }
        onDone();
      }}>
      <Field label="Name" name="name" defaultValue={category?.name} required />
      <Field label="Slug" name="slug" defaultValue={category?.slug} hint="Left empty, it is made from the name." pattern="[a-z0-9]+([\-_][a-z0-9]+)*" />
      <TextArea label="Description" name="description" defaultValue={category?.description} />
      <Checkbox label="Required (visitors cannot reject it)" name="required" defaultChecked={category?.required} />
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
  return (
    <Page title="Categories">
      <p>The groups of cookies your visitors accept or reject, such as analytics or marketing.</p>
      <ErrorNote error={list.error ?? error} />
      {list.loading && !list.data && <Loading what="categories" />}
      {list.data && (list.data.data.length === 0 ? <p>No categories yet.</p> : (
        <>
          <Table label="Categories">
            <thead><tr><th scope="col">Name</th><th scope="col">Slug</th><th scope="col">Required</th><th scope="col">Description</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
            <tbody>
              {list.data.data.map((c) => (
                <tr key={c.id}>
                  <th scope="row">{c.name}</th><td><code>{c.slug}</code></td><td>{c.required ? 'Yes' : 'No'}</td><td class="text">{c.description}</td>
                  <EditDeleteCell name={c.name} onEdit={() => setEditing(c)} onDelete={() => remove(c)} />
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
