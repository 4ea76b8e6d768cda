/** A value that is ready at once on the warm path, and a promise only when work had to wait. */
export type MaybePromise<T> = T | Promise<T>;

/**
 * `next(value)` at once when `value` is ready, once it settles otherwise. The hot paths chain their
 * steps with it so that a request served from memory allocates no promise along the way.
 */
export function after<T, R>(value: MaybePromise<T>, next: (value: T) => MaybePromise<R>): MaybePromise<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}
