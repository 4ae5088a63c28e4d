/**
 * A bound on wrong session tokens (`awb serve`): after `maxFailures` wrong ones within `windowMs`, no token is checked
 * until the window has passed; every request that needs one is answered 429. A refused request is not a guess, so a
 * 16-character token cannot be found by trying. The lockout is said once (not once per request).
 *
 * Everything that reaches the server is local (it listens on 127.0.0.1), so there is one budget for all clients: a
 * local program, or a web page making the browser send requests, can keep the UI locked out while it tries, but it
 * learns nothing; an open WebSocket session is not affected.
 */
export interface AuthLimitOptions {
  maxFailures?: number;
  windowMs?: number;
  now?: () => number;
  log?: (m: string) => void;
}

export class AuthLimit {
  private readonly maxFailures: number;
  private readonly windowMs: number;
  private readonly now: () => number;
  private readonly log: (m: string) => void;
  private failures: number[] = [];
  private lockedUntil = 0;

  constructor(o: AuthLimitOptions = {}) {
    this.maxFailures = o.maxFailures ?? 20;
    this.windowMs = o.windowMs ?? 10_000;
    this.now = o.now ?? Date.now;
    this.log = o.log ?? (() => {});
  }

  /** Seconds until tokens are checked again (0: they are checked now). */
  lockedFor(): number {
    const left = this.lockedUntil - this.now();
    return left > 0 ? Math.ceil(left / 1000) : 0;
  }

  /** A wrong token (a missing one is no guess and is not counted); the one that passes the bound starts the lockout, logged. */
  failed(): void {
    const t = this.now();
    this.failures = this.failures.filter((f) => t - f < this.windowMs);
    this.failures.push(t);
    if (this.failures.length > this.maxFailures && this.lockedUntil <= t) {
      this.lockedUntil = t + this.windowMs;
      this.log(`${this.failures.length} requests with a wrong token within ${this.windowMs / 1000} s: tokens are not checked for ${this.windowMs / 1000} s (429 Too Many Requests)`);
      this.failures = [];
    }
  }
}
