import type { FastifyReply } from 'fastify';
import { UnauthorizedError } from '../../http/app-errors.ts';
import { consumeToo, showOrRefuse, type Limiters } from '../../http/rate-limit.ts';
import { hashToken } from '../../lib/token-secret.ts';
import { normaliseEmail } from '../users/users.service.ts';

/**
 * Wrong passwords braked without letting a stranger lock the owner out. The email is trimmed and
 * lower-cased first, so every spelling that reaches one login counts against it (keys are SHA-256).
 *
 * - Per email and client IP, a tight budget (`loginFailures`): the attempt is counted before the
 *   password is checked, so guesses sent in parallel cannot all slip under it, and given back when
 *   the password was right, so what it counts is failures. Past it that IP is refused for that email.
 * - Per email from every IP, a slower one (`loginEmail`), counted on each failure: past it, an IP
 *   that has already failed for that email is refused, while one that has not still has its
 *   password checked. A guesser spread over many addresses gets one try per address; the owner,
 *   signing in from an address that sent no wrong password, gets in.
 */
export async function limitedLogIn<T>(limiters: Limiters, reply: FastifyReply, ip: string, email: string, logIn: () => Promise<T>): Promise<T> {
  const normalised = normaliseEmail(email);
  const emailKey = `e:${hashToken(normalised)}`;
  const pairKey = `ei:${hashToken(`${ip}\n${normalised}`)}`;
  const pair = await consumeToo(limiters.loginFailures, pairKey, reply);
  const failedBefore = limiters.loginFailures.points - pair.remaining - 1 > 0;
  if (failedBefore) {
    // Shown only when it refuses: what other addresses did is not this caller's to count down.
    const everywhere = await limiters.loginEmail.peek(emailKey);
    if (everywhere.limited) showOrRefuse(limiters.loginEmail, everywhere, reply);
  }
  let wrong = false;
  try {
    return await logIn();
  } catch (error) {
    wrong = error instanceof UnauthorizedError;
    if (wrong) await limiters.loginEmail.count(emailKey);
    throw error;
  } finally {
    // Only a wrong password keeps its count: a right one, or a failure of the service, gives it back.
    if (!wrong) await limiters.loginFailures.refund(pairKey);
  }
}
