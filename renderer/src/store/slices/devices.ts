import type { StateCreator } from 'zustand';
import type { WorkbenchApi } from '../../../../core/api/api.js';
import type { AvdList, DeviceList, DeviceSummary } from '../../../../core/api/types.js';
import type { AppState } from '../index.js';
import { sharedWatch } from '../shared-watch.js';

/** A value typed in a form that the server would refuse anyway; caught here to name the field. */
export class DeviceFormError extends Error {
  override name = 'DeviceFormError';
}

export interface DevicesSlice {
  devices: DeviceSummary[];
  /** Why adb could not be asked (a notice: embedded SimDroids still work). */
  adbError: string | null;
  devicesLoaded: boolean;
  avds: AvdList | null;
  /** Live updates of the device list plus an initial listing; ref-counted, returns the stop function. */
  watchDevices(): () => void;
  refreshDevices(): Promise<void>;
  /** `adbPort`: the text of the optional port field ('' = none). */
  startSimDroid(adbPort?: string): Promise<DeviceSummary | undefined>;
  stopSimDroid(serial: string): Promise<void>;
  connectDevice(address: string): Promise<DeviceSummary | undefined>;
  disconnectDevice(address: string): Promise<void>;
  loadAvds(): Promise<void>;
  launchAvd(name: string, port?: string): Promise<DeviceSummary | undefined>;
}

function parsePort(text: string | undefined, what: string): number | undefined {
  const t = (text ?? '').trim();
  if (!t) return undefined;
  if (!/^\d+$/.test(t)) throw new DeviceFormError(`${what} must be a whole number (got ${JSON.stringify(t)})`);
  return Number(t);
}

export const createDevicesSlice = (api: WorkbenchApi): StateCreator<AppState, [], [], DevicesSlice> => (set, get) => {
  // A listing that started before a newer one must not overwrite it.
  let listSeq = 0;

  const apply = (list: DeviceList) => {
    set({ devices: list.devices, adbError: list.adbError, devicesLoaded: true });
    const { selectedSerial, selectDevice } = get();
    const selected = list.devices.find((d) => d.serial === selectedSerial);
    // Auto-select the first online device when none is selected (or the selected one went away).
    if (!selected) selectDevice(list.devices.find((d) => d.online)?.serial ?? null);
  };

  const upsert = (d: DeviceSummary) => {
    set((s) => ({ devices: s.devices.some((x) => x.serial === d.serial) ? s.devices.map((x) => (x.serial === d.serial ? d : x)) : [...s.devices, d] }));
    if (!get().selectedSerial && d.online) get().selectDevice(d.serial);
  };

  const remove = (serial: string) => {
    set((s) => ({ devices: s.devices.filter((d) => d.serial !== serial) }));
    if (get().selectedSerial === serial) get().selectDevice(get().devices.find((d) => d.online)?.serial ?? null);
  };

  return {
    devices: [],
    adbError: null,
    devicesLoaded: false,
    avds: null,

    watchDevices: sharedWatch(() => {
      const close = api.onDevices({}, (list) => {
        listSeq++;
        apply(list);
      });
      void get().refreshDevices();
      return close;
    }),

    refreshDevices: async () => {
      const seq = ++listSeq;
      const list = await get().attempt('List devices', () => api.listDevices({}));
      if (list && seq === listSeq) apply(list);
    },

    startSimDroid: async (adbPort) => {
      const d = await get().attempt('Start SimDroid', async () => {
        const port = parsePort(adbPort, 'The adb port');
        return api.startSimDroid(port === undefined ? {} : { adbPort: port });
      });
      if (d) upsert(d);
      return d;
    },

    stopSimDroid: async (serial) => {
      const ok = await get().attempt(`Stop ${serial}`, async () => (await api.stopSimDroid({ serial }), true));
      if (ok) remove(serial);
    },

    connectDevice: async (address) => {
      const a = address.trim();
      const d = await get().attempt(`Connect ${a || '(no address)'}`, async () => {
        if (!a) throw new DeviceFormError('Type the device\'s address as HOST:PORT, e.g. 192.168.1.20:5555');
        return api.connectDevice({ address: a });
      });
      if (d) upsert(d);
      return d;
    },

    disconnectDevice: async (address) => {
      const ok = await get().attempt(`Disconnect ${address}`, async () => (await api.disconnectDevice({ address }), true));
      if (ok) remove(address);
    },

    loadAvds: async () => {
      const avds = await get().attempt('List AVDs', () => api.listAvds({}));
      if (avds) set({ avds });
    },

    launchAvd: async (name, port) => {
      const d = await get().attempt(`Launch AVD ${name}`, async () => {
        const p = parsePort(port, 'The emulator port');
        return api.launchAvd(p === undefined ? { name } : { name, port: p });
      });
      if (d) upsert(d);
      return d;
    },
  };
};
