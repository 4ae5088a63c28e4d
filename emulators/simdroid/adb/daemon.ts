import type { Socket } from 'node:net';
import type { SimDroid } from '../simdroid.js';
import { DeviceKeyStore } from './auth.js';
import { AdbConnection } from './connection.js';
import { deviceBanner, rebootDevice } from './device-identity.js';
import { resolveService } from './services/index.js';
import type { ServiceContext } from './service.js';

export type AdbAuthMode = 'none' | 'rsa';

export interface AdbDaemonOptions {
  device: SimDroid;
  /** 'none': no AUTH, like an emulator (ro.adb.secure=0); 'rsa': keys in /data/misc/adb/adb_keys. */
  auth: AdbAuthMode;
  log(message: string): void;
}

/** SimDroid's adbd: one AdbConnection per accepted socket, all serving the same device. */
export class AdbDaemon {
  private readonly connections = new Set<AdbConnection>();
  private readonly context: ServiceContext;
  private readonly keys: DeviceKeyStore | null;

  constructor(private readonly opts: AdbDaemonOptions) {
    const { device, log } = opts;
    this.context = { device, log, reboot: () => rebootDevice(device) };
    this.keys = opts.auth === 'rsa' ? new DeviceKeyStore(device.fs) : null;
  }

  accept(socket: Socket): void {
    const connection = new AdbConnection(socket, {
      banner: () => deviceBanner(this.opts.device),
      keys: this.keys,
      resolve: (name) => resolveService(name, this.context),
      log: this.opts.log,
    });
    this.connections.add(connection);
    socket.on('close', () => this.connections.delete(connection));
  }

  /** Drops every connection; the adb server sees the device go away. */
  closeAll(): void {
    for (const c of [...this.connections]) c.close();
    this.connections.clear();
  }
}
