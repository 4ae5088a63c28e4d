import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli as awb } from '../helpers/cli.js';
import { requireSimDroid } from '../../core/cli/subgoal-recorder.js';
import { UsageError } from '../../core/cli/args.js';
import type { Device } from '../../core/device/device.js';
import { createRun, getSubgoalProgress, listRuns, loadTrajectory, openStore, type EpisodeId, type RunId, type SubgoalProgress } from '../../core/store/index.js';
import { episodeIds } from '../../core/store/queries.js';
import { instantiate } from '../../core/tasks/instance.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { tempAwbHome } from '../store/helpers.js';
import { adbRig } from '../device/adb-env.js';

// Recordings go to a temp store, never the user's ~/.awb.
const tmp = tempAwbHome('awb-subgoals-cli-');
const dbPath = join(tmp.dir, 'store.db');

function withStore<T>(fn: (db: ReturnType<typeof openStore>) => T): T {
  const db = openStore(dbPath);
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

describe('awb run --subgoals', () => {
  it('records the ground-truth subgoal progress of the episode, one count per step', async () => {
    const r = await awb('run', '--task', 'ContactsAddContact', '--seed', '3', '--subgoals', '--json', '--db', dbPath);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.out) as { episode: EpisodeId; steps: number; status: string; subgoals: { names: string[]; done: number[] } };
    const instance = instantiate(getTemplate('ContactsAddContact'), 3);
    expect(out.status).toBe('success');
    expect(out.subgoals.names).toEqual(instance.template.subgoals(instance.params).map((s) => s.name));
    expect(out.subgoals.done).toHaveLength(out.steps);
    expect(out.subgoals.done.at(-1)).toBe(out.subgoals.names.length);
    expect(withStore((db) => getSubgoalProgress(db, out.episode))).toEqual(out.subgoals);

    const text = await awb('run', '--task', 'ContactsAddContact', '--seed', '3', '--subgoals', '--db', dbPath);
    expect(text.out).toContain(`Subgoals reached: ${out.subgoals.names.length}/${out.subgoals.names.length} (${out.subgoals.names.join(' → ')})`);
  });

  it('records none without the flag', async () => {
    const out = JSON.parse((await awb('run', '--task', 'ContactsAddContact', '--seed', '3', '--json', '--db', dbPath)).out) as { episode: EpisodeId };
    expect(out).not.toHaveProperty('subgoals');
    expect(withStore((db) => getSubgoalProgress(db, out.episode))).toBeNull();
  });

  it('is refused without a recording', async () => {
    const noRecord = await awb('run', '--task', 'ContactsAddContact', '--subgoals', '--no-record', '--db', dbPath);
    expect(noRecord.code).toBe(2);
    expect(noRecord.err).toContain('--subgoals stores the progress with the recorded episode; drop --no-record');
  });

  it('on a SimDroid served over adb records the same progress as on the embedded one', async () => {
    const rig = await adbRig();
    try {
      const r = await awb('run', '--task', 'ContactsAddContact', '--seed', '3', '--subgoals', '--json', '--db', dbPath,
        '--device', rig.serial, '--adb-port', String(rig.server.port), '--console-token', rig.tokenPath);
      expect(r.code, r.err).toBe(0);
      const out = JSON.parse(r.out) as { episode: EpisodeId; subgoals: SubgoalProgress };
      const embedded = JSON.parse((await awb('run', '--task', 'ContactsAddContact', '--seed', '3', '--subgoals', '--json', '--db', dbPath)).out) as { subgoals: SubgoalProgress };
      expect(out.subgoals.done.at(-1)).toBe(out.subgoals.names.length);
      expect(out.subgoals).toEqual(embedded.subgoals);
      expect(withStore((db) => getSubgoalProgress(db, out.episode))).toEqual(out.subgoals);
    } finally {
      await rig.close();
    }
  });

  it('is refused on a device that is not a SimDroid, naming it and what it reported', async () => {
    const phone = (maker: string): Device => ({
      serial: 'R5CT1234', shell: (cmd: string) => Promise.resolve({ stdout: cmd === 'getprop ro.product.manufacturer' ? `${maker}\n` : '', stderr: '', exitCode: 0 }),
    }) as unknown as Device; // only shell() is read
    await expect(requireSimDroid(phone('samsung'))).rejects.toThrow(UsageError);
    await expect(requireSimDroid(phone('samsung'))).rejects.toThrow('R5CT1234 is not a SimDroid (ro.product.manufacturer "samsung")');
    await expect(requireSimDroid(phone('SimDroid'))).resolves.toBeUndefined();
  });
});

