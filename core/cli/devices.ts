import { z } from 'zod';
import { launchAvd, listAvds } from '../device/adb/avd.js';
import { openAdbServer, type AdbTarget } from '../devices/provider.js';
import { intArg, parseFlags, UsageError } from './args.js';
import { table } from './format.js';
import type { Io } from './main.js';

/**
 * `awb devices [connect|disconnect]` (the adb server's devices), `awb avd list|launch`, and how
 * run and suite reach a device behind adb.
 */
const AdbFlags = { 'adb-port': { type: 'string' }, json: { type: 'boolean' } } as const;
const AdbValues = z.object({ 'adb-port': intArg('--adb-port').optional(), json: z.boolean().optional() });

/** `--grpc PORT` or `--grpc HOST:PORT` (a tunnel's local end): the emulator's gRPC endpoint. */
const grpcArg = z.string().regex(/^(?:[\w.-]+:)?\d{1,5}$/, 'PORT or HOST:PORT, got something else').transform((s) => {
  const m = /^(?:([\w.-]+):)?(\d+)$/.exec(s)!;
  return { host: m[1] ?? '127.0.0.1', port: Number(m[2]) };
}).refine((e) => e.port >= 1 && e.port <= 65535, 'the port must be 1–65535');

/** The flags run and suite share to reach a device behind adb (core/devices/provider.ts opens it). */
export const targetFlags = {
  'adb-port': { type: 'string' }, 'console-token': { type: 'string' }, grpc: { type: 'string' }, 'grpc-token': { type: 'string' },
} as const;
export const TargetValues = {
  'adb-port': intArg('--adb-port').optional(), 'console-token': z.string().min(1).optional(),
  grpc: grpcArg.optional(), 'grpc-token': z.string().min(1).optional(),
};
export const targetOf = (v: {
  'adb-port'?: number | undefined; 'console-token'?: string | undefined; grpc?: { host: string; port: number } | undefined; 'grpc-token'?: string | undefined;
}): AdbTarget => ({
  adbPort: v['adb-port'], consoleToken: v['console-token'],
  grpc: v.grpc ? { ...v.grpc, ...(v['grpc-token'] ? { token: v['grpc-token'] } : {}) } : undefined,
});

export async function devicesCommand(argv: string[], io: Io): Promise<number> {
  // `awb devices --json` lists, as `awb devices` does: a flag first is not a subcommand.
  const [sub = 'list', ...rest] = argv[0]?.startsWith('-') ? ['list', ...argv] : argv;
  const { values, positionals } = parseFlags(rest, AdbFlags, AdbValues);
  const server = openAdbServer(values['adb-port']);
  switch (sub) {
    case 'list': {
      const list = await server.devices();
      if (values.json) io.out(JSON.stringify(list));
      else io.out(list.length ? table([['SERIAL', 'STATE'], ...list.map((d) => [d.serial, d.state])]) : 'No devices. Start one with `awb emulator start`, or `awb devices connect HOST:PORT`.');
      return 0;
    }
    case 'connect': {
      const address = positionals[0];
      if (!address) throw new UsageError('awb devices connect HOST:PORT');
      const serial = await server.connect(address);
      io.out(values.json ? JSON.stringify({ serial }) : `connected to ${serial}`);
      return 0;
    }
    case 'disconnect': {
      const address = positionals[0];
      if (!address) throw new UsageError('awb devices disconnect HOST:PORT');
      await server.disconnect(address);
      io.out(values.json ? JSON.stringify({ disconnected: address }) : `disconnected ${address}`);
      return 0;
    }
    default:
      throw new UsageError('awb devices [list] | awb devices connect HOST:PORT | awb devices disconnect HOST:PORT  [--adb-port P] [--json]');
  }
}

const LAUNCH_USAGE = 'awb avd launch NAME [--port EVEN_PORT] [--grpc PORT [--grpc-use-token]] [--window] [--adb-port P]';

export async function avdCommand(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'list': {
      const { values } = parseFlags(rest, { json: { type: 'boolean' } }, z.object({ json: z.boolean().optional() }));
      const avds = await listAvds();
      io.out(values.json ? JSON.stringify(avds) : avds.join('\n') || 'No AVDs.');
      return 0;
    }
    case 'launch': {
      const { values, positionals } = parseFlags(rest, {
        ...AdbFlags, port: { type: 'string' }, grpc: { type: 'string' }, 'grpc-use-token': { type: 'boolean' }, window: { type: 'boolean' },
      }, AdbValues.extend({
        port: intArg('--port').default(5554), grpc: intArg('--grpc').optional(), 'grpc-use-token': z.boolean().optional(), window: z.boolean().optional(),
      }));
      const name = positionals[0];
      if (!name) throw new UsageError(LAUNCH_USAGE);
      if (values['grpc-use-token'] && !values.grpc) throw new UsageError('--grpc-use-token needs --grpc PORT');
      const avd = await launchAvd({
        name, port: values.port, server: openAdbServer(values['adb-port']), headless: !values.window,
        ...(values.grpc ? { grpcPort: values.grpc } : {}), ...(values['grpc-use-token'] ? { grpcToken: true } : {}),
      });
      const grpc = values.grpc ? `, gRPC on 127.0.0.1:${values.grpc}${values['grpc-use-token'] ? ' (token in its discovery file)' : ''}` : '';
      io.out(values.json
        ? JSON.stringify({ serial: avd.serial, pid: avd.process.pid, readOnly: avd.readOnly, grpcPort: values.grpc ?? null })
        : `${name} booted as ${avd.serial} (pid ${avd.process.pid}${avd.readOnly ? ', -read-only: another instance of this AVD runs' : ''}${grpc}); it keeps running after this command.`);
      avd.process.unref();
      return 0;
    }
    default:
      throw new UsageError(`awb avd list | ${LAUNCH_USAGE}`);
  }
}
