import type { AnchorHTMLAttributes, ComponentChildren, PartialInputHTMLAttributes, PartialSelectHTMLAttributes, TextareaHTMLAttributes } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, type Pagination } from './api/client';
import { followLink } from './router';

export function Link(props: AnchorHTMLAttributes & { href: string }) {
  return <a {...props} onClick={(event) => followLink(event as unknown as MouseEvent, props.href)} />;
}

/** The words of an error for a person: the API's own sentences, or what went wrong otherwise. */
export function messagesOf(error: unknown): string[] {
  if (error instanceof ApiError) return error.messages;
  if (error instanceof Error) return [error.message];
  return ['Something went wrong.'];
}

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  const messages = messagesOf(error);
  return (
    <div class="note error" role="alert">
      {messages.length === 1 ? <p>{messages[0]}</p> : <ul>{messages.map((m) => <li key={m}>{m}</li>)}</ul>}
    </div>
  );
}

export function Notice({ children }: { children: ComponentChildren }) {
  return <div class="note success" role="status">{children}</div>;
}

/** Data loaded for a page, with its error and a way to load it again after a change. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): { data: T | undefined; error: unknown; loading: boolean; reload: () => void } {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({ data: undefined, error: undefined, loading: true });
  const [version, setVersion] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, error: undefined, loading: false }),
      (error: unknown) => live && setState({ data: undefined, error, loading: false }),
    );
    return () => { live = false; };
  }, [...deps, version]);
  const reload = useCallback(() => setVersion((n) => n + 1), []);
  return { ...state, reload };
}

/**
 * A row's Delete button: asks the question, deletes, then `done` (a reload); a refusal of the API is
 * kept, to be shown in the page's ErrorNote. The third element is for the page's other actions
 * (adding, editing): on their success it does `done` and takes the earlier refusal away, which would
 * otherwise stay on screen beside a change that worked.
 */
export function useDelete<T>(question: (row: T) => string, remove: (row: T) => Promise<unknown>, done: () => void) {
  const [error, setError] = useState<unknown>();
  const run = async (row: T) => {
    if (!confirm(question(row))) return;
    setError(undefined);
    try {
      await remove(row);
      done();
    } catch (caught) {
      setError(caught);
    }
  };
  const succeeded = () => {
    setError(undefined);
    done();
  };
  return [run, error, succeeded] as const;
}

/** A list row's Edit and Delete buttons, each named after the row for screen readers, after the row's own (`children`). */
export function EditDeleteCell({ name, onEdit, onDelete, children }: { name: string; onEdit: () => void; onDelete: () => void; children?: ComponentChildren }) {
  return (
    <td class="row-actions">
      {children}
      <button type="button" onClick={onEdit} aria-label={`Edit ${name}`}>Edit</button>
      <button type="button" class="danger" onClick={onDelete} aria-label={`Delete ${name}`}>Delete</button>
    </td>
  );
}

/**
 * A form that refuses a second submit while one is on its way and says in words what went wrong.
 * Its button is marked `aria-disabled`, not `disabled`: a disabled button loses the keyboard's focus,
 * which would drop a keyboard user to the top of the page.
 */
export function Form(props: {
  onSubmit: (data: FormData, form: HTMLFormElement) => Promise<void> | void;
  submit: string;
  children: ComponentChildren;
  class?: string;
  label?: string;
  secondary?: ComponentChildren;
  /** Takes the focus to the first field when shown (and so scrolls it into view): an Edit form below a long list. */
  focusFirst?: boolean;
}) {
  const [busy, setBusy] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (props.focusFirst) formRef.current?.querySelector<HTMLElement>('input, select, textarea')?.focus();
  }, []);
  const sending = useRef(false);
  const [error, setError] = useState<unknown>(undefined);
  const onSubmit = async (event: Event) => {
    event.preventDefault();
    if (sending.current) return;
    const form = event.currentTarget as HTMLFormElement;
    sending.current = true;
    setBusy(true);
    setError(undefined);
    try {
      await props.onSubmit(new FormData(form), form);
    } catch (caught) {
      setError(caught);
    } finally {
      sending.current = false;
      setBusy(false);
    }
  };
  return (
    <form ref={formRef} class={props.class ?? 'form'} onSubmit={onSubmit} aria-label={props.label} aria-busy={busy}>
      {props.children}
      <ErrorNote error={error} />
      <div class="actions">
        <button type="submit" class="primary" aria-disabled={busy}>{busy ? 'Working…' : props.submit}</button>
        {props.secondary}
      </div>
    </form>
  );
}

