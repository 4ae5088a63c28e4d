import { holds, verdictOf, type CheckCondition, type CheckVerdict } from '../verdict.js';
import type { Device } from '../../device/device.js';
import { shellOk } from '../../device/device.js';
import { shellCommand } from '../../device/shell-quote.js';

export type SettingsNamespace = 'system' | 'secure' | 'global';

/** `settings get`; null when unset (the shell prints "null"). */
export async function getSetting(device: Device, ns: SettingsNamespace, key: string): Promise<string | null> {
  const v = (await shellOk(device, shellCommand('settings', 'get', ns, key))).trim();
  return v === 'null' ? null : v;
}

export async function putSetting(device: Device, ns: SettingsNamespace, key: string, value: string): Promise<void> {
  await shellOk(device, shellCommand('settings', 'put', ns, key, value));
}

/** A setting's value in words: the value, or "unset". */
export function settingWords(v: string | null): string {
  return v === null ? 'unset' : v;
}

/**
 * A setting read back and judged: `ok` compares the value (null when unset); the condition says
 * what was expected and what the device holds ("setting global/wifi_on is 1": found 0).
 */
export async function settingCondition(
  device: Device, ns: SettingsNamespace, key: string, expected: string, ok: (v: string | null) => boolean = (v) => v === expected, name?: string,
): Promise<CheckCondition> {
  const v = await getSetting(device, ns, key);
  return holds(name ?? `setting ${ns}/${key} is ${expected}`, ok(v), { expected, found: settingWords(v) });
}

/** The verdict of a task judged on one setting alone. */
export async function settingVerdict(device: Device, ns: SettingsNamespace, key: string, expected: string, ok?: (v: string | null) => boolean, name?: string): Promise<CheckVerdict> {
  return verdictOf([await settingCondition(device, ns, key, expected, ok, name)]);
}
