import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { compareRuns, explainEpisode, runFailures } from '../../core/analysis/index.js';
import type { WorkbenchApi } from '../../core/api/api.js';
import { channelPair, connectApi, type RemoteError } from '../../core/api/bridge.js';
import { serveApi } from '../../core/api/serve-api.js';
import { main } from '../../core/cli/main.js';
import { createWorkbench } from '../../core/workbench/index.js';
import { createRun, openStore, type EpisodeId, type RunId, type WritableDB } from '../../core/store/index.js';
import { rewardEpisodeFromTrajectory } from '../../core/rewards/episode.js';
import { fitProgRm, saveProgRm } from '../../core/rewards/progrm/fit.js';
import { parseProgressTrainConfig } from '../../core/rewards/progrm/train.js';
import { createJudgeModel, saveJudge } from '../../core/rewards/shepherd/builtin.js';
import { getTree, loadTrajectory } from '../../core/store/index.js';
import { createRng } from '../../core/util/rng.js';
import { device } from '../helpers/simdroid.js';
import { recordEpisode, tempDir } from '../store/helpers.js';
import { backInsteadOfSave } from './policies.js';

/** Real episodes on an in-process SimDroid, recorded in a temp store: the oracle's success and backInsteadOfSave's failure. */
const tmp = tempDir('awb-explain-');
const dbPath = join(tmp.dir, 'store.db');
const d = device();
let db: WritableDB;
let before: RunId;
let after: RunId;
let failed: EpisodeId;
let failedOtherSeed: EpisodeId;
let success: EpisodeId;

beforeAll(async () => {
  db = openStore(dbPath);
  before = createRun(db, { kind: 'suite', name: 'before' }).id;
  after = createRun(db, { kind: 'suite', name: 'after' }).id;
  failed = (await recordEpisode(db, before, d, 'ContactsAddContact', 1, backInsteadOfSave())).id;
  failedOtherSeed = (await recordEpisode(db, before, d, 'ContactsAddContact', 2, backInsteadOfSave())).id;
  success = (await recordEpisode(db, after, d, 'ContactsAddContact', 1)).id;
});
afterAll(() => {
  db.close();
  d.close();
  tmp.cleanup();
});

const capture = () => {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) } };
};

describe('explaining a failed episode against the successful paths', () => {
  it('finds where it left the stored success of its instance, with both actions and the screen diff', async () => {
    const x = await explainEpisode(db, failed);
    expect(x.status).toBe('failure');
    expect(x.alignment!.references).toEqual([{ label: `episode ${success}`, episodeId: success, level: 'exact', steps: 7 }]);
    const dv = x.alignment!.divergence!;
    // Steps 1–6 (open, create, three fields, a Back that hides the keyboard) follow the success screen by screen;
    // step 7's Back leaves the form's path where the success tapped Save (its step 6).
    expect(dv).toMatchObject({ kind: 'left', failedStep: 6, failedAction: 'Go back in Contacts', referenceStep: 5, referenceAction: 'Tap "Save" in Contacts' });
    expect(dv.failedScreen).toMatchObject({ step: 7, final: false });
    expect(dv.referenceScreen).toMatchObject({ step: 6, activity: 'com.android.contacts.quickcontact.QuickContactActivity' });
    const diff = dv.diff!;
    expect(diff.added.length + diff.removed.length + diff.changed.length).toBeGreaterThan(0);
    expect(diff.removed.map((n) => n.text)).toContain('Zoe Ito');
    expect(x.classification!.primary).toBe('not_committed');
    expect(x.classification!.labels.map((l) => l.class)).toContain('declared_done_early');
  });

  it('says a person chose the step that left the successful paths, where an override did, rather than blaming the policy', async () => {
    expect((await explainEpisode(db, failed)).alignment!.divergence!.byPerson).toBe(false);
    db.prepare('UPDATE steps SET overridden = 1 WHERE episode_id = ? AND idx = 6').run(failed);
    try {
      const x = await explainEpisode(db, failed);
      expect(x.alignment!.divergence).toMatchObject({ failedStep: 6, byPerson: true });
      expect(x.notes).toContain("step 7, where it left the successful paths, was a person's override, not the policy's choice");
      expect(x.notes).toContain('a person chose step 7 (overrides); the policy chose the rest');
    } finally {
      db.prepare('UPDATE steps SET overridden = 0 WHERE episode_id = ?').run(failed);
    }
  });

  it('runs the oracle on the same instance when no success of it is stored', async () => {
    const x = await explainEpisode(db, failedOtherSeed);
    expect(x.alignment!.references.map((r) => [r.label, r.level])).toEqual([[`episode ${success}`, 'layout'], ['oracle', 'exact']]);
    expect(x.alignment!.divergence).toMatchObject({ failedStep: 6, reference: 'oracle', referenceAction: 'Tap "Save" in Contacts' });
    expect(x.classification!.primary).toBe('not_committed');
  });

  it('tables a run by class and finds the instance that flipped between two runs', async () => {
    const r = await runFailures(db, before);
    expect(r).toMatchObject({ episodes: 2, failed: 2 });
    expect(r.byClass.not_committed).toBe(2);
    expect(r.cells).toEqual([{ class: 'not_committed', app: 'Contacts', templateId: 'ContactsAddContact', difficulty: 'easy', count: 2, episodeIds: [failed, failedOtherSeed] }]);
    const c = await compareRuns(db, before, after);
    expect(c).toMatchObject({ shared: 1, onlyBefore: 1, onlyAfter: 0, broke: [], stillFailing: 0 });
    expect(c.fixed).toEqual([{ templateId: 'ContactsAddContact', seed: 1, app: 'Contacts',
      before: { outcome: 'failure', episodeIds: [failed], classes: ['not_committed'] }, after: { outcome: 'success', episodeIds: [success], classes: [] } }]);
  });
});

