/**
 * A counting semaphore, and one per endpoint for the whole process: every VLM policy talking to the
 * same endpoint (a suite run's parallel episodes, a step-through session beside it) waits on the
 * same permits, so a vLLM server sized for N concurrent requests never sees more than N from us.
 */
export class SemaphoreLimitError extends Error {
  override name = 'SemaphoreLimitError';
  constructor(readonly limit: unknown) {
    super(`A concurrency limit must be an integer ≥ 1, got ${JSON.stringify(limit)}`);
  }
}

export class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private limitValue: number) {
    Semaphore.check(limitValue);
  }

  private static check(limit: number): void {
    if (!Number.isInteger(limit) || limit < 1) throw new SemaphoreLimitError(limit);
  }

  get limit(): number {
    return this.limitValue;
  }

  /** In flight now (for tests and the endpoints view). */
  get inFlight(): number {
    return this.active;
  }

  /** Raises or lowers the limit; a lower limit takes effect as permits are released. */
  setLimit(limit: number): void {
    Semaphore.check(limit);
    this.limitValue = limit;
    this.pump();
  }

  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(signal);
    try {
      return await fn();
    } finally {
      this.active--;
      this.pump();
    }
  }

  private acquire(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.active < this.limitValue) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener('abort', abort);
        this.active++;
        resolve();
      };
      const abort = () => {
        const i = this.waiting.indexOf(grant);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', abort, { once: true });
      this.waiting.push(grant);
    });
  }

  private pump(): void {
    while (this.active < this.limitValue && this.waiting.length) this.waiting.shift()!();
  }
}

const byEndpoint = new Map<string, Semaphore>();

/** The endpoint's key: its chat URL without trailing slashes (the model does not matter, the server does). */
export function endpointKey(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '');
}

/**
 * The process-wide semaphore of an endpoint, created with `limit` on first use; a later caller with
 * a different limit sets it (the newest profile settings win) rather than getting a second semaphore.
 */
export function endpointSemaphore(baseUrl: string, limit: number): Semaphore {
  const key = endpointKey(baseUrl);
  let s = byEndpoint.get(key);
  if (!s) {
    s = new Semaphore(limit);
    byEndpoint.set(key, s);
  } else if (s.limit !== limit) {
    s.setLimit(limit);
  }
  return s;
}
