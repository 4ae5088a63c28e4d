import type { Device } from '../../device/device.js';
import { isFileWritable, shellOk } from '../../device/device.js';
import { shellCommand } from '../../device/shell-quote.js';

/** Shared storage as apps see it (/sdcard is an alias of it on every device). */
export const SDCARD = '/storage/emulated/0';

/** Names in a directory, or null when it does not exist. */
export async function listDir(device: Device, dir: string): Promise<string[] | null> {
  const r = await device.shell(shellCommand('ls', '-1', dir));
  if (r.exitCode !== 0) return null;
  return r.stdout.split('\n').filter(Boolean);
}

/** A file's text, or null when it does not exist. */
export async function readText(device: Device, path: string): Promise<string | null> {
  const r = await device.shell(shellCommand('cat', path));
  return r.exitCode === 0 ? r.stdout : null;
}

export async function fileExists(device: Device, path: string): Promise<boolean> {
  return (await device.shell(shellCommand('ls', '-d', path))).exitCode === 0;
}

/**
 * Writes a text file (creating its directory), the way a task sets up documents: pushed through
 * the sync service where the device can take it (adbd refuses shell command lines over 64 KiB),
 * else echoed through the shell.
 */
export async function writeText(device: Device, path: string, text: string): Promise<void> {
  if (isFileWritable(device)) return device.writeFile(path, Buffer.from(text, 'utf8'));
  const dir = path.slice(0, path.lastIndexOf('/')) || '/';
  await shellOk(device, `${shellCommand('mkdir', '-p', dir)} && ${shellCommand('echo', '-n', text)} > ${shellCommand(path)}`);
}

export async function removePath(device: Device, path: string): Promise<void> {
  await shellOk(device, shellCommand('rm', '-rf', path));
}

/** Empties a directory, keeping it. */
export async function clearDir(device: Device, dir: string): Promise<void> {
  const names = await listDir(device, dir);
  if (names === null) {
    await shellOk(device, shellCommand('mkdir', '-p', dir));
    return;
  }
  if (names.length) await shellOk(device, shellCommand('rm', '-rf', ...names.map((n) => `${dir}/${n}`)));
}
