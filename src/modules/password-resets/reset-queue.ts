import type { FastifyBaseLogger } from 'fastify';
import { sendResetLink, type ResetLinks } from './password-resets.service.ts';

/** Requests waiting for their lookup; past it new ones are dropped (logged), as a flood's would be. */
export const RESET_QUEUE_MAX = 1_000;

/**
 * Reset requests are answered before the email is even looked up, and handled here afterwards, one
 * at a time: the answer takes the same work whether or not the email has a login (storing the link
 * first made a known email's answer 2–20 ms slower, a tell). The work done afterwards still loads the
 * server: on the embedded database, whose work runs in this process, the next request shows it
 * (`npm run bench:reset`). One at a time also bounds what a flood of requests costs the database. A
 * request still waiting when the process stops is lost; the person asks again.
 */
export class ResetQueue {
  private readonly waiting: { email: string; log: FastifyBaseLogger }[] = [];
  private running: Promise<void> | undefined;

  constructor(private readonly deps: Pick<ResetLinks, 'db' | 'mailer' | 'config'>) {}

  add(email: string, log: FastifyBaseLogger): void {
    if (this.waiting.length >= RESET_QUEUE_MAX) {
      log.warn('password reset requests arrive faster than they are handled: this one is dropped');
      return;
    }
    this.waiting.push({ email, log });
    this.running ??= this.drain();
  }

  /** Settles once every request taken so far has been handled. */
  async close(): Promise<void> {
    await this.running;
  }

  private async drain(): Promise<void> {
    for (let next = this.waiting.shift(); next; next = this.waiting.shift()) {
      try {
        await sendResetLink(this.deps, next.log, next.email);
      } catch (error) {
        next.log.error({ err: error }, 'could not make a password reset link');
      }
    }
    this.running = undefined;
  }
}
