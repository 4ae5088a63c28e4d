import type { Device } from './device.js';
import { serializeUiTree, type UiTree } from '../a11y/ui-tree.js';

/**
 * Waiting until the screen stops changing after an action, as AndroidWorld does: an optional
 * fixed delay, then consecutive accessibility trees compared until two are equal or a timeout.
 * SimDroid has no animations, so its first two trees already agree and nothing waits.
 */
export interface SettleOptions {
  /** Always wait this long first (AndroidWorld waits 3 s on an emulator). */
  minDelayMs: number;
  /** Pause between tree reads after the first comparison fails. */
  intervalMs: number;
  /** Give up after this long and carry on with the screen as it is. */
  timeoutMs: number;
}

export const IMMEDIATE_SETTLE: SettleOptions = { minDelayMs: 0, intervalMs: 100, timeoutMs: 2000 };

/** A device may say how to wait for it (an emulator over adb needs polling; SimDroid does not). */
export function settleFor(device: object): SettleOptions {
  const s = (device as { settle?: SettleOptions }).settle;
  return s ?? IMMEDIATE_SETTLE;
}

export interface SettleResult {
  stable: boolean;
  waitedMs: number;
  polls: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function sameTree(a: UiTree, b: UiTree): boolean {
  return a === b || serializeUiTree(a) === serializeUiTree(b);
}

export async function waitUntilStable(device: Device, opts: SettleOptions = IMMEDIATE_SETTLE): Promise<SettleResult> {
  const start = performance.now();
  if (opts.minDelayMs > 0) await sleep(opts.minDelayMs);
  let prev = await device.uiTree();
  let polls = 1;
  for (;;) {
    const cur = await device.uiTree();
    polls++;
    if (sameTree(prev, cur)) return { stable: true, waitedMs: performance.now() - start, polls };
    if (performance.now() - start >= opts.timeoutMs) return { stable: false, waitedMs: performance.now() - start, polls };
    await sleep(opts.intervalMs);
    prev = cur;
  }
}
