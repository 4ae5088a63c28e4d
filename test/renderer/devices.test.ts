import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppStore, type AppStore } from '../../renderer/src/store/index.js';
import { bridgedWorkbench, type BridgedWorkbench } from '../helpers/bridged-workbench.js';

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting for a condition');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('the devices slice against the real workbench', () => {
  let bridged: BridgedWorkbench;
  let store: AppStore;
  let stopWatching: () => void;

  beforeAll(async () => {
    bridged = await bridgedWorkbench('awb-devices-', { embeddedDevice: true });
    ({ store } = bridged);
    stopWatching = store.getState().watchDevices();
  });

  afterAll(async () => {
    stopWatching();
    await bridged.close();
  });

  it('lists the devices at once, shows adb being off as a notice, and selects the first online device', async () => {
    await until(() => store.getState().devicesLoaded);
    const s = store.getState();
    expect(s.devices.map((d) => [d.serial, d.kind, d.transport, d.online])).toEqual([['simdroid-1', 'simdroid', 'embedded', true]]);
    expect(s.devices[0]!.screen).toMatchObject({ width: 1080, height: 2400 });
    expect(s.adbError).toMatch(/adb is disabled/);
    expect(s.errors).toEqual([]); // a notice, not an error
    expect(s.selectedSerial).toBe('simdroid-1');
  });

  it('starting and stopping a SimDroid updates the list (also through onDevices for another window)', async () => {
    const other = createAppStore(store.api);
    const stopOther = other.getState().watchDevices();
    try {
      const d = await store.getState().startSimDroid('');
      expect(d?.serial).toBe('simdroid-2');
      expect(store.getState().devices.map((x) => x.serial)).toEqual(['simdroid-1', 'simdroid-2']);
      await until(() => other.getState().devices.length === 2);

      store.getState().selectDevice('simdroid-2');
      await store.getState().stopSimDroid('simdroid-2');
      expect(store.getState().devices.map((x) => x.serial)).toEqual(['simdroid-1']);
      // The selected device went away: the first online one is selected instead.
      expect(store.getState().selectedSerial).toBe('simdroid-1');
      await until(() => other.getState().devices.length === 1);
    } finally {
      stopOther();
    }
  });

  it('keeps the selection the user made when the list changes', async () => {
    const d = await store.getState().startSimDroid();
    store.getState().selectDevice(d!.serial);
    await store.getState().refreshDevices();
    expect(store.getState().selectedSerial).toBe(d!.serial);
    await store.getState().stopSimDroid(d!.serial);
  });

  it('turns bad form input and refused calls into named, visible errors', async () => {
    await store.getState().startSimDroid('12x');
    await store.getState().startSimDroid('6000'); // even: the server wants an odd port
    await store.getState().connectDevice('   ');
    await store.getState().connectDevice('not an address');
    await store.getState().stopSimDroid('simdroid-99');
    const errors = store.getState().errors.map((e) => `${e.action}: ${e.name}: ${e.message}`);
    expect(errors).toEqual([
      expect.stringMatching(/^Start SimDroid: DeviceFormError: The adb port must be a whole number/),
      expect.stringMatching(/^Start SimDroid: ApiInputError: .*adbPort: an odd port/),
      expect.stringMatching(/^Connect \(no address\): DeviceFormError: .*HOST:PORT/),
      expect.stringMatching(/^Connect not an address: ApiInputError: .*address: HOST:PORT/),
      expect.stringMatching(/^Stop simdroid-99: DeviceNotFoundError/),
    ]);
    expect(store.getState().devices.map((x) => x.serial)).toEqual(['simdroid-1']);
  });

  it('lists AVDs with the SDK path or the reason there is none', async () => {
    await store.getState().loadAvds();
    const avds = store.getState().avds;
    expect(avds).not.toBeNull();
    // Either an SDK was found, or the error tells how to point at one.
    if (avds!.sdk === null) expect(avds!.error).toMatch(/ANDROID_HOME|ANDROID_SDK_ROOT/);
    else expect(avds!.error === null || typeof avds!.error === 'string').toBe(true);
  });
});
