import { connect, createServer, type Server, type Socket } from 'node:net';
import { SimDroid } from './simdroid.js';
import { AdbDaemon, type AdbAuthMode } from './adb/daemon.js';
import { EmulatorConsole } from './console/console.js';
import { defaultAuthTokenPath, readConsoleAuth } from './console/auth-token.js';
import { GrpcPortInUseError, startGrpcServer, type EmulatorGrpcServer } from './grpc/server.js';
import { writeDiscoveryFile } from './grpc/discovery.js';

/**
 * A SimDroid on the network the way the Android emulator is: the console on an even port and
 * adbd on the next one, so `adb` (which finds emulators on 5555–5585 by itself, or by `adb connect`),
 * adbkit and `adb emu` drive it as they would an AVD. See docs/simdroid-adb.md.
 */
export interface EmulatorHostOptions {
  /** The console port, even; adbd listens on port + 1. Default 5554, like the first emulator. */
  port?: number;
  /** Interface to listen on. Default 127.0.0.1. */
  host?: string;
  /** The device to serve; by default a new SimDroid with serial emulator-<port>, closed on stop(). */
  device?: SimDroid;
  /** Seed of the device created when none is given. */
  seed?: number;
  /** Console token file; default $HOME/.emulator_console_auth_token, created when missing. Empty file: no auth. */
  authTokenPath?: string;
  /** ADB authentication: 'none' (default, like an emulator) or 'rsa' (adb_keys on the device). */
  auth?: AdbAuthMode;
  /** Where protocol violations and internal errors are reported. Default: nowhere. */
  log?: (message: string) => void;
  /**
   * The adb server to tell about this emulator once it listens (`host:emulator:<adb port>`), as
   * the Android emulator does, so a running server lists it at once. Default
   * $ANDROID_ADB_SERVER_PORT, else 5037; false to stay quiet.
   */
  notifyAdbServer?: number | false;
  /**
   * The emulator's gRPC API (EmulatorController, SnapshotService) on 127.0.0.1: a port, 0 for any
   * free one, or false (default) for none. `awb emulator start` opens the emulator's default,
   * defaultGrpcPort(console port): 8554 for 5554.
   */
  grpcPort?: number | false;
  /** A bearer token gRPC calls must carry (`-grpc-use-token`); default none. */
  grpcToken?: string;
  /**
   * Advertise this instance as the emulator does, in pid_<pid>.ini in this folder (see
   * grpc/discovery.ts); removed on stop. One per process: the file is named after this process.
   */
  discoveryDir?: string;
  /** The command line written to the discovery file. */
  cmdline?: readonly string[];
}

export interface EmulatorHost {
  readonly device: SimDroid;
  /** emulator-<port>, the serial the adb server gives it. */
  readonly serial: string;
  readonly consolePort: number;
  readonly adbPort: number;
  /** 127.0.0.1:<adbPort>, for `adb connect`. */
  readonly address: string;
  /** The gRPC port, or null when gRPC is off. */
  readonly grpcPort: number | null;
  /** The discovery file written for this instance, if any. */
  readonly discoveryFile: string | null;
  /** Resolves once the host has stopped (stop(), or `kill` on the console). */
  readonly stopped: Promise<void>;
  stop(): Promise<void>;
}

export const DEFAULT_CONSOLE_PORT = 5554;

export class EmulatorPortError extends Error {
  override name = 'EmulatorPortError';
  constructor(readonly port: number) {
    super(`emulator console port must be an even number from 1024 to 65534 (adb uses the next one), got ${port}`);
  }
}

export class EmulatorOptionError extends Error {
  override name = 'EmulatorOptionError';
  constructor(readonly option: string, readonly value: unknown, expected: string) {
    super(`emulator host option ${option} must be ${expected}, got ${JSON.stringify(value)}`);
  }
}

export class EmulatorPortInUseError extends Error {
  override name = 'EmulatorPortInUseError';
  constructor(readonly port: number, readonly host: string, readonly role: 'console' | 'adb' | 'grpc') {
    super(`cannot serve the emulator ${role} on ${host}:${port}: the port is already in use (another emulator or SimDroid?)`);
  }
}

function listen(server: Server, port: number, host: string, role: 'console' | 'adb'): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException) => reject(e.code === 'EADDRINUSE' ? new EmulatorPortInUseError(port, host, role) : e);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

/**
 * Tells a local adb server that an emulator listens on `adbPort`. A server started later finds it
 * anyway (it scans 5555–5585 when it starts); no server running is not an error.
 */
