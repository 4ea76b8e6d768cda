import { hash, verify } from '@node-rs/argon2';

/** `Algorithm.Argon2id` of @node-rs/argon2 (a const enum, which isolated modules cannot import). */
const ARGON2ID = 2;

/** argon2id with the OWASP-recommended floor: 19 MiB of memory, 2 passes, 1 lane. */
const PARAMS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, PARAMS);
}

let dummyHash: Promise<string> | undefined;

/**
 * Verifies a password against a stored hash. With no user (unknown email) it verifies against a
 * hash of nothing in particular, so both failures take the same time.
 */
export async function verifyPassword(stored: string | undefined, password: string): Promise<boolean> {
  dummyHash ??= hashPassword('consentry-timing-equaliser');
  const target = stored ?? (await dummyHash);
  const ok = await verify(target, password).catch(() => false);
  return ok && stored !== undefined;
}
