import { useEffect, useState } from 'preact/hooks';
import { ApiError, createApi, must, type Me } from './api/client';

const TOKEN_KEY = 'consentry.token';
const ACCOUNT_KEY = 'consentry.account';

export interface Session {
  token: string | undefined;
  me: Me | undefined;
  /** The account the pages act on (a user may belong to several). */
  accountId: string | undefined;
  /** False until the stored token was checked with `GET /me`. */
  ready: boolean;
  /** Why the user was signed out, shown on the sign-in page. */
  notice: string | undefined;
  /** Counts the changes to the user's accounts (a rename) made here: lists of them reload on it. */
  accountsChanged: number;
}

const stored = (key: string) => {
  try {
    return localStorage.getItem(key) ?? undefined;
  } catch {
    return undefined;
  }
};
const store = (key: string, value: string | undefined) => {
  try {
    if (value === undefined) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    // Private modes without storage: the session lasts as long as the page.
  }
};

let state: Session = { token: stored(TOKEN_KEY), me: undefined, accountId: stored(ACCOUNT_KEY), ready: false, notice: undefined, accountsChanged: 0 };
const listeners = new Set<() => void>();

function update(changes: Partial<Session>) {
  state = { ...state, ...changes };
  listeners.forEach((listener) => listener());
}

export const api = createApi({
  token: () => state.token,
  accountId: () => state.accountId,
  expired(token) {
    if (token !== state.token) return;
    store(TOKEN_KEY, undefined);
    update({ token: undefined, me: undefined, notice: 'Your session has ended. Please sign in again.' });
  },
});

export function useSession(): Session {
  const [, setVersion] = useState(0);
  const seen = state;
  useEffect(() => {
    const listener = () => setVersion((n) => n + 1);
    listeners.add(listener);
    // A change between this render and the subscription would otherwise go unseen.
    if (state !== seen) listener();
    return () => void listeners.delete(listener);
  }, []);
  return state;
}

export function currentSession(): Session {
  return state;
}

/** Checks a token with `GET /me` and keeps it: the caller's identity decides which pages exist. */
export async function signInWith(token: string): Promise<Me> {
  const { data } = await must(api.GET('/api/v1/me', { headers: { authorization: `Bearer ${token}` } }));
  store(TOKEN_KEY, token);
  const accountId = data.account?.id ?? (data.token_type === 'user' ? state.accountId : undefined);
  update({ token, me: data, accountId, notice: undefined, ready: true });
  return data;
}

/** The account the next requests act on; `quiet` while rendering, which already shows it. */
export function chooseAccount(accountId: string | undefined, options: { quiet?: boolean } = {}): void {
  if (accountId === state.accountId) return;
  store(ACCOUNT_KEY, accountId);
  if (options.quiet) state = { ...state, accountId };
  else update({ accountId });
}

/** Says that an account changed (its name): the account switcher reloads its list. */
export function accountChanged(): void {
  update({ accountsChanged: state.accountsChanged + 1 });
}

/** Revokes the token on the server (best effort) and forgets it here. */
export async function signOut(): Promise<void> {
  const token = state.token;
  store(TOKEN_KEY, undefined);
  update({ token: undefined, me: undefined, notice: undefined });
  if (token) await api.DELETE('/api/v1/auth', { headers: { authorization: `Bearer ${token}` } }).catch(() => undefined);
}

/** At start: a stored token is checked once; a dead one is dropped. */
export async function restoreSession(): Promise<void> {
  const token = state.token;
  if (!token) return update({ ready: true });
  try {
    await signInWith(token);
  } catch (error) {
    // Only a refused token is dropped; a server that could not be reached keeps it for a reload.
    const refused = error instanceof ApiError && error.status === 401;
    if (refused && state.token === token) store(TOKEN_KEY, undefined);
    const notice = refused ? 'Your session has ended. Please sign in again.' : (error as Error).message;
    update({ token: undefined, me: undefined, ready: true, notice });
  }
}
