import type { Device } from '../../device/device.js';
import { shellOk } from '../../device/device.js';
import { shellCommand } from '../../device/shell-quote.js';
import { holds, type CheckCondition } from '../verdict.js';

/**
 * The clipboard through Clipper's broadcasts (`clipper.set -e text …`, `clipper.get`), as
 * AndroidWorld reads and writes it: SimDroid has Clipper in its system image, AndroidWorld's
 * emulators have the app installed.
 */
export class ClipboardError extends Error {
  override name = 'ClipboardError';
  constructor(readonly serial: string, readonly output: string) {
    super(`${serial}: Clipper did not answer as expected: ${output.trim().slice(0, 200)}`);
  }
}

export async function setClipboard(device: Device, text: string): Promise<void> {
  const out = await shellOk(device, shellCommand('am', 'broadcast', '-a', 'clipper.set', '-e', 'text', text));
  if (!/result=-1/.test(out)) throw new ClipboardError(device.serial, out);
}

/** The clipboard's text; null when it holds none. */
export async function getClipboard(device: Device): Promise<string | null> {
  const out = await shellOk(device, 'am broadcast -a clipper.get');
  const m = /result=(-?\d+), data="([\s\S]*)"\s*$/.exec(out.trimEnd());
  if (!m) return null;
  return m[1] === '-1' ? m[2]! : null;
}

/** The clipboard holds exactly this text. */
export async function clipboardHolds(device: Device, text: string): Promise<CheckCondition> {
  const found = await getClipboard(device);
  return holds('clipboard text', found === text, { expected: JSON.stringify(text), found: found === null ? 'empty' : JSON.stringify(found) });
}
