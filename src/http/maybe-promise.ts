/** A value that is ready at once on the warm path, and a promise only when work had to wait. */
export type MaybePromise<T> = T | Promise<T>;

/**
 * `next(value)` at once when `value` is ready, once it settles otherwise. The hot paths chain their
 * steps with it so that a request served from memory allocates no promise along the way.
 */
export function after<T, R>(value: MaybePromise<T>, next: (value: T) => MaybePromise<R>): MaybePromise<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/**
 * Runs a callback-style hook's `step` and calls `done` at once when it finished at once, when it
 * settles otherwise, or with the error it threw or rejected with.
 */
export function settle(step: () => MaybePromise<unknown>, done: (error?: Error) => void): void {
  let outcome: MaybePromise<unknown>;
  try {
    outcome = step();
  } catch (error) {
    done(error as Error);
    return;
  }
  if (outcome instanceof Promise) outcome.then(() => done(), done);
  else done();
}
