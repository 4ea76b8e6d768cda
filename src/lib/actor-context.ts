import { AsyncLocalStorage } from 'node:async_hooks';

/** Who makes a change: a user (session or user token), an account token, a partner, the AI worker, or the service itself. */
export interface Actor {
  type: 'user' | 'token' | 'partner' | 'ai' | 'system';
  /** The user's, the token's or the partner's id; null for the AI and the system. */
  id: string | null;
}

export const SYSTEM_ACTOR: Actor = { type: 'system', id: null };
export const AI_ACTOR: Actor = { type: 'ai', id: null };

const current = new AsyncLocalStorage<Actor>();

/** Runs `work` (and everything it starts) as `actor`: the audit log names it for every change made meanwhile. */
export function runAs<T>(actor: Actor, work: () => T): T {
  return current.run(actor, work);
}

/** Who is making the change now: the request's caller, the AI worker, or else the system. */
export function currentActor(): Actor {
  return current.getStore() ?? SYSTEM_ACTOR;
}
