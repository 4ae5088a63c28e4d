/**
 * The environment API for outside agents (issue 30), all in one run on one machine:
 *  - a step through awb_env (Python, the Session API) against `awb env serve`: tree only, a 540×1200 PNG (decoded; and
 *    kept as bytes), and what AndroidWorld's get_state gives (full-size raw RGB + UI elements);
 *  - Gymnasium's vector env of 8 sessions on one connection, tree only: steps/s;
 *  - the AndroidWorld-style step through AndroidWorld's own stack (android_env's EmulatorSimulator on grpcio + the adb
 *    CLI for `uiautomator dump`, bench/grpc_step_client.py) on a SimDroid served as an emulator: touch + RGBA screenshot +
 *    dump, i.e. its get_state + execute_action.
 *   npm run bench -- env        (needs the venv, Debian's adb)
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { fmt, stats } from './stats.js';
import { benchStepAndroidWorldStack, grpcBenchSetup } from './grpc.js';
import { requirePython } from '../test/python-env.js';

const run = promisify(execFile);

async function startEnvServer(home: string): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [fileURLToPath(new URL('../bin/awb.js', import.meta.url)), 'env', 'serve', '--json', '--no-adb', '--port', '0',
    '--devices', '12', '--db', join(home, 'env.db')], { env: { ...process.env, AWB_HOME: home }, stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`awb env serve exited with ${code}`)));
  });
  return { url: (JSON.parse(line) as { url: string }).url, stop: () => new Promise((r) => (child.once('exit', () => r()), child.kill('SIGTERM'))) };
}

export async function benchEnv(): Promise<Record<string, unknown>> {
  const results: Record<string, unknown> = { loadavgAtStart: loadavg()[0] };
  const home = mkdtempSync(join(tmpdir(), 'awb-bench-env-'));
  try {
    const server = await startEnvServer(home);
    let ours: Record<string, any>;
    try {
      const { stdout } = await run(requirePython(), [fileURLToPath(new URL('./env_step.py', import.meta.url)), server.url, '300', '8'], {
        env: { ...process.env, OMP_NUM_THREADS: '1' }, maxBuffer: 16 << 20,
      });
      ours = JSON.parse(stdout.trim().split('\n').pop()!);
    } finally {
      await server.stop();
    }
    const names: Record<string, string> = {
      tree_only: 'awb_env step, tree only (XML)', png_half_decoded: 'awb_env step, 540x1200 PNG decoded + XML',
      png_half_bytes: 'awb_env step, 540x1200 PNG as bytes + XML', raw_full_elements: 'awb_env step, 1080x2400 raw RGB + UI elements (AndroidWorld\'s get_state)',
    };
    for (const [k, name] of Object.entries(names)) {
      results[name] = stats(ours[k] as number[]);
      console.log(`${name}: ${fmt(stats(ours[k] as number[]))}`);
    }
    const vec = ours.vector8_tree_only as { steps_per_s: number; steps: number };
    results['awb_env vector env, 8 sessions, tree only'] = vec;
    console.log(`awb_env vector env, 8 sessions, tree only: ${vec.steps_per_s.toFixed(0)} steps/s (${vec.steps} steps)`);

    const [consolePort, grpcPort, adbServer] = [21854, 21954, 45237];
    const { close } = await grpcBenchSetup(consolePort, grpcPort, adbServer, home);
    let aw: Record<string, unknown>;
    try {
      aw = await benchStepAndroidWorldStack(consolePort, grpcPort, adbServer, home, 40);
    } finally {
      await close();
    }
    Object.assign(results, aw);
    const awStep = (aw['AndroidWorld-style step, AndroidWorld stack (android_env EmulatorSimulator on grpcio + adb CLI)'] as { median: number }).median;
    for (const name of Object.values(names)) {
      const ratio = awStep / (results[name] as { median: number }).median;
      results[`ratio: android_env step / ${name}`] = ratio;
      console.log(`android_env's AndroidWorld-style step / ${name}: ${ratio.toFixed(1)}x`);
    }
    results.loadavgAtEnd = loadavg()[0];
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  return results;
}