describe('awb suite run --subgoals', () => {
  let runId: RunId;
  it('records every episode\'s subgoal progress in process, and keeps the flag in the run\'s config', async () => {
    const r = await awb('suite', 'run', '--split', 'all', '--part', 'test', '--policy', 'oracle', '--limit', '3', '--subgoals', '--json', '--db', dbPath);
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.out) as { run: RunId; episodes: number; subgoals?: boolean };
    runId = summary.run;
    expect(summary).toMatchObject({ episodes: 3, subgoals: true });
    withStore((db) => {
      expect(listRuns(db).find((x) => x.id === runId)!.config).toMatchObject({ subgoals: true });
      const ids = episodeIds(db, { runId });
      expect(ids).toHaveLength(3);
      for (const id of ids) {
        const t = loadTrajectory(db, id);
        const p = getSubgoalProgress(db, id)!;
        expect(p.done).toHaveLength(t.steps.length);
        if (t.episode.status === 'success' && p.names.length) expect(p.done.at(-1)).toBe(p.names.length);
      }
    });
  });

  it('records the same progress from the parallel workers as in process, for the same episodes', async () => {
    const r = await awb('suite', 'run', '--split', 'all', '--part', 'test', '--policy', 'oracle', '--limit', '3', '--parallel', '2', '--subgoals', '--json', '--db', dbPath);
    expect(r.code, r.err).toBe(0);
    const parallel = (JSON.parse(r.out) as { run: RunId; episodes: number; parallel: number; subgoals?: boolean });
    expect(parallel).toMatchObject({ episodes: 3, parallel: 2, subgoals: true });
    withStore((db) => {
      const byInstance = (run: RunId) => new Map(episodeIds(db, { runId: run }).map((id) => {
        const t = loadTrajectory(db, id);
        return [`${t.instance.templateId}#${t.instance.seed}`, { progress: getSubgoalProgress(db, id), steps: t.steps.map((s) => s.description) }];
      }));
      const here = byInstance(runId);
      const there = byInstance(parallel.run);
      expect([...there.keys()].sort()).toEqual([...here.keys()].sort());
      for (const [key, ep] of there) {
        expect(ep.progress, key).not.toBeNull();
        expect(ep, key).toEqual(here.get(key));
      }
    });
  });

  it('refuses adb devices, creating no run', async () => {
    const runs = () => withStore((db) => listRuns(db).length);
    const before = runs();
    const adb = await awb('suite', 'run', '--limit', '2', '--device', 'emulator-5554', '--subgoals', '--db', dbPath);
    expect(adb.code).toBe(2);
    expect(adb.err).toContain('adb devices (--device) do not report subgoal progress (a real device has none); drop --device');
    expect(runs()).toBe(before);
  });

  it('a resumed subgoal run captures progress on the parallel workers, refuses --device, and --resume takes no --subgoals', async () => {
    // A subgoal run that was killed before any episode: its resume runs all of them.
    const killed = withStore((db) => createRun(db, {
      kind: 'suite', name: 'killed', config: { split: 'all', part: 'test', policy: 'oracle', limit: 2, screenshots: 'none', subgoals: true, parallel: 2 },
    }).id);
    const adb = await awb('suite', 'run', '--resume', String(killed), '--device', 'emulator-5554', '--db', dbPath);
    expect(adb.code).toBe(2);
    expect(adb.err).toContain(`Run ${killed} records subgoal progress (--subgoals), so it reads SimDroid's ground truth`);
    const resumed = await awb('suite', 'run', '--resume', String(killed), '--parallel', '2', '--json', '--db', dbPath);
    expect(resumed.code, resumed.err).toBe(0);
    expect(JSON.parse(resumed.out)).toMatchObject({ run: killed, episodes: 2, subgoals: true });
    withStore((db) => {
      const ids = episodeIds(db, { runId: killed });
      expect(ids).toHaveLength(2);
      for (const id of ids) expect(getSubgoalProgress(db, id)!.done).toHaveLength(loadTrajectory(db, id).steps.length);
    });
    const again = await awb('suite', 'run', '--resume', String(runId), '--subgoals', '--db', dbPath);
    expect(again.code).toBe(2);
    expect(again.err).toContain('drop --split, --part, --policy and --subgoals');
  });
});
