import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { freshPorts } from './adb-env.js';
import { alive } from '../../core/cli/emulator.js';
import { main } from '../../core/cli/main.js';
import { credentials, loadPackageDefinition, Metadata, type Client, type ServiceError } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { freePort } from '../emulators/adb/helpers.js';

/** `awb emulator start|list|stop` as a user runs them: separate processes, state under AWB_HOME. */
const AWB = join(import.meta.dirname, '../../bin/awb.js');
const home = mkdtempSync(join(tmpdir(), 'awb-emu-cli-'));
const runningDir = join(home, 'avd-running');
const env = { ...process.env, AWB_HOME: home, HOME: home, AWB_AVD_RUNNING_DIR: runningDir };

/** getStatus over gRPC with a plain grpc-js client from the proto files, with or without a bearer token. */
function grpcStatus(port: number, token?: string): Promise<{ booted: boolean }> {
  const defs = loadSync('emulator_controller.proto', { includeDirs: [join(import.meta.dirname, '../../emulators/simdroid/grpc/proto')], keepCase: true, defaults: true });
  const Ctor = (loadPackageDefinition(defs) as unknown as { android: { emulation: { control: { EmulatorController: new (a: string, c: unknown) => Client } } } }).android.emulation.control.EmulatorController;
  const client = new Ctor(`127.0.0.1:${port}`, credentials.createInsecure()) as unknown as Client & { getStatus(r: object, m: Metadata, cb: (e: ServiceError | null, v: { booted: boolean }) => void): void };
  const md = new Metadata();
  if (token) md.set('authorization', `Bearer ${token}`);
  return new Promise((resolve, reject) => client.getStatus({}, md, (e, v) => (client.close(), e ? reject(e) : resolve(v))));
}
const iniOf = (path: string) => Object.fromEntries(readFileSync(path, 'utf8').trim().split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
const awb = (...args: string[]) => spawnSync(process.execPath, [AWB, ...args], { env, encoding: 'utf8' });

async function until(what: string, ok: () => boolean, ms = 10_000): Promise<void> {
  for (const end = Date.now() + ms; !ok(); ) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('awb emulator', () => {
  it('starts instances in their own processes, lists, stops one, and the rest go when the supervisor is killed', async () => {
    const port = freshPorts().console;
    const grpc = await freePort();
    const supervisor = spawn(process.execPath, [AWB, 'emulator', 'start', '--count', '2', '--port', String(port), '--grpc', String(grpc), '--grpc-use-token', '--json'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const lines = createInterface({ input: supervisor.stdout! })[Symbol.asyncIterator]();
      const infos = [JSON.parse((await lines.next()).value as string), JSON.parse((await lines.next()).value as string)];
      expect(infos.map((i) => i.port).sort()).toEqual([port, port + 2]);
      const pids = infos.map((i) => i.pid as number);
      expect(new Set([...pids, supervisor.pid]).size).toBe(3); // one process each
      expect(pids.every(alive)).toBe(true);

      // Each advertises itself as the emulator does; gRPC wants the token written there.
      expect(infos.map((i) => i.grpcPort).sort()).toEqual([grpc, grpc + 2]);
      const first = infos.find((i) => i.port === port);
      expect(first.discoveryFile).toBe(join(runningDir, `pid_${first.pid}.ini`));
      const ini = iniOf(first.discoveryFile);
      expect(ini).toMatchObject({ 'port.serial': String(port), 'port.adb': String(port + 1), 'grpc.port': String(first.grpcPort), 'avd.name': 'SimDroid' });
      expect(ini['grpc.token']).toMatch(/^[\w-]{43}$/);
      expect(await grpcStatus(first.grpcPort, ini['grpc.token'])).toMatchObject({ booted: true });
      await expect(grpcStatus(first.grpcPort)).rejects.toMatchObject({ code: 16 }); // UNAUTHENTICATED

      // The real adb tool reaches an instance.
      const adbPort = await freePort();
      try {
        execFileSync('adb', ['-P', String(adbPort), 'connect', infos[0].address], { encoding: 'utf8' });
        expect(execFileSync('adb', ['-P', String(adbPort), '-s', infos[0].address, 'shell', 'echo', 'hi'], { encoding: 'utf8' })).toBe('hi\n');
      } finally {
        execFileSync('adb', ['-P', String(adbPort), 'kill-server'], { stdio: 'ignore' });
      }

      // A port an instance holds is refused, starting nothing.
      const clash = awb('emulator', 'start', '--port', String(port));
      expect(clash.status).toBe(2);
      expect(clash.stderr).toMatch(new RegExp(`${port}|EADDRINUSE|in use`));

      const listed = awb('emulator', 'list');
      expect(listed.status).toBe(0);
      for (const i of infos) expect(listed.stdout).toContain(i.serial);

      const stopped = awb('emulator', 'stop', '--port', String(port));
      expect(stopped.stdout.trim()).toBe(`stopped ${infos.find((i) => i.port === port).serial}`);
      const [gone, left] = infos[0].port === port ? [infos[0], infos[1]] : [infos[1], infos[0]];
      // `stop` waits up to 5 s; on a loaded 2-core machine the instance may take a little longer to exit.
      await until('the stopped instance to exit', () => !alive(gone.pid));
      expect(existsSync(gone.discoveryFile)).toBe(false);
      expect(alive(left.pid)).toBe(true);
      expect(awb('emulator', 'list').stdout).not.toContain(gone.serial);

      // kill -9 gives the supervisor no chance to pass a signal on: the instance notices its
      // channel close and stops by itself; `list` prunes the stale state file.
      supervisor.kill('SIGKILL');
      await until('the orphaned instance to stop', () => !alive(left.pid));
      expect(awb('emulator', 'list').stdout.trim()).toBe('No SimDroid emulators are running.');
      expect(readdirSync(join(home, 'emulators'))).toEqual([]);
      expect(readdirSync(runningDir)).toEqual([]); // the -9'd supervisor's instance removed its own on the way out
    } finally {
      supervisor.kill('SIGKILL');
      awb('emulator', 'stop');
    }
  }, 120_000); // ~10 s on an idle machine; a shared 2-core box under load needs far longer

  it('refuses an odd port, starting nothing', async () => {
    // In process: the refusal comes before anything starts (a port already taken is refused in the test above).
    const err: string[] = [];
    expect(await main(['emulator', 'start', '--port', '5555'], { out: () => {}, err: (l) => err.push(l) })).toBe(2);
    expect(err.join('\n')).toContain('--port must be even');
  });
});
