import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../core/cli/main.js';
import { openStoreReadonly } from '../../core/store/index.js';
import { startEmulatorHost } from '../../emulators/simdroid/host.js';
import { AdbServer } from '../../core/device/adb/server.js';
import { runOnDevices } from '../../core/rollout/device-pool.js';
import { OraclePolicy } from '../../core/episode/policies/oracle.js';
import { TASKS } from '../../core/tasks/registry.js';
import { splitInstances } from '../../core/tasks/splits.js';
import { adbRig, freshPorts, type AdbRig } from './adb-env.js';

/**
 * Faults: the adb server dying mid-suite, a device vanishing. The episode caught in it is an
 * environment error (not a failure the agent is blamed for), the device is reconnected, the suite
 * goes on.
 */
// Rigs and temp folders are released even when a test fails (no adb server left running).
const temps: string[] = [];
const rigs: AdbRig[] = [];
afterAll(async () => {
  for (const r of rigs) await r.close();
  temps.forEach((d) => rmSync(d, { recursive: true, force: true }));
});
const finished = (db: string) => {
  try {
    const ro = openStoreReadonly(db);
    try {
      return ro.prepare("SELECT count(*) FROM episodes WHERE status != 'running'").pluck().get() as number;
    } finally {
      ro.close();
    }
  } catch {
    return 0;
  }
};

/** `awb suite run` of 6 test instances on a fresh rig's device, recorded in a store of its own; not awaited. */
async function suiteOnRig(consoleToken: (rig: AdbRig, dir: string) => string) {
  const rig = await adbRig();
  rigs.push(rig);
  const dir = mkdtempSync(join(tmpdir(), 'awb-faults-'));
  temps.push(dir);
  const db = join(dir, 'trajectories.db');
  const out: string[] = [];
  const errs: string[] = [];
  const suite = main(['suite', 'run', '--split', 'all', '--part', 'test', '--policy', 'oracle', '--limit', '6', '--screenshots', 'none',
    '--device', rig.serial, '--adb-port', String(rig.server.port), '--console-token', consoleToken(rig, dir), '--db', db, '--json'],
  { out: (l) => out.push(l), err: (l) => errs.push(l) });
  return { rig, db, out, errs, suite };
}

