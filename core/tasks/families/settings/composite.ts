import { z } from 'zod';
import { defineTask, type TaskTemplate } from '../../task.js';
import type { Device } from '../../../device/device.js';
import { putSetting, settingCondition } from '../../validators/settings.js';
import { verdictOf } from '../../verdict.js';
import { backToSettingsTop, openSettingsPath, pageOpen, scrollToSwitch, settingsOpen, switchIsOn } from './common.js';

/**
 * Two switches in one instruction, in order (AndroidWorld's TurnOffWifiAndTurnOnBluetooth): Wi-Fi
 * off on the Internet page, then back to the top of Settings and Bluetooth on under Connected devices.
 */
const wifiOff = (device: Device) => settingCondition(device, 'global', 'wifi_on', '0', undefined, 'Wi-Fi off (global/wifi_on = 0)');
const bluetoothOn = (device: Device) => settingCondition(device, 'global', 'bluetooth_on', '1', undefined, 'Bluetooth on (global/bluetooth_on = 1)');

export const WifiOffBluetoothOn = defineTask({
  id: 'SystemWifiOffBluetoothOn',
  apps: ['Settings'],
  difficulty: 'medium',
  tags: ['toggle', 'complex_ui'],
  kind: 'completion',
  template: 'Turn off Wi-Fi, then enable Bluetooth.',
  params: z.object({}),
  generate: () => ({}),
  initialize: async (device) => {
    await putSetting(device, 'global', 'wifi_on', '1');
    await putSetting(device, 'global', 'bluetooth_on', '0');
  },
  check: async (device) => verdictOf([await wifiOff(device), await bluetoothOn(device)]),
  subgoals: () => [
    settingsOpen,
    pageOpen('Internet'),
    { name: 'Wi-Fi off', check: async ({ device }) => (await wifiOff(device)).ok },
    pageOpen('Bluetooth'),
    { name: 'Bluetooth on', check: async ({ device }) => (await bluetoothOn(device)).ok },
  ],
  *oracle(_p, ui) {
    yield* openSettingsPath(ui, ['Network & internet', 'Internet']);
    if (switchIsOn(ui, 'Wi‑Fi')) yield ui.tap({ text: 'Wi‑Fi' });
    yield* backToSettingsTop(ui);
    yield* openSettingsPath(ui, ['Connected devices', 'Connection preferences', 'Bluetooth']);
    yield* scrollToSwitch(ui, 'Use Bluetooth');
    if (!switchIsOn(ui, 'Use Bluetooth')) yield ui.tap({ text: 'Use Bluetooth' });
    yield ui.complete();
  },
});

export const COMPOSITE_TASKS: readonly TaskTemplate[] = [WifiOffBluetoothOn];
