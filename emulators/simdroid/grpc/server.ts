import { fileURLToPath } from 'node:url';
import { loadPackageDefinition, Server, ServerCredentials, type ServiceDefinition } from '@grpc/grpc-js';
import { loadSync, type PackageDefinition } from '@grpc/proto-loader';
import type { SimDroid } from '../simdroid.js';
import { bearerAuth } from './calls.js';
import { emulatorController } from './controller.js';
import { imageSerializer, type ImageReply } from './image-message.js';
import { snapshotService } from './snapshots.js';

/** The proto files SimDroid serves (a subset of the emulator's, same wire format). */
export const PROTO_DIR = fileURLToPath(new URL('./proto/', import.meta.url));
export const PROTO_FILES = ['emulator_controller.proto', 'snapshot_service.proto'] as const;

/**
 * The emulator's gRPC port for a console port: 8554 for the first emulator (console 5554), then
 * as many ports on as the console is (5556 → 8556), as the emulator picks it when `-grpc` is not given.
 */
export function defaultGrpcPort(consolePort: number): number {
  return consolePort + 3000;
}

let definition: PackageDefinition | null = null;

/** The protos, loaded once, as every client and server here reads them (field names as in the proto). */
export function loadEmulatorProtos(): PackageDefinition {
  definition ??= loadSync([...PROTO_FILES], { includeDirs: [PROTO_DIR], keepCase: true, longs: Number, enums: String, defaults: true });
  return definition;
}

export class GrpcPortInUseError extends Error {
  override name = 'GrpcPortInUseError';
  constructor(readonly port: number, readonly host: string, cause: string) {
    super(`cannot serve the emulator gRPC API on ${host}:${port}: ${cause}`);
  }
}

export interface GrpcServerOptions {
  device: SimDroid;
  /** 0 picks a free port. */
  port: number;
  /** A bearer token every call must carry (the emulator's -grpc-use-token); none: no auth, as `-grpc` alone. */
  token?: string;
  /** setVmState(SHUTDOWN): what stopping the emulator means for the host. */
  onShutdown?: () => void;
  log?: (m: string) => void;
}

export interface EmulatorGrpcServer {
  readonly port: number;
  /** Ends open streams and closes the port. */
  stop(): Promise<void>;
}

type ServicePackage = { android: { emulation: { control: Record<string, { service: ServiceDefinition }> } } };

/** Serves EmulatorController and SnapshotService for `device` on 127.0.0.1 (loopback only, as the emulator by default). */
export async function startGrpcServer(o: GrpcServerOptions): Promise<EmulatorGrpcServer> {
  const host = '127.0.0.1';
  const log = o.log ?? (() => {});
  const auth = bearerAuth(o.token);
  const streams = new Set<() => void>();
  const control = (loadPackageDefinition(loadEmulatorProtos()) as unknown as ServicePackage).android.emulation.control;
  // Screenshots of big screens are large: lift grpc-js's 4 MB default on what we send.
  const server = new Server({ 'grpc.max_send_message_length': -1, 'grpc.max_receive_message_length': 4 * 1024 * 1024 });
  // Screenshots are serialized as parts that grpc-js copies into its own framed buffer, the pixels
  // copied once (image-message.ts).
  const controllerService = { ...control.EmulatorController!.service };
  const serializeImage = imageSerializer(controllerService.getScreenshot!.responseSerialize as (v: object) => Buffer);
  for (const m of ['getScreenshot', 'streamScreenshot'] as const) {
    controllerService[m] = { ...controllerService[m]!, responseSerialize: serializeImage as unknown as (v: ImageReply) => Buffer };
  }
  server.addService(controllerService, emulatorController({
    device: o.device, auth, log, startedAt: performance.now(), onShutdown: o.onShutdown ?? (() => {}), streams,
  }));
  server.addService(control.SnapshotService!.service, snapshotService(o.device, auth, log));
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${host}:${o.port}`, ServerCredentials.createInsecure(), (err, bound) => {
      if (err) reject(new GrpcPortInUseError(o.port, host, err.message));
      else resolve(bound);
    });
  });
  let stopping: Promise<void> | null = null;
  return {
    port,
    stop: () => {
      stopping ??= (async () => {
        for (const end of [...streams]) end();
        server.forceShutdown();
      })();
      return stopping;
    },
  };
}
