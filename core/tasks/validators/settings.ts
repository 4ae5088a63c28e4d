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
