import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EpisodeRewardsView, WorkbenchApi } from '../../core/api/api.js';
import { channelPair, connectApi, type RemoteError } from '../../core/api/bridge.js';
import { serveApi } from '../../core/api/serve-api.js';
import { createWorkbench, type Workbench } from '../../core/workbench/index.js';
import { confineCheckpoints } from '../../core/workbench/rewards.js';
import type { AdmireDetail, ProgRmDetail, ShepherdDetail } from '../../core/rewards/details.js';
import { rewardEpisodeFromTrajectory } from '../../core/rewards/episode.js';
import { fitProgRm, saveProgRm } from '../../core/rewards/progrm/fit.js';
import { parseProgressTrainConfig } from '../../core/rewards/progrm/train.js';
import { createJudgeModel, saveJudge } from '../../core/rewards/shepherd/builtin.js';
import { createRun, getTree, loadTrajectory, type EpisodeId } from '../../core/store/index.js';
import { createRng } from '../../core/util/rng.js';
import { recordSynthetic } from '../store/helpers.js';

/** getEpisodeRewards through the real bridge, on synthetic episodes in a temporary data folder. */
describe('getEpisodeRewards through the bridge', () => {
  let dir: string;
  let workbench: Workbench;
  let api: WorkbenchApi;
  const ids = {} as Record<'short' | 'long' | 'other' | 'broken', EpisodeId>;

  const refusal = async (p: Promise<unknown>): Promise<RemoteError> => {
    try {
      await p;
    } catch (e) {
      return e as RemoteError;
    }
    throw new Error('expected a refusal');
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'awb-rewards-api-'));
    workbench = await createWorkbench({ dataDir: dir, adb: false, embeddedDevice: false });
    const [client, server] = channelPair();
    serveApi(workbench, server);
    api = connectApi<WorkbenchApi>(client);
    const run = createRun(workbench.db, { name: 'rewards', kind: 'single', config: {} }).id;
    const at = Date.now();
    // one task instance twice in the run (a group), another instance, and an episode that ended in an error
    ids.short = recordSynthetic(workbench.db, run, { templateId: 'SystemWifiTurnOn', seed: 3, steps: 2, startedAt: at });
    ids.long = recordSynthetic(workbench.db, run, { templateId: 'SystemWifiTurnOn', seed: 3, steps: 4, startedAt: at + 1 });
    ids.other = recordSynthetic(workbench.db, run, { templateId: 'SystemWifiTurnOn', seed: 4, steps: 3, status: 'failure', startedAt: at + 2 });
    ids.broken = recordSynthetic(workbench.db, run, { templateId: 'SystemWifiTurnOn', seed: 5, steps: 2, status: 'error', startedAt: at + 3 });
  });

  afterAll(async () => {
    await workbench.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('without a config: the stored rewards by kind, nothing computed', async () => {
    const v = await api.getEpisodeRewards({ episodeId: ids.long });
    expect(v).toMatchObject({ episodeId: ids.long, storedKinds: ['outcome'], computed: null, group: [ids.long], written: false });
    expect(v.stored).toHaveLength(4);
    expect(v.stored[3]!.outcome).toMatchObject({ value: 1 });
    expect(v.stored[0]).toEqual({});
  });

  it('recomputes outcome, format and shortest-path against the run’s group of the same instance', async () => {
    const config = { components: [{ kind: 'outcome', weight: 1 }, { kind: 'format', weight: 1 }, { kind: 'shortest-path', weight: 1 }] };
    const v = await api.getEpisodeRewards({ episodeId: ids.long, config });
    expect(v.group).toEqual([ids.short, ids.long]);
    const b = v.computed!;
    expect(b.components.map((c) => c.kind)).toEqual(['outcome', 'format', 'shortest-path']);
    // −α·(T − T_min)/(2T) with T = 4, T_min = 2
    expect(b.byKind['shortest-path']![3]!.value).toBeCloseTo(-0.25, 9);
    expect(b.steps[3]!.total).toBeCloseTo(1 + b.byKind.format![3]!.value! - 0.25, 9);
    expect(b.details).toEqual({});
    expect(v.written).toBe(false);
    expect(v.storedKinds).toEqual(['outcome']);
    // the shortest success gets no adjustment
    expect((await api.getEpisodeRewards({ episodeId: ids.short, config })).computed!.byKind['shortest-path']![1]!.value).toBe(0);
  });

  it('write stores every kind; an unscored step is stored with its reason, never as 0', async () => {
    const config = { components: [{ kind: 'outcome', weight: 1 }, { kind: 'shortest-path', weight: 0.5 }] };
    const v: EpisodeRewardsView = await api.getEpisodeRewards({ episodeId: ids.broken, config, write: true });
    expect(v.written).toBe(true);
    expect(v.computed!.steps[1]!.total).toBeNull();
    expect(v.storedKinds).toEqual(['outcome', 'shortest-path']);
    expect(v.stored[1]!.outcome).toEqual({ value: null, explanation: expect.stringMatching(/^no checker verdict: episode error/) });
    const again = await api.getEpisodeRewards({ episodeId: ids.broken });
    expect(again.stored).toEqual(v.stored);
    expect(loadTrajectory(workbench.db, ids.broken).steps[1]!.unscored).toMatchObject({ outcome: expect.any(String), 'shortest-path': expect.any(String) });
  });

  it('ADMIRE with the consensus distiller: milestones from the store’s successes, with the steps that hit them', async () => {
    const v = await api.getEpisodeRewards({ episodeId: ids.other, config: { components: [{ kind: 'admire', weight: 1 }] } });
    const d = v.computed!.details!.admire as AdmireDetail;
    expect(d.version).toBe(1);
    expect(d.milestones.length).toBeGreaterThan(0);
    expect(d.milestones[0]).toMatchObject({ text: 'Go back', hitStep: 0 });
    expect(v.computed!.byKind.admire![0]!.explanation).toMatch(/^hit m1\//);
  });

  it('ProgRM and GUI-Shepherd from checkpoints under the data folder: alignment, curve, verdicts', async () => {
    const db = workbench.db;
    const eps = [ids.short, ids.long, ids.other].map((id) => rewardEpisodeFromTrajectory(loadTrajectory(db, id), (h) => getTree(db, h)));
    const fit = fitProgRm(eps, { source: 'lcs', config: parseProgressTrainConfig({ epochs: 2 }), seed: 0, annotate: { taskKey: 'template' } });
    mkdirSync(join(dir, 'progrm'), { recursive: true });
    saveProgRm(join(dir, 'progrm', 'tiny.json'), fit);
    mkdirSync(join(dir, 'shepherd'), { recursive: true });
    saveJudge(join(dir, 'shepherd', 'tiny.json'), createJudgeModel(createRng('rewards-api'), undefined, 4));
    const v = await api.getEpisodeRewards({
      episodeId: ids.other,
      config: { components: [
        { kind: 'progrm', weight: 1, options: { checkpoint: 'progrm/tiny.json' } },
        { kind: 'shepherd', weight: 1, options: { judge: { kind: 'builtin', checkpoint: 'shepherd/tiny.json' } } },
      ] },
    });
    const p = v.computed!.details!.progrm as ProgRmDetail;
    expect(p.progress).toHaveLength(4);
    expect(p.recipe).not.toBeNull();
    expect(p.alignment.length).toBeGreaterThan(0);
    expect(p.alignment.every((a) => a.keyStep < p.recipe!.keySteps.length && a.step < 3)).toBe(true);
    const s = v.computed!.details!.shepherd as ShepherdDetail;
    expect(s.steps).toHaveLength(3);
    for (const x of s.steps) expect(x.verdict).toBe(x.pCorrect! >= 0.5 ? 'correct' : 'incorrect');
    expect(v.computed!.byKind.shepherd!.map((x) => x.value)).toEqual(s.steps.map((x) => x.pCorrect));
  });

  it('refuses an unknown episode, a bad config (every problem), a checkpoint outside the data folder, and write without config', async () => {
    expect(await refusal(api.getEpisodeRewards({ episodeId: 999_999 }))).toMatchObject({ name: 'EpisodeNotFoundError' });
    const bad = await refusal(api.getEpisodeRewards({ episodeId: ids.long, config: { components: [{ kind: 'outcome', weight: 'x' }, { kind: 'progrm', weight: 1 }] } }));
    expect(bad.name).toBe('RewardConfigError');
    expect(bad.issues!.map((i) => i.path)).toEqual(['components.0.weight']);
    const noCheckpoint = await refusal(api.getEpisodeRewards({ episodeId: ids.long, config: { components: [{ kind: 'progrm', weight: 1 }] } }));
    // refused by the options (checkpoint required) or, with a default checkpoint path, by the missing file
    expect(`${noCheckpoint.name}: ${noCheckpoint.message}`).toMatch(/^(RewardConfigError|ProgRmCheckpoint\w*Error|ProgRmModelMissingError): .*checkpoint/is);
    const outside = await refusal(api.getEpisodeRewards({ episodeId: ids.long, config: { components: [{ kind: 'progrm', weight: 1, options: { checkpoint: '../x.json' } }] } }));
    expect(outside.message).toMatch(/path under the data folder, got "\.\.\/x\.json"/);
    const abs = await refusal(api.getEpisodeRewards({ episodeId: ids.long, config: { components: [{ kind: 'shepherd', weight: 1, options: { judge: { kind: 'builtin', checkpoint: '/etc/passwd' } } }] } }));
    expect(abs.issues).toEqual([{ path: 'components.0.options.judge.checkpoint', message: expect.stringMatching(/^a checkpoint through the workbench/) }]);
    const model = await refusal(api.getEpisodeRewards({ episodeId: ids.long, config: { components: [{ kind: 'admire', weight: 1, options: { embedder: { kind: 'transformers', path: '/models/minilm' } } }] } }));
    expect(model.issues).toEqual([{ path: 'components.0.options.embedder.path', message: 'a model folder through the workbench is a path under the data folder, got "/models/minilm"' }]);
    expect(await refusal(api.getEpisodeRewards({ episodeId: ids.long, write: true }))).toMatchObject({ name: 'ApiInputError' });
    // a refused request does not block the next one
    expect((await api.getEpisodeRewards({ episodeId: ids.long, config: { components: [{ kind: 'outcome', weight: 1 }] } })).computed).not.toBeNull();
  });

  it('confineCheckpoints lets relative checkpoints through (the modules resolve them under the data folder) and refuses others', () => {
    const relative = { components: [{ kind: 'shepherd', weight: 1, options: { judge: { kind: 'builtin', checkpoint: 'j.json' } } }] };
    expect(confineCheckpoints(relative)).toBe(relative);
    expect(() => confineCheckpoints({ components: [{ kind: 'shepherd', weight: 1, options: { judge: { kind: 'builtin', checkpoint: join('/data', 'j.json') } } }] }))
      .toThrow(/judge\.checkpoint: .*under the data folder/);
    expect(confineCheckpoints('nonsense')).toBe('nonsense');
  });
});
