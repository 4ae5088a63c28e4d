import { readdirSync } from 'node:fs';
import { stat } from 'node:fs/promises';

/**
 * OS threads of this process (Linux: /proc/self/task), to show that rollout workers are gone after
 * a run: Node lists no Worker among its active handles, but every worker is an OS thread.
 */
export const canCountThreads = process.platform === 'linux';

export function osThreads(): number {
  return readdirSync('/proc/self/task').length;
}

/** The thread count with libuv's pool already started (workers' file reads would otherwise start it and raise the count for good). */
export async function threadBaseline(): Promise<number> {
  await stat('.');
  return osThreads();
}

/** Waits (up to `ms`) until the count is back at `baseline`; returns the last count. */
export async function threadsSettleTo(baseline: number, ms = 5000): Promise<number> {
  const until = performance.now() + ms;
  let n = osThreads();
  while (n > baseline && performance.now() < until) {
    await new Promise((r) => setTimeout(r, 20));
    n = osThreads();
  }
  return n;
}
