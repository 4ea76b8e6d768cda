/**
 * Whether this instance is stopping. From a SIGTERM on, `/readyz` answers 503 (the load balancer
 * takes the instance out) and every response closes its connection (a client or balancer holding a
 * keep-alive connection opens a new one, to another instance), while requests are still served for
 * `SHUTDOWN_GRACE_S`: those the balancer sends before its health check notices are answered too.
 */
export class Draining {
  private since: number | undefined;

  get active(): boolean {
    return this.since !== undefined;
  }

  start(): void {
    this.since ??= Date.now();
  }
}