export function notifyAdb(serverPort: number, adbPort: number, log: (m: string) => void): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: serverPort });
    const request = `host:emulator:${adbPort}`;
    socket.setTimeout(2000, () => socket.destroy());
    socket.on('connect', () => socket.end(`${request.length.toString(16).padStart(4, '0')}${request}`));
    socket.on('error', (e) => {
      log(`no adb server on ${serverPort} to notify (${e.message})`);
      resolve();
    });
    socket.on('close', () => resolve());
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
  });
}

/** A listening server whose accept handler can never throw into the event loop. */
function guardedServer(accept: (s: Socket) => void, log: (m: string) => void): Server {
  const server = createServer((socket) => {
    try {
      accept(socket);
    } catch (e) {
      log(`accept failed: ${(e as Error).stack ?? String(e)}`);
      socket.destroy();
    }
  });
  server.on('error', (e) => log(`server error: ${e.message}`));
  return server;
}

/** The host part of an address `adb connect` accepts for a listening interface. */
function connectHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

export async function startEmulatorHost(opts: EmulatorHostOptions = {}): Promise<EmulatorHost> {
  const port = opts.port ?? DEFAULT_CONSOLE_PORT;
  if (!Number.isInteger(port) || port % 2 !== 0 || port < 1024 || port > 65534) throw new EmulatorPortError(port);
  const authMode = opts.auth ?? 'none';
  if (authMode !== 'none' && authMode !== 'rsa') throw new EmulatorOptionError('auth', authMode, "'none' or 'rsa'");
  const host = opts.host ?? '127.0.0.1';
  const serial = `emulator-${port}`;
  const log = opts.log ?? (() => {});
  const authTokenPath = opts.authTokenPath ?? defaultAuthTokenPath();
  // Like the emulator, create the token file at start-up, so it exists before any client needs it.
  const auth = readConsoleAuth(authTokenPath);
  if (auth.kind === 'unavailable') log(`console: ${auth.reason}; the console will refuse clients`);

  const ownsDevice = !opts.device;
  const device = opts.device ?? new SimDroid({ serial, seed: opts.seed ?? 0 });
  let stopping: Promise<void> | null = null;
  let markStopped: () => void = () => {};
  const stopped = new Promise<void>((resolve) => (markStopped = resolve));

  const adbd = new AdbDaemon({ device, auth: authMode, log });
  const emulatorConsole = new EmulatorConsole({ device, authTokenPath, avdName: 'SimDroid', onKill: () => void stop(), log });
  const consoleServer = guardedServer((s) => emulatorConsole.accept(s), log);
  const adbServer = guardedServer((s) => adbd.accept(s), log);

  let grpc: EmulatorGrpcServer | null = null;
  let discovery: { path: string; remove(): void } | null = null;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      discovery?.remove();
      adbd.closeAll();
      emulatorConsole.closeAll();
      await Promise.all([closeServer(consoleServer), closeServer(adbServer), grpc?.stop()]);
      if (ownsDevice) device.close();
      markStopped();
    })();
    return stopping;
  };

  try {
    await listen(consoleServer, port, host, 'console');
    await listen(adbServer, port + 1, host, 'adb');
    const grpcPort = opts.grpcPort ?? false;
    if (grpcPort !== false) {
      if (!Number.isInteger(grpcPort) || grpcPort < 0 || grpcPort > 65535) throw new EmulatorOptionError('grpcPort', grpcPort, 'a port number (0 for any free one) or false');
      try {
        grpc = await startGrpcServer({ device, port: grpcPort, token: opts.grpcToken, onShutdown: () => void stop(), log });
      } catch (e) {
        throw e instanceof GrpcPortInUseError ? new EmulatorPortInUseError(grpcPort, '127.0.0.1', 'grpc') : e;
      }
    }
    if (opts.discoveryDir !== undefined) {
      discovery = writeDiscoveryFile({
        pid: process.pid, avdName: 'SimDroid', consolePort: port, adbPort: port + 1, grpcPort: grpc?.port ?? 0,
        grpcToken: grpc ? opts.grpcToken : undefined, cmdline: opts.cmdline ?? process.argv,
      }, opts.discoveryDir);
    }
  } catch (e) {
    await stop();
    throw e;
  }

  const notifyPort = opts.notifyAdbServer ?? (Number(process.env.ANDROID_ADB_SERVER_PORT) || 5037);
  if (notifyPort !== false) await notifyAdb(notifyPort, port + 1, log);

  return {
    device,
    serial,
    consolePort: port,
    adbPort: port + 1,
    address: `${connectHost(host)}:${port + 1}`,
    grpcPort: grpc?.port ?? null,
    discoveryFile: discovery?.path ?? null,
    stopped,
    stop,
  };
}
