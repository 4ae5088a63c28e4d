import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Workbench } from '../../core/workbench/index.js';
import { createRun, type EpisodeId } from '../../core/store/index.js';
import type { AppStore } from '../../renderer/src/store/index.js';
import { configFromChoice, NoRewardKindError, PANEL_KINDS } from '../../renderer/src/store/slices/rewards.js';
import { curvePoints, formatReward, pathOf, rewardTable } from '../../renderer/src/views/trajectories/rewards-model.js';
import { recordSynthetic } from '../store/helpers.js';
import { bridgedWorkbench, type BridgedWorkbench } from '../helpers/bridged-workbench.js';

describe('the rewards slice against the real workbench', () => {
  let bridged: BridgedWorkbench;
  let workbench: Workbench;
  let store: AppStore;
  const ids = {} as Record<'short' | 'long' | 'broken', EpisodeId>;

  beforeAll(async () => {
    bridged = await bridgedWorkbench('awb-rewards-slice-');
    ({ workbench, store } = bridged);
    const run = createRun(workbench.db, { name: 'slice', kind: 'single', config: {} }).id;
    const at = Date.now();
    ids.short = recordSynthetic(workbench.db, run, { templateId: 'SystemWifiTurnOn', seed: 1, steps: 2, startedAt: at });
    ids.long = recordSynthetic(workbench.db, run, { templateId: 'SystemWifiTurnOn', seed: 1, steps: 3, startedAt: at + 1 });
    ids.broken = recordSynthetic(workbench.db, run, { templateId: 'SystemWifiTurnOn', seed: 2, steps: 2, status: 'error', startedAt: at + 2 });
  });

  afterAll(() => bridged.close());

  it('loads the stored rewards: outcome on the last step only, nothing invented elsewhere', async () => {
    await store.getState().loadEpisodeRewards(ids.long);
    const p = store.getState().rewardsPanel!;
    expect(p).toMatchObject({ episodeId: ids.long, computing: false, error: null });
    const table = rewardTable(p.view!);
    expect(table).toMatchObject({ source: 'stored', kinds: ['outcome'], total: null });
    expect(table.rows.map((r) => r.cells.outcome?.value)).toEqual([undefined, undefined, 1]);
    expect(table.totals.outcome).toEqual({ sum: 1, unscored: 0 });
  });

  it('computes the ticked components (outcome, format, shortest-path by default) with a weighted total per step', async () => {
    expect(PANEL_KINDS.filter((k) => store.getState().rewardChoice[k])).toEqual(['outcome', 'format', 'shortest-path']);
    const view = await store.getState().computeEpisodeRewards();
    expect(view?.written).toBe(false);
    const table = rewardTable(store.getState().rewardsPanel!.view!);
    expect(table.source).toBe('computed');
    expect(table.kinds).toEqual(['outcome', 'format', 'shortest-path']);
    // −(3 − 2)/(2·3) on the last step against the shorter success of the same instance
    expect(table.rows[2]!.cells['shortest-path']!.value).toBeCloseTo(-1 / 6, 9);
    const lastTotal = table.rows[2]!.total!.value!;
    expect(lastTotal).toBeCloseTo(1 + table.rows[2]!.cells.format!.value! - 1 / 6, 9);
    expect(table.total!.sum).toBeCloseTo(table.rows.reduce((s, r) => s + r.total!.value!, 0), 9);
    expect(store.getState().rewardsPanel!.view!.storedKinds).toEqual(['outcome']);
  });

  it('an unscored step reads "unscored" with its reason, stays out of the sums, and is stored with write', async () => {
    await store.getState().openEpisode(ids.broken);
    expect(store.getState().replay!.trajectory!.steps[1]!.unscored).toBeUndefined();
    await store.getState().setReplayStep(1);
    await store.getState().loadEpisodeRewards(ids.broken);
    store.getState().toggleRewardKind('format', false);
    const view = await store.getState().computeEpisodeRewards({ write: true });
    expect(view!.written).toBe(true);
    const table = rewardTable(view!);
    const cell = table.rows[1]!.cells.outcome!;
    expect(cell.value).toBeNull();
    expect(formatReward(cell.value)).toBe('unscored');
    expect(cell.explanation).toMatch(/no checker verdict/);
    expect(table.rows[1]!.total!.value).toBeNull();
    expect(table.totals.outcome).toEqual({ sum: 0, unscored: 2 });
    expect(table.total).toEqual({ sum: 0, unscored: 2 });
    expect(view!.storedKinds).toEqual(['outcome', 'shortest-path']);
    // the replay viewer's copy of the episode now has them, on the same step
    expect(store.getState().replay!.trajectory!.steps[1]!.unscored).toMatchObject({ outcome: expect.stringMatching(/no checker verdict/) });
    expect(store.getState().replayStep).toBe(1);
    // reloading shows what was stored, still unscored
    await store.getState().loadEpisodeRewards(ids.broken);
    expect(rewardTable(store.getState().rewardsPanel!.view!).rows[0]!.cells.outcome).toMatchObject({ value: null });
    store.getState().toggleRewardKind('format', true);
  });

  it('shows the workbench’s refusal: nothing ticked, or ProgRM with a checkpoint outside the data folder', async () => {
    await store.getState().loadEpisodeRewards(ids.long);
    for (const k of PANEL_KINDS) store.getState().toggleRewardKind(k, false);
    expect(await store.getState().computeEpisodeRewards()).toBeUndefined();
    expect(store.getState().rewardsPanel!.error).toBe('NoRewardKindError: Tick at least one reward component to compute');
    store.getState().toggleRewardKind('progrm', true);
    store.getState().setRewardOption('progrmCheckpoint', '../elsewhere.json');
    expect(await store.getState().computeEpisodeRewards()).toBeUndefined();
    const p = store.getState().rewardsPanel!;
    expect(p.error).toMatch(/^RewardConfigError: Invalid reward config:\n {2}components\.0\.options\.checkpoint: .*"\.\.\/elsewhere\.json"/);
    expect(p.computing).toBe(false);
    // the stored view stays on screen
    expect(rewardTable(p.view!).source).toBe('stored');
  });

  it('a result for an episode that is no longer open is dropped', async () => {
    for (const k of PANEL_KINDS) store.getState().toggleRewardKind(k, k === 'outcome');
    await store.getState().loadEpisodeRewards(ids.short);
    const pending = store.getState().computeEpisodeRewards();
    const reload = store.getState().loadEpisodeRewards(ids.long);
    expect(await pending).toBeUndefined();
    await reload;
    expect(store.getState().rewardsPanel).toMatchObject({ episodeId: ids.long, error: null });
    expect(store.getState().rewardsPanel!.view!.computed).toBeNull();
  });
});

