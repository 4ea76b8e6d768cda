import { useState } from 'preact/hooks';
import { must, type Category, type Service } from '../api/client';
import { api } from '../session';
import { ErrorNote, Field, Form, Loading, Page, Pager, Select, Table, TextArea, text, useLoad, useDelete, EditDeleteCell } from '../ui';
import { useCategories } from './storage-items';
import { TranslationFields, translationsOf, useOtherLanguages, type TranslatedText } from '../translations';

const LIMIT = 20;
const TRANSLATED: TranslatedText[] = [['name', 'Name'], ['description', 'Description', true]];

function ServiceForm({ service, categories, languages, onDone, onCancel }: {
  service?: Service; categories: Category[]; languages: string[]; onDone: () => void; onCancel?: () => void;
}) {
  return (
    <Form submit={service ? 'Save service' : 'Add service'} label={service ? `Edit ${service.name}` : 'New service'}
      secondary={onCancel && <button type="button" onClick={onCancel}>Cancel</button>} focusFirst={service !== undefined}
      onSubmit={async (data, form) => {
        const fields = {
          name: text(data, 'name'), description: text(data, 'description'), company_name: text(data, 'company_name'),
          category_id: text(data, 'category_id') || null, privacy_policy_url: text(data, 'privacy_policy_url') || null,
          ...(text(data, 'slug') ? { slug: text(data, 'slug') } : {}),
          translations: translationsOf(data, languages, TRANSLATED),
        };
        if (service) {
          await must(api.PUT('/api/v1/services/{id}', { params: { path: { id: service.id } }, body: { service: fields } }));
        } else {
          await must(api.POST('/api/v1/services', { body: { service: fields } }));
          form.reset();
        }
        onDone();
      }}>
      <div class="grid">
        <Field label="Name" name="name" defaultValue={service?.name} required />
        <Field label="Slug" name="slug" defaultValue={service?.slug} hint="Left empty, it is made from the name." pattern="[a-z0-9]+([\-_][a-z0-9]+)*" />
        <Field label="Company" name="company_name" defaultValue={service?.company_name} />
        <Select label="Category" name="category_id" defaultValue={service?.category_id ?? ''}
          options={[['', 'No category'], ...categories.map((c): [string, string] => [c.id, c.name])]} />
        <Field label="Privacy policy" name="privacy_policy_url" type="url" defaultValue={service?.privacy_policy_url ?? ''} />
      </div>
      <TextArea label="Description" name="description" defaultValue={service?.description} />
      <TranslationFields languages={languages} texts={TRANSLATED} current={service?.translations} />
    </Form>
  );
}

export function ServicesPage() {
  const [page, setPage] = useState(1);
  const [editing, setEditing] = useState<Service>();
  const categories = useCategories();
  const languages = useOtherLanguages().data ?? [];
  const list = useLoad(() => must(api.GET('/api/v1/services', { params: { query: { page, limit: LIMIT } } })), [page]);
  const names = new Map((categories.data ?? []).map((c) => [c.id, c.name]));
  const [remove, error, succeeded] = useDelete<Service>((service) => `Delete the service ${service.name}?`,
    (service) => must(api.DELETE('/api/v1/services/{id}', { params: { path: { id: service.id } } })), list.reload);
  return (
    <Page title="Services">
      <p>The third-party services your website uses, such as an analytics tool or a video player, each under a category.</p>
      <ErrorNote error={list.error ?? categories.error ?? error} />
      {list.loading && !list.data && <Loading what="services" />}
      {list.data && (list.data.data.length === 0 ? <p>No services yet.</p> : (
        <>
          <Table label="Services">
            <thead><tr><th scope="col">Name</th><th scope="col">Company</th><th scope="col">Category</th><th scope="col">Description</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
            <tbody>
              {list.data.data.map((s) => (
                <tr key={s.id}>
                  <th scope="row">{s.name}</th><td>{s.company_name}</td><td>{s.category_id ? (names.get(s.category_id) ?? '…') : 'None'}</td><td class="text">{s.description}</td>
                  <EditDeleteCell name={s.name} onEdit={() => setEditing(s)} onDelete={() => remove(s)} />
                </tr>
              ))}
            </tbody>
          </Table>
          <Pager pagination={list.data.pagination} limit={LIMIT} onPage={setPage} />
        </>
      ))}
      {categories.data && (
        <section class="card">
          {editing ? (
            <>
              <h2>Edit {editing.name}</h2>
              <ServiceForm key={editing.id} service={editing} categories={categories.data} languages={languages} onCancel={() => setEditing(undefined)}
                onDone={() => { setEditing(undefined); succeeded(); }} />
            </>
          ) : (
            <>
              <h2>New service</h2>
              <ServiceForm key={languages.join()} categories={categories.data} languages={languages} onDone={succeeded} />
            </>
          )}
        </section>
      )}
    </Page>
  );
}
