import { SimDroid } from '../../emulators/simdroid/simdroid.js';
import type { AdbDevice } from '../device/adb/adb-device.js';
import type { GrpcEndpoint } from '../device/adb/emulator-grpc.js';
import { AdbServer } from '../device/adb/server.js';

/**
 * The one place in core that makes devices: in-process SimDroids (for the CLI, the workbench,
 * training, adaptation, online GRPO, job preparation, eval and the rollout worker threads) and
 * AdbDevices behind an adb server (AVDs, phones, SimDroids serving ADB). Callers choose the serial
 * and seed; the store keys devices by serial and recorded runs name them, so each caller keeps
 * the ones it has always used.
 */

export interface SimDroidSpec {
  serial: string;
  /** Seeds the device's first-boot content; default 0 (SimDroid's own default). */
  seed?: number;
}

/** One in-process SimDroid; the caller closes it. */
export function openSimDroid(spec: SimDroidSpec): SimDroid {
  return new SimDroid({ ...spec });
}

/** `count` in-process SimDroids with serials `${serialPrefix}0`, `${serialPrefix}1`, …, all seed 0; the caller closes them. */
export function openSimDroids(count: number, serialPrefix: string): SimDroid[] {
  return Array.from({ length: count }, (_, i) => openSimDroid({ serial: `${serialPrefix}${i}` }));
}

/**
 * How a device behind adb is reached: the adb server's port, the emulator console's auth token file,
 * and the emulator's gRPC endpoint when it is not the one its discovery file names.
 */
export interface AdbTarget {
  adbPort?: number | undefined;
  consoleToken?: string | undefined;
  grpc?: GrpcEndpoint | undefined;
}

/** A client of the adb server on `port` (default $ANDROID_ADB_SERVER_PORT, else 5037). */
export function openAdbServer(port?: number): AdbServer {
  return new AdbServer(port !== undefined ? { port } : {});
}

/**
 * The device `serial` behind adb: through `server` when the caller keeps one (the workbench's
 * device registry), else through a client of its own for the target's port.
 */
export function openAdbDevice(serial: string, via: AdbTarget & { server?: AdbServer } = {}): AdbDevice {
  const server = via.server ?? openAdbServer(via.adbPort);
  return server.device(serial, { ...(via.consoleToken ? { consoleTokenPath: via.consoleToken } : {}), ...(via.grpc ? { grpc: via.grpc } : {}) });
}
