/**
 * Our own task suite over adb (issue 20's "our own suite still passes on SimDroid in-process and
 * over adb"): every template's oracle, seeds 0 and 1, on a SimDroid in its own process driven through
 * Debian's real adb server and adbkit (the AdbDevice a real emulator gets), beside the same episodes
 * on an in-process SimDroid. Reports the successes of each, the templates that differ, and the wall
 * time per episode.
 *   npm run bench -- suite-adb      (needs Debian's `adb` on PATH; several minutes)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdbServer } from '../core/device/adb/server.js';
import type { Device } from '../core/device/device.js';
import { OraclePolicy } from '../core/episode/policies/oracle.js';
import { runEpisode } from '../core/episode/runner.js';
import { instantiate } from '../core/tasks/instance.js';
import { TASKS } from '../core/tasks/registry.js';
import { SimDroid } from '../emulators/simdroid/simdroid.js';
import { startEmulatorProcess } from './adb.js';
import { fmt, stats } from './stats.js';

const SEEDS = [0, 1];

async function suite(d: Device, label: string): Promise<{ solved: number; episodes: number; failed: string[]; ms: number[] }> {
  const failed: string[] = [];
  const ms: number[] = [];
  let solved = 0;
  for (const t of TASKS) {
    for (const seed of SEEDS) {
      const t0 = performance.now();
      try {
        const r = await runEpisode({ device: d, instance: instantiate(t, seed), policy: new OraclePolicy() });
        if (r.success) solved++;
        else failed.push(`${t.id} seed ${seed}: ${r.status}${r.terminatedBy ? ` (${r.terminatedBy})` : ''}${r.error ? `: ${r.error.name}: ${r.error.message}` : ''}`);
      } catch (e) {
        failed.push(`${t.id} seed ${seed}: ${(e as Error).name}: ${(e as Error).message}`);
      }
      ms.push(performance.now() - t0);
    }
  }
  console.log(`${label}: ${solved} of ${TASKS.length * SEEDS.length} oracle episodes succeed; episode wall ${fmt(stats(ms))}`);
  for (const f of failed) console.log(`  not solved: ${f}`);
  return { solved, episodes: TASKS.length * SEEDS.length, failed, ms };
}

export async function benchSuiteAdb(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'awb-bench-suite-adb-'));
  const host = await startEmulatorProcess(21654, dir);
  const adbPort = 45137;
  execFileSync('adb', ['-P', String(adbPort), 'start-server'], { stdio: 'ignore' });
  const server = new AdbServer({ port: adbPort });
  const local = new SimDroid();
  try {
    const serial = await server.connect(host.address);
    const inProcess = await suite(local, 'in-process SimDroid');
    // The instance process runs with HOME=dir, so its console token is there (resets load snapshots through the console).
    const device = server.device(serial, { consoleTokenPath: join(dir, '.emulator_console_auth_token') });
    const overAdb = await suite(device, 'SimDroid over adb (own process, real adb server, adbkit)');
    const differ = overAdb.failed.filter((f) => !inProcess.failed.includes(f));
    console.log(`templates × seeds solved in process but not over adb: ${differ.length}`);
    return {
      templates: TASKS.length, seeds: SEEDS,
      inProcess: { solved: inProcess.solved, episodes: inProcess.episodes, failed: inProcess.failed, episodeMs: stats(inProcess.ms) },
      overAdb: { solved: overAdb.solved, episodes: overAdb.episodes, failed: overAdb.failed, episodeMs: stats(overAdb.ms) },
      onlyOverAdb: differ,
    };
  } finally {
    local.close();
    try {
      execFileSync('adb', ['-P', String(adbPort), 'kill-server'], { stdio: 'ignore' });
    } catch {
      // already gone
    }
    await host.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