describe('adb faults', () => {
  it('survives the adb server being killed mid-suite', async () => {
    const { rig, db, out, errs, suite } = await suiteOnRig((rig) => rig.tokenPath);
    for (let i = 0; i < 400 && finished(db) < 1; i++) await new Promise((r) => setTimeout(r, 25));
    execFileSync('adb', ['-P', String(rig.server.port), 'kill-server'], { stdio: 'ignore' });
    expect(await suite).toBe(0);
    const summary = JSON.parse(out.at(-1)!);
    expect(errs).toEqual([]);
    expect(summary.episodes).toBe(6);
    expect(summary.errors).toBeGreaterThanOrEqual(1);
    expect(summary.successes).toBe(6 - summary.errors);
    expect(summary.failures[0].error.name).toBe('EnvironmentError');
    // The device is back on the (restarted) server.
    expect((await rig.server.devices()).find((d) => d.serial === rig.serial)?.state).toBe('device');

    // Issue 16, D5: environment errors are not the agent's failures (the rate was successes over all episodes),
    // and a resume runs them again (it took them as finished); the errored attempts stay in the run.
    expect(summary.successRate).toBe(1);
    const again: string[] = [];
    const resumed = await main(['suite', 'run', '--resume', String(summary.run), '--device', rig.serial, '--adb-port', String(rig.server.port),
      '--console-token', rig.tokenPath, '--db', db, '--json'], { out: (l) => again.push(l), err: (l) => errs.push(l) });
    expect(resumed).toBe(0);
    const second = JSON.parse(again.at(-1)!);
    expect({ episodes: second.episodes, successes: second.successes, skipped: second.skipped })
      .toEqual({ episodes: summary.errors, successes: summary.errors, skipped: 6 - summary.errors });
    const ro = openStoreReadonly(db);
    try {
      const statuses = ro.prepare('SELECT status, count(*) AS n FROM episodes WHERE run_id = ? GROUP BY status ORDER BY status').all(summary.run);
      expect(statuses).toEqual([{ status: 'error', n: summary.errors }, { status: 'success', n: 6 }]);
    } finally {
      ro.close();
    }
  });

  // Issue 16, D6: it printed "N episodes were not run" but recorded the run as finished and exited 0.
  it('records a run whose devices were all lost as interrupted and exits non-zero', async () => {
    // No console token: every reset is refused, so the pool gives the device up after a few episodes.
    const { db, out, errs, suite } = await suiteOnRig((_rig, dir) => join(dir, 'no-such-token'));
    expect(await suite).toBe(1);
    const summary = JSON.parse(out.at(-1)!);
    expect(summary.status).toBe('interrupted');
    expect(summary.notRun).toBeGreaterThan(0);
    expect(errs.join('\n')).toMatch(/episodes were not run: no device left; continue with --resume/);
    const ro = openStoreReadonly(db);
    try {
      expect(ro.prepare('SELECT status FROM runs WHERE id = ?').pluck().get(summary.run)).toBe('interrupted');
    } finally {
      ro.close();
    }
  });

  it('goes on with the other devices when one disappears for good', async () => {
    const rig = await adbRig();
    rigs.push(rig);
    const ports = freshPorts();
    const second = await startEmulatorHost({ port: ports.console, authTokenPath: rig.tokenPath });
    const serial2 = await rig.server.connect(second.address);
    const server = new AdbServer({ port: rig.server.port });
    const devices = [server.device(rig.serial, { consoleTokenPath: rig.tokenPath }), server.device(serial2, { consoleTokenPath: rig.tokenPath })];
    const instances = splitInstances(TASKS, 'all', 'test').slice(0, 8);
    const lost: string[] = [];
    let stopped = false;
    const { results, unrun } = await runOnDevices({
      devices, instances, policy: () => new OraclePolicy(), reconnectTimeoutMs: 2000,
      onEpisode: (_i, _r, device) => {
        if (!stopped && device.serial === serial2) {
          stopped = true;
          void second.stop();
        }
      },
      onDeviceLost: (device) => lost.push(device.serial),
    });
    expect(lost).toEqual([serial2]);
    expect(unrun).toEqual([]);
    const statuses = [...results.values()].map((r) => r.status);
    expect(statuses.filter((s) => s === 'success').length).toBeGreaterThanOrEqual(6);
    expect(statuses.every((s) => s !== 'failure')).toBe(true);
  });

  // Issue 16, D4: adb keeps a lost host:port transport as `offline`; `adb connect` then does nothing, and the
  // restarted SimDroid was never reached again ("still offline after 30000 ms").
  it('reconnects a host:port device restarted on the same port', async () => {
    const rig = await adbRig();
    rigs.push(rig);
    expect((await rig.device.shell('echo before')).stdout.trim()).toBe('before');
    const port = Number(rig.serial.split(':')[1]) - 1; // the console port; adbd listens on the next one
    await rig.host.stop();
    const deadline = Date.now() + 15_000;
    while ((await rig.server.devices()).find((d) => d.serial === rig.serial)?.state === 'device' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
    }
    expect((await rig.server.devices()).find((d) => d.serial === rig.serial)?.state).not.toBe('device');
    const again = await startEmulatorHost({ port, authTokenPath: rig.tokenPath });
    try {
      await rig.device.reconnect(20_000);
      expect((await rig.device.shell('echo after')).stdout.trim()).toBe('after');
      expect((await rig.server.devices()).find((d) => d.serial === rig.serial)?.state).toBe('device');
    } finally {
      await again.stop();
    }
  });

  it('stops using a device whose episodes keep failing even though it reconnects', async () => {
    const rig = await adbRig();
    rigs.push(rig);
    // No console token: every reset (a snapshot load through the console) is refused.
    const broken = rig.server.device(rig.serial, { consoleTokenPath: join(dirname(rig.tokenPath), 'no-such-token') });
    const lost: string[] = [];
    const { results, unrun } = await runOnDevices({
      devices: [broken], instances: splitInstances(TASKS, 'all', 'test').slice(0, 6), policy: () => new OraclePolicy(),
      onDeviceLost: (_d, e) => lost.push(e.name),
    });
    expect(lost).toEqual(['DeviceKeepsFailingError']);
    expect(results.size).toBe(3);
    expect(unrun).toHaveLength(3);
    expect([...results.values()][0]!.error?.message).toContain('authentication required');
  });
});