/** Preact's typings tie an input's ARIA role to its type; these wrappers pass props through unchanged. */
type Loose = Record<string, unknown>;

let fieldCount = 0;
const useId = (prefix: string) => useRef(`${prefix}-${++fieldCount}`).current;

type InputProps = Omit<PartialInputHTMLAttributes<HTMLInputElement>, 'label'> & { label: string; hint?: string };

export function Field({ label, hint, ...input }: InputProps) {
  const id = useId('field');
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} aria-describedby={hint ? `${id}-hint` : undefined} {...(input as Loose)} />
      {hint && <p class="hint" id={`${id}-hint`}>{hint}</p>}
    </div>
  );
}

export function TextArea({ label, ...input }: Omit<TextareaHTMLAttributes, 'label'> & { label: string; name: string; defaultValue?: string }) {
  const id = useId('area');
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <textarea id={id} rows={3} {...input} />
    </div>
  );
}

export function Select(props: Omit<PartialSelectHTMLAttributes<HTMLSelectElement>, 'label'> & {
  label: string; name?: string; options: [string, string][]; value?: string; defaultValue?: string;
}) {
  const { label, options, defaultValue, ...select } = props;
  const id = useId('select');
  // A select has no defaultValue of its own: its chosen option is the default (set once; the person's choice stays).
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} {...(select as Loose)}>
        {options.map(([value, text]) => <option key={value} value={value} selected={defaultValue === undefined ? undefined : value === defaultValue}>{text}</option>)}
      </select>
    </div>
  );
}

export function Checkbox({ label, ...input }: Omit<PartialInputHTMLAttributes<HTMLInputElement>, 'label'> & { label: string }) {
  const id = useId('check');
  return (
    <div class="field check">
      <input id={id} type="checkbox" {...(input as Loose)} />
      <label for={id}>{label}</label>
    </div>
  );
}

/** Copies a text and says so where a screen reader hears it. */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [done, setDone] = useState<string>('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setDone('Copied to the clipboard.');
    } catch {
      setDone('Copying is not allowed here: select the text and copy it yourself.');
    }
  };
  return (
    <span class="copy">
      <button type="button" onClick={copy}>{label}</button>
      <span role="status" class="copy-status">{done}</span>
    </span>
  );
}

/** Previous and next pages of a list the server pages: nothing more is ever loaded into the page. */
export function Pager({ pagination, limit, onPage }: { pagination: Pagination; limit: number; onPage: (page: number) => void }) {
  const pages = Math.max(1, Math.ceil(pagination.count / limit));
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={pagination.prev === null} onClick={() => onPage(pagination.prev!)}>Previous</button>
      <span>Page {pagination.page} of {pages} · {pagination.count} in all</span>
      <button type="button" disabled={pagination.next === null} onClick={() => onPage(pagination.next!)}>Next</button>
    </nav>
  );
}

/** A table that scrolls sideways on a narrow screen, and can be scrolled with the keyboard. */
export function Table({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label={label}>
      <table>
        <caption class="visually-hidden">{label}</caption>
        {children}
      </table>
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return <p class="loading" role="status">Loading {what}…</p>;
}

export const formatDate = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' }) : '—');

export const text = (data: FormData, name: string) => String(data.get(name) ?? '').trim();
export const optionalText = (data: FormData, name: string) => text(data, name) || undefined;
export const optionalNumber = (data: FormData, name: string) => {
  const value = text(data, name);
  return value === '' ? null : Number(value);
};

export function Page({ title, children, actions }: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  useEffect(() => { document.title = `${title} · Consentry`; }, [title]);
  return (
    <>
      <div class="page-head">
        <h1 tabIndex={-1} id="page-title">{title}</h1>
        {actions}
      </div>
      {children}
    </>
  );
}

/**
 * A part of the app loaded only when it is first shown (the charts, the banner editor), so that
 * the first page load carries none of it. A failed load says so in words.
 */
export function lazy<P extends object>(load: () => Promise<(props: P) => preact.JSX.Element | null>, what: string) {
  let loaded: ((props: P) => preact.JSX.Element | null) | undefined;
  return function Lazy(props: P) {
    const [, setReady] = useState(false);
    const [error, setError] = useState<unknown>();
    useEffect(() => {
      if (loaded) return;
      load().then((component) => { loaded = component; setReady(true); }, () => setError(new Error(`The ${what} could not be loaded. Reload the page to try again.`)));
    }, []);
    if (error) return <ErrorNote error={error} />;
    if (!loaded) return <Loading what={what} />;
    const Component = loaded;
    return <Component {...props} />;
  };
}
