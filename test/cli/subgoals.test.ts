import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../core/cli/main.js';
import { getSubgoalProgress, listRuns, loadTrajectory, openStore, type EpisodeId, type RunId } from '../../core/store/index.js';
import { episodeIds } from '../../core/store/queries.js';
import { instantiate } from '../../core/tasks/instance.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { tempDir } from '../store/helpers.js';

async function awb(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

// Recordings go to a temp store, never the user's ~/.awb.
const tmp = tempDir('awb-subgoals-cli-');
const dbPath = join(tmp.dir, 'store.db');
const home = process.env.AWB_HOME;
beforeAll(() => {
  process.env.AWB_HOME = tmp.dir;
});
afterAll(() => {
  if (home === undefined) delete process.env.AWB_HOME;
  else process.env.AWB_HOME = home;
  tmp.cleanup();
});

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

  it('is refused without a recording or on an adb device', async () => {
    const noRecord = await awb('run', '--task', 'ContactsAddContact', '--subgoals', '--no-record', '--db', dbPath);
    expect(noRecord.code).toBe(2);
    expect(noRecord.err).toContain('--subgoals stores the progress with the recorded episode; drop --no-record');
    const adb = await awb('run', '--task', 'ContactsAddContact', '--subgoals', '--device', 'emulator-5554', '--db', dbPath);
    expect(adb.code).toBe(2);
    expect(adb.err).toContain('drop --device');
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

  it('refuses the parallel workers and adb devices, creating no run', async () => {
    const runs = () => withStore((db) => listRuns(db).length);
    const before = runs();
    const parallel = await awb('suite', 'run', '--split', 'all', '--part', 'test', '--limit', '2', '--parallel', '2', '--subgoals', '--db', dbPath);
    expect(parallel.code).toBe(2);
    expect(parallel.err).toMatch(/--subgoals runs on the embedded SimDroid in this process \(the parallel workers do not report subgoal progress.*drop --parallel/);
    const adb = await awb('suite', 'run', '--limit', '2', '--device', 'emulator-5554', '--subgoals', '--db', dbPath);
    expect(adb.code).toBe(2);
    expect(adb.err).toContain('drop --device');
    expect(runs()).toBe(before);
  });

  it('a resumed subgoal run keeps to the in-process loop, and --resume takes no --subgoals', async () => {
    const status = () => withStore((db) => listRuns(db).find((x) => x.id === runId)!.status);
    const parallel = await awb('suite', 'run', '--resume', String(runId), '--parallel', '2', '--db', dbPath);
    expect(parallel.code).toBe(2);
    expect(parallel.err).toContain(`Run ${runId} records subgoal progress (--subgoals), so it runs on the embedded SimDroid`);
    expect(status()).toBe('finished');
    const again = await awb('suite', 'run', '--resume', String(runId), '--subgoals', '--db', dbPath);
    expect(again.code).toBe(2);
    expect(again.err).toContain('drop --split, --part, --policy and --subgoals');
  });
});
