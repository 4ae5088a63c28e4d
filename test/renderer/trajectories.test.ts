import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkbenchApi } from '../../core/api/api.js';
import { channelPair, connectApi } from '../../core/api/bridge.js';
import { serveApi } from '../../core/api/serve-api.js';
import { createWorkbench, type Workbench } from '../../core/workbench/index.js';
import { runEpisode } from '../../core/episode/runner.js';
import { OraclePolicy } from '../../core/episode/policies/oracle.js';
import { RandomPolicy } from '../../core/episode/policies/random.js';
import type { Policy } from '../../core/episode/policy.js';
import { createRun, StoreRecorder, type EpisodeId, type RunId } from '../../core/store/index.js';
import { instantiate } from '../../core/tasks/instance.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { createRng } from '../../core/util/rng.js';
import { SimDroid } from '../../emulators/simdroid/simdroid.js';
import { createAppStore, type AppStore } from '../../renderer/src/store/index.js';
import { EPISODE_PAGE_SIZE, episodeAt } from '../../renderer/src/store/slices/trajectories.js';
import { positionOf } from '../../renderer/src/store/slices/trajectories-replay.js';
import { stepDiff } from '../../renderer/src/views/trajectories/format.js';
import { recordSynthetic } from '../store/helpers.js';

/** The API with every call counted, to check what the slice asks for. */
function counting(api: WorkbenchApi): { api: WorkbenchApi; calls: Array<{ m: string; a: any }>; count(m: string): number; reset(): void } {
  const calls: Array<{ m: string; a: any }> = [];
  const proxy = new Proxy(api, {
    get(target, prop) {
      const v = Reflect.get(target, prop) as unknown;
      if (typeof v !== 'function' || typeof prop !== 'string') return v;
      return (...args: unknown[]) => {
        calls.push({ m: prop, a: args[0] });
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { api: proxy, calls, count: (m) => calls.filter((c) => c.m === m).length, reset: () => void calls.splice(0) };
}

const SYNTHETIC = 2_400;
const SYNTH_TEMPLATES = ['ClockAddAlarm', 'SystemWifiTurnOn', 'MarkorCreateNote'];
const SYNTH_STATUSES = ['success', 'failure', 'failure', 'error'] as const;
const TEMPLATE = 'ContactsAddContact';

describe('the trajectories slice against the real workbench', () => {
  let dir: string;
  let workbench: Workbench;
  let store: AppStore;
  let api: ReturnType<typeof counting>;
  const ids: Record<'success' | 'failure' | 'noShots', EpisodeId> = {} as never;
  let runs: RunId[];

  async function record(runId: RunId, device: SimDroid, seed: number, policy: Policy, screenshots: 'none' | 'half', maxSteps?: number) {
    const recorder = new StoreRecorder(workbench.db, runId);
    await runEpisode({ device, instance: instantiate(getTemplate(TEMPLATE), seed), policy, screenshots, recorder, ...(maxSteps ? { maxSteps } : {}) });
    return recorder.episodeId!;
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'awb-trajectories-'));
    workbench = await createWorkbench({ dataDir: dir, adb: false });
    runs = [createRun(workbench.db, { kind: 'suite', name: 'synthetic A' }).id, createRun(workbench.db, { kind: 'training', name: 'synthetic B' }).id];
    // Many cheap episodes (older) for paging and filtering…
    for (let i = 0; i < SYNTHETIC; i++) {
      recordSynthetic(workbench.db, runs[i % 2]!, {
        templateId: SYNTH_TEMPLATES[i % 3]!, seed: i, status: SYNTH_STATUSES[i % 4]!, steps: 0,
        policy: i % 5 === 0 ? 'random' : 'oracle', startedAt: 1_700_000_000_000 + i * 60_000,
      });
    }
    // …and three real ones on SimDroid (newest): a success, a failure, and a success recorded without screenshots.
    const device = new SimDroid();
    const real = createRun(workbench.db, { kind: 'suite', name: 'real' }).id;
    try {
      ids.success = await record(real, device, 1, new OraclePolicy(), 'half');
      ids.failure = await record(real, device, 3, new RandomPolicy(createRng('trajectories-test')), 'half', 4);
      ids.noShots = await record(real, device, 2, new OraclePolicy(), 'none');
    } finally {
      device.close();
    }
    const [client, server] = channelPair();
    serveApi(workbench, server);
    api = counting(connectApi<WorkbenchApi>(client));
    store = createAppStore(api.api);
  });

  afterAll(async () => {
    await workbench.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('first paint asks for one page; scrolling fetches only the pages it reaches, once each', async () => {
    api.reset();
    await store.getState().refreshEpisodes();
    const s = store.getState();
    expect(api.count('listEpisodes')).toBe(1);
    expect(api.calls.find((c) => c.m === 'listEpisodes')!.a).toEqual({ limit: EPISODE_PAGE_SIZE, offset: 0 });
    expect(s.episodeTotal).toBe(SYNTHETIC + 3);
    expect(Object.keys(s.episodePages)).toEqual(['0']);
    expect(episodeAt(s.episodePages, 0)!.id).toBe(ids.noShots); // newest first
    expect(s.facets?.templates).toEqual([...SYNTH_TEMPLATES, TEMPLATE].sort());

    // Rows already on page 0: nothing to fetch.
    await s.ensureEpisodeRows(0, 40);
    expect(api.count('listEpisodes')).toBe(1);
    // A jump deep into the table fetches the two pages the window straddles, and only those.
    await Promise.all([s.ensureEpisodeRows(1_590, 1_630), s.ensureEpisodeRows(1_595, 1_625)]);
    expect(api.count('listEpisodes')).toBe(3);
    expect(api.calls.filter((c) => c.m === 'listEpisodes').slice(1).map((c) => c.a.offset).sort()).toEqual([1_500, 1_600]);
    expect(Object.keys(store.getState().episodePages).sort()).toEqual(['0', '15', '16']);
    expect(episodeAt(store.getState().episodePages, 1_600)).toBeDefined();
    // Past the end: nothing.
    await s.ensureEpisodeRows(50_000, 50_040);
    expect(api.count('listEpisodes')).toBe(3);
  });

  it('a status filter changes the total but not the per-status counts, and resets the pages', async () => {
    await store.getState().setEpisodeQuery({ status: [] });
    const all = store.getState();
    const counts = all.episodeCounts!;
    expect(counts.success).toBe(SYNTHETIC / 4 + 2);
    expect(counts.failure).toBe(SYNTHETIC / 2 + 1);
    expect(counts.error).toBe(SYNTHETIC / 4);

    api.reset();
    await store.getState().setEpisodeQuery({ status: ['failure'] });
    const f = store.getState();
    expect(api.count('listEpisodes')).toBe(1);
    expect(api.calls[0]!.a).toEqual({ status: ['failure'], limit: EPISODE_PAGE_SIZE, offset: 0 });
    expect(f.episodeTotal).toBe(counts.failure);
    expect(f.episodeCounts).toEqual(counts);
    expect(Object.keys(f.episodePages)).toEqual(['0']);
    expect(f.episodePages[0]!.every((e) => e.status === 'failure')).toBe(true);

    await store.getState().setEpisodeQuery({ status: ['success', 'error'] });
    expect(store.getState().episodeTotal).toBe(counts.success + counts.error);
  });

  it('filters by template, app, run, policy, date and instruction', async () => {
    const q = store.getState().setEpisodeQuery;
    await q({ status: [], templateId: 'ClockAddAlarm' });
    expect(store.getState().episodeTotal).toBe(SYNTHETIC / 3);
    await q({ templateId: null, app: 'Contacts' });
    expect(store.getState().episodeTotal).toBe(3);
    await q({ app: null, runId: runs[1]! });
    expect(store.getState().episodeTotal).toBe(SYNTHETIC / 2);
    await q({ runId: null, policy: 'random' });
    expect(store.getState().episodeTotal).toBe(SYNTHETIC / 5 + 1);
    // The first 100 synthetic episodes, by start time.
    await q({ policy: null, since: 1_700_000_000_000, until: 1_700_000_000_000 + 100 * 60_000 });
    expect(store.getState().episodeTotal).toBe(100);
    await q({ since: null, until: null, search: 'ClockAddAlarm #3' });
    expect(store.getState().episodeTotal).toBe(store.getState().episodePages[0]!.length);
    expect(store.getState().episodePages[0]!.every((e) => e.instruction.includes('ClockAddAlarm #3'))).toBe(true);
    await q({ search: '' });
    expect(store.getState().episodeTotal).toBe(SYNTHETIC + 3);
  });

  it('a reversed date range is refused in the UI without asking the server', async () => {
    api.reset();
    await store.getState().setEpisodeQuery({ since: 1_700_000_100_000, until: 1_700_000_000_000 });
    expect(store.getState().episodeQueryProblem).toMatch(/"from" date must be before the "to" date/);
    expect(api.count('listEpisodes')).toBe(0);
    await store.getState().ensureEpisodeRows(0, 30);
    expect(api.count('listEpisodes')).toBe(0);
    await store.getState().setEpisodeQuery({ since: null, until: null });
    expect(store.getState().episodeQueryProblem).toBeNull();
    expect(store.getState().episodeTotal).toBe(SYNTHETIC + 3);
  });

  it('a slow answer to an old filter does not overwrite the new one', async () => {
    const first = store.getState().setEpisodeQuery({ templateId: 'ClockAddAlarm' });
    const second = store.getState().setEpisodeQuery({ templateId: TEMPLATE });
    await Promise.all([first, second]);
    expect(store.getState().episodeTotal).toBe(3);
    expect(store.getState().episodePages[0]!.every((e) => e.templateId === TEMPLATE)).toBe(true);
    await store.getState().setEpisodeQuery({ templateId: null });
  });

  it('opens an episode: its steps, the screenshot and tree of the step shown, cached by hash', async () => {
    store.getState().setView('devices');
    api.reset();
    await store.getState().openEpisode(ids.success);
    const s = store.getState();
    expect(s.view).toBe('trajectories');
    const t = s.replay!.trajectory!;
    expect(t.episode.id).toBe(ids.success);
    expect(t.episode.status).toBe('success');
    expect(t.steps.length).toBeGreaterThan(1);
    expect(t.episode.device).toMatchObject({ width: 1080, height: 2400 });
    const step0 = positionOf(t, 0);
    const png = s.screenshots[step0.screenshot!]!;
    expect([...png.subarray(1, 4)]).toEqual([0x50, 0x4e, 0x47]); // "PNG"
    expect(new DataView(png.buffer, png.byteOffset).getUint32(16)).toBe(540); // recorded at half size
    // The tree arrives parsed by core: a FrameLayout window root spanning the screen, nodes numbered in order.
    expect(s.trees[step0.tree!]!.roots[0]!.attrs.class).toBe('android.widget.FrameLayout');
    expect(s.trees[step0.tree!]!.nodes.map((n) => n.ordinal)).toEqual(s.trees[step0.tree!]!.nodes.map((_, i) => i));
    // The next step's screen (the "after") is fetched with it.
    expect(s.screenshots[positionOf(t, 1).screenshot!]).toBeDefined();

    await s.setReplayStep(t.steps.length);
    expect(store.getState().replayStep).toBe(t.steps.length);
    expect(store.getState().screenshots[t.final.screenshot!]).toBeDefined();
    await s.setReplayStep(99_999); // clamped
    expect(store.getState().replayStep).toBe(t.steps.length);

    const before = api.count('getScreenshot');
    await s.setReplayStep(0);
    expect(api.count('getScreenshot')).toBe(before); // cached
    expect(api.count('getTrajectory')).toBe(1);
  });

  it('an episode recorded without screenshots still opens, with its trees', async () => {
    api.reset();
    await store.getState().openEpisode(ids.noShots);
    const s = store.getState();
    const t = s.replay!.trajectory!;
    expect(t.steps.length).toBeGreaterThan(0);
    expect(t.steps.every((x) => x.screenshot === null && x.tree !== null)).toBe(true);
    expect(api.count('getScreenshot')).toBe(0);
    expect(s.trees[t.steps[0]!.tree!]!.nodes.length).toBeGreaterThan(5);
    expect(s.errors).toEqual([]);
  });

  it('a missing episode is a visible, named error', async () => {
    await store.getState().openEpisode(987_654);
    const s = store.getState();
    expect(s.replay).toMatchObject({ episodeId: 987_654, trajectory: null });
    expect(s.replay!.error).toMatch(/EpisodeNotFoundError/);
    expect(s.errors.at(-1)).toMatchObject({ action: 'Open episode 987654', name: 'EpisodeNotFoundError' });
    store.getState().dismissError(s.errors.at(-1)!.id);
    store.getState().closeEpisode();
    expect(store.getState().replay).toBeNull();
  });

  it('compares a failure with a success of the same task, step by step', async () => {
    await store.getState().openEpisode(ids.failure);
    await store.getState().loadCompareCandidates();
    const s = store.getState();
    expect(s.replay!.trajectory!.episode.status).toBe('failure');
    expect(s.compareCandidates!.map((c) => c.id).sort()).toEqual([ids.success, ids.noShots].sort());
    api.reset();
    await s.selectCompare(ids.success);
    const c = store.getState().compare!;
    expect(c.trajectory!.episode.id).toBe(ids.success);
    expect(api.count('getTrajectory')).toBe(0); // loaded before, cached
    // Its screen at the same step is fetched as the timeline moves.
    await store.getState().setReplayStep(1);
    expect(store.getState().screenshots[positionOf(c.trajectory!, 1).screenshot!]).toBeDefined();
    const diff = stepDiff(store.getState().replay!.trajectory!.steps, c.trajectory!.steps);
    expect(diff.firstDivergence).not.toBeNull();
    expect(diff.rows).toHaveLength(Math.max(store.getState().replay!.trajectory!.steps.length, c.trajectory!.steps.length));
    await store.getState().selectCompare(null);
    expect(store.getState().compare).toBeNull();
  });

  it('replays on device from step k: a session with `from`, held at step k, opened in the Agent view', async () => {
    await store.getState().openEpisode(ids.success);
    const t = store.getState().replay!.trajectory!;
    api.reset();
    // A step count outside the episode is refused before anything starts.
    expect(await store.getState().replayOnDevice({ steps: t.steps.length + 1, then: 'oracle' })).toBeUndefined();
    expect(store.getState().errors.at(-1)).toMatchObject({ action: 'Replay on device', name: 'ReplayStepsError' });
    expect(api.count('startSession')).toBe(0);

    const info = await store.getState().replayOnDevice({ steps: 2, then: 'manual' });
    expect(info).toBeDefined();
    const start = api.calls.find((c) => c.m === 'startSession')!.a;
    expect(start).toMatchObject({
      serial: 'simdroid-1', templateId: TEMPLATE, seed: 1, policy: 'manual', from: { episodeId: ids.success, steps: 2 }, run: true,
    });
    expect(start).not.toHaveProperty('breakpoints');
    const s = store.getState();
    expect(s.view).toBe('agent');
    expect(s.pendingSessionId).toBe(info!.id);
    expect(s.selectedSerial).toBe('simdroid-1');
    expect(s.sessionId).toBe(info!.id); // the Agent view's slice took it
    // The two recorded steps are re-executed, then the session holds at step 2 for the user.
    const end = Date.now() + 20_000;
    let cur = await api.api.getSession({ sessionId: info!.id });
    while (!(cur.state === 'paused' && cur.steps.length === 2) && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 50));
      cur = await api.api.getSession({ sessionId: info!.id });
    }
    expect(cur.steps.map((x) => x.description)).toEqual(t.steps.slice(0, 2).map((x) => x.description));
    expect(cur).toMatchObject({ state: 'paused', breakpoints: [] });
    expect(cur.proposal!.handover).toMatch(/replayed the first 2 recorded steps/);
    // The Agent view's state follows the session's events.
    while (store.getState().session?.state !== 'paused' && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    expect(store.getState().session).toMatchObject({ id: info!.id, state: 'paused', steps: [{}, {}] });
    // Nothing of the replay is left for the next, unrelated session started from the Agent form.
    expect(store.getState().agentBreakpoints).toEqual([]);
    await api.api.controlSession({ sessionId: info!.id, command: 'stop' });
  });

  it('exports the filtered episodes, or the selected ones, and shows where they went', async () => {
    await store.getState().setEpisodeQuery({ templateId: TEMPLATE });
    const r = await store.getState().exportEpisodes('filter');
    expect(r).toMatchObject({ episodes: store.getState().episodeTotal });
    expect(store.getState().lastExport!.path).toContain(join(dir, 'exports'));
    expect(readdirSync(r!.path).length).toBeGreaterThan(0);

    expect(await store.getState().exportEpisodes('selection')).toBeUndefined();
    expect(store.getState().errors.at(-1)).toMatchObject({ name: 'EmptySelectionError' });
    store.getState().toggleEpisodeSelected(ids.success);
    store.getState().toggleEpisodeSelected(ids.failure);
    store.getState().toggleEpisodeSelected(ids.failure);
    expect(store.getState().episodeSelection).toEqual([ids.success]);
    const sel = await store.getState().exportEpisodes('selection');
    expect(sel).toMatchObject({ episodes: 1 });
    expect(store.getState().lastExport).toEqual(sel);
  });
});