describe('rewards on the failed path beside the successful one', () => {
  it('ADMIRE milestones per side; ProgRM and the judge say in one line how to fit them, then draw from the fitted ones', async () => {
    const x = await explainEpisode(db, failed, { rewards: { dataDir: join(tmp.dir, 'no-models') } });
    const r = x.rewards!;
    expect(r.reference).toMatchObject({ label: `episode ${success}`, episodeId: success, success: true });
    expect(r.milestoneSource).toBe('distilled now from 1 stored success');
    const mine = r.failed.admire!.milestones;
    const theirs = r.reference!.admire!.milestones;
    expect(mine.length).toBeGreaterThan(1);
    // The success reached every milestone; the failed path, which went back instead of saving, missed the last ones.
    expect(theirs.every((m) => m.hitStep !== null)).toBe(true);
    expect(mine.at(-1)!.hitStep).toBeNull();
    expect(mine[0]!.hitStep).toBe(0);
    expect(r.missing.progrm).toMatch(/^ProgRmModelMissingError: No ProgRM model at .*fit one with `awb rewards fit progrm`/);
    expect(r.missing.shepherd).toMatch(/^ShepherdJudgeNotFittedError: No GUI-Shepherd judge at .*`awb rewards fit shepherd`/);
    expect([r.failed.progrm, r.failed.shepherd, r.reference!.progrm]).toEqual([null, null, null]);

    // With a ProgRM model and a judge under the data folder: a curve (initial state + one per step) and a verdict per step on each side.
    const models = join(tmp.dir, 'models');
    const eps = [failed, failedOtherSeed, success].map((id) => rewardEpisodeFromTrajectory(loadTrajectory(db, id), (h) => getTree(db, h)));
    mkdirSync(join(models, 'progrm'), { recursive: true });
    saveProgRm(join(models, 'progrm', 'model.json'), fitProgRm(eps, { source: 'lcs', config: parseProgressTrainConfig({ epochs: 2 }), seed: 0, annotate: { taskKey: 'template' } }));
    mkdirSync(join(models, 'shepherd'), { recursive: true });
    saveJudge(join(models, 'shepherd', 'judge.json'), createJudgeModel(createRng('explain-rewards'), undefined, 4));
    const y = (await explainEpisode(db, failed, { rewards: { dataDir: models } })).rewards!;
    expect(y.missing).toEqual({ admire: null, progrm: null, shepherd: null });
    expect(y.failed.progrm!.progress).toHaveLength(x.steps + 1);
    expect(y.reference!.progrm!.progress).toHaveLength(8);
    expect(y.failed.shepherd!.steps).toHaveLength(x.steps);
    expect(y.reference!.shepherd!.steps.map((s) => s.step)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });
});

describe('awb episodes explain / awb runs failures', () => {
  it('prints the class and the first divergence, or JSON', async () => {
    const c = capture();
    vi.stubEnv('AWB_HOME', join(tmp.dir, 'no-models'));
    expect(await main(['episodes', 'explain', String(failed), '--db', dbPath], c.io)).toBe(0);
    vi.unstubAllEnvs();
    const text = c.out.join('\n');
    expect(text).toContain(`Rewards (this episode | episode ${success}):`);
    expect(text).toMatch(/^ {4}missed {2}\| step 6 {3}/m);
    expect(text).toMatch(/^ {2}ProgRM: ProgRmModelMissingError: No ProgRM model at .*no-models/m);
    expect(text).toContain('Failure class: not_committed — reached the screen where episode');
    expect(text).toContain('First divergence: step 7 left every successful path');
    expect(text).toMatch(/ {2}this episode: Go back in Contacts → step 8\n {2}episode \d+: Tap "Save" in Contacts → step 7/);
    expect(text).toContain('  - "Zoe Ito"');
    const j = capture();
    expect(await main(['episodes', 'explain', String(failed), '--json', '--db', dbPath], j.io)).toBe(0);
    expect(JSON.parse(j.out[0]!)).toMatchObject({ episodeId: failed, classification: { primary: 'not_committed' } });
  });

  it('prints the taxonomy table and the flips', async () => {
    const c = capture();
    expect(await main(['runs', 'failures', String(before), '--vs', String(after), '--db', dbPath], c.io)).toBe(0);
    const text = c.out.join('\n');
    expect(text).toMatch(/^not_committed\s+Contacts\s+ContactsAddContact\s+easy\s+2\s+/m);
    expect(text).toContain('fixed 1, broke 0');
    expect(text).toMatch(/^ContactsAddContact\s+1\s+failure\s+not_committed\s+success\s+—/m);
  });

  it('refuses a bad or unknown id in one line', async () => {
    for (const [argv, msg] of [
      [['episodes', 'explain', 'abc'], 'Not an episode id: "abc"'],
      [['episodes', 'explain', '999'], 'No episode 999 in the store'],
      [['runs', 'failures', '999'], 'No run 999 in the store'],
      [['runs', 'failures', String(before), '--vs', 'x'], 'Not a run id: "x"'],
    ] as const) {
      const c = capture();
      expect(await main([...argv, '--db', dbPath], c.io)).toBe(2);
      expect(c.err[0]!.split('\n')[0]).toContain(msg);
    }
  });
});

describe('the API for the Trajectories view', () => {
  it('explainEpisode and runFailures answer through the bridge; a bad id is refused by name', async () => {
    const workbench = await createWorkbench({ dataDir: join(tmp.dir, 'data'), dbPath, adb: false, embeddedDevice: false });
    try {
      const [client, server] = channelPair();
      serveApi(workbench, server);
      const api = connectApi<WorkbenchApi>(client);
      expect(await api.explainEpisode({ episodeId: failed })).toMatchObject({ classification: { primary: 'not_committed' }, alignment: { divergence: { failedStep: 6 } } });
      const v = await api.runFailures({ runId: before, vsRunId: after });
      expect(v.runs.map((r) => r.failed)).toEqual([2, 0]);
      expect(v.comparison!.fixed.map((f) => f.seed)).toEqual([1]);
      expect(((await api.runFailures({ runId: 999 }).catch((e: unknown) => e)) as RemoteError).name).toBe('RunNotFoundError');
      expect(((await api.explainEpisode({ episodeId: -1 }).catch((e: unknown) => e)) as RemoteError).name).toBe('ApiInputError');
    } finally {
      await workbench.close();
    }
  });
});
