import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkbenchApi } from '../../core/api/api.js';
import { channelPair, connectApi } from '../../core/api/bridge.js';
import { serveApi } from '../../core/api/serve-api.js';
import type { Activity } from '../../core/api/types.js';
import { createRun, openStore, type RunId } from '../../core/store/index.js';
import { createWorkbench, type Workbench } from '../../core/workbench/index.js';
import { recordSynthetic, tempDir } from '../store/helpers.js';

/**
 * The Failures panel's taxonomy on a run of a few hundred stored failures: computed in a worker, so
 * the API keeps answering meanwhile; bounded to the newest `limit`; with progress; cached until the
 * store's episodes change.
 */
/** A run of 300 episodes, 60 of them failed; the panel classifies the newest 40. */
const EPISODES = 300;
const FAILED = 60;
const LIMIT = 40;
const tmp = tempDir('awb-failures-');
const dbPath = join(tmp.dir, 'store.db');
let run: RunId;
let workbench: Workbench;
let api: WorkbenchApi;
const activities: Activity[] = [];

beforeAll(async () => {
  const db = openStore(dbPath);
  run = createRun(db, { kind: 'suite', name: 'many failures' }).id;
  const t0 = Date.UTC(2026, 0, 1);
  // Failures first (ids 1..FAILED), then the successes the failures are aligned with.
  for (let i = 0; i < EPISODES; i++) {
    recordSynthetic(db, run, { templateId: 'SystemWifiTurnOn', seed: i % 20, status: i < FAILED ? 'failure' : 'success', steps: i < FAILED ? 3 : 2, startedAt: t0 + i * 1000 });
  }
  db.close();
  workbench = await createWorkbench({ dataDir: join(tmp.dir, 'data'), dbPath, adb: false, embeddedDevice: false });
  const [client, server] = channelPair();
  serveApi(workbench, server);
  api = connectApi<WorkbenchApi>(client);
  api.onActivity({}, (a) => activities.push(a));
});
afterAll(async () => {
  await workbench.close();
  tmp.cleanup();
});

const progressOf = (from: number) => activities.slice(from).filter((a) => a.label === `Failure analysis of run ${run}` && a.state === 'running' && a.total !== null);

describe('the Failures panel on demand, off the serve thread', () => {
  it('answers another call while it classifies, reports progress, and classifies only the newest `limit` failures', async () => {
    let settled = false;
    const pending = api.runFailures({ runId: run, limit: LIMIT }).finally(() => { settled = true; });
    // A macrotask later (a run computed on the serve thread would have held it until the end), another call answers first.
    await new Promise((r) => setImmediate(r));
    const runs = await api.listRuns();
    expect(runs.map((r) => r.name)).toContain('many failures');
    expect(settled).toBe(false);
    const v = await pending;
    const r = v.runs[0]!;
    expect(r).toMatchObject({ episodes: EPISODES, failed: FAILED, explained: LIMIT, limit: LIMIT });
    expect(Object.values(r.byClass).reduce((a, b) => a + b, 0)).toBe(LIMIT);
    // The newest LIMIT: the first FAILED − LIMIT episodes are left out.
    const ids = r.explanations.map((x) => x.episodeId);
    expect(Math.min(...ids)).toBe(FAILED - LIMIT + 1);
    const progress = progressOf(0);
    expect(progress.length).toBeGreaterThan(1);
    expect(progress.at(-1)).toMatchObject({ done: LIMIT, total: LIMIT });
    expect(progress.map((a) => a.done)).toEqual([...progress.map((a) => a.done)].sort((a, b) => a - b));
  });

  it('answers again from its cache until an episode is added, then recomputes', async () => {
    const from = activities.length;
    const again = await api.runFailures({ runId: run, limit: LIMIT });
    expect(again.runs[0]!.explained).toBe(LIMIT);
    expect(progressOf(from)).toEqual([]);
    recordSynthetic(workbench.db, run, { templateId: 'SystemWifiTurnOn', seed: 1, status: 'failure', steps: 3, startedAt: Date.UTC(2026, 1, 1) });
    const fresh = await api.runFailures({ runId: run, limit: LIMIT });
    expect(fresh.runs[0]).toMatchObject({ failed: FAILED + 1, explained: LIMIT });
    expect(progressOf(from).length).toBeGreaterThan(0);
  });
});