describe('the panel’s pure parts', () => {
  it('configFromChoice: weight 1 each in panel order, checkpoints only when given', () => {
    const choice = { outcome: true, format: false, 'shortest-path': false, admire: true, progrm: true, shepherd: true } as const;
    expect(configFromChoice(choice, { progrmCheckpoint: ' progrm/a.json ', shepherdCheckpoint: '' })).toEqual({ components: [
      { kind: 'outcome', weight: 1 }, { kind: 'admire', weight: 1 }, { kind: 'progrm', weight: 1, options: { checkpoint: 'progrm/a.json' } }, { kind: 'shepherd', weight: 1 },
    ] });
    expect(configFromChoice({ ...choice, shepherd: true }, { progrmCheckpoint: '', shepherdCheckpoint: 'j.json' }).components.at(-1))
      .toEqual({ kind: 'shepherd', weight: 1, options: { judge: { kind: 'builtin', checkpoint: 'j.json' } } });
    expect(() => configFromChoice({ outcome: false, format: false, 'shortest-path': false, admire: false, progrm: false, shepherd: false }, { progrmCheckpoint: '', shepherdCheckpoint: '' }))
      .toThrow(NoRewardKindError);
  });

  it('the progress curve maps 0 to the bottom and 1 to the top, one point per timeline position', () => {
    const pts = curvePoints([0, 0.5, 1], 108, 58, 4);
    expect(pts).toEqual([{ position: 0, x: 4, y: 54 }, { position: 1, x: 54, y: 29 }, { position: 2, x: 104, y: 4 }]);
    expect(pathOf(pts)).toBe('M4.0,54.0 L54.0,29.0 L104.0,4.0');
    expect(curvePoints([2], 10, 10, 0)).toEqual([{ position: 0, x: 5, y: 0 }]);
    expect(formatReward(-0.0001)).toBe('0');
    expect(formatReward(0.12345)).toBe('0.123');
  });
});
