import { randomUUID } from 'node:crypto';
import type { EpisodeRecorder, EpisodeResult, EpisodeStart, ObservationRecord, StepRecord } from '../episode/record.js';
import { getTemplate, UnknownTemplateError } from '../tasks/registry.js';
import { instantiate } from '../tasks/instance.js';
import { deviceKindOf, ensureInstance, ensureTemplate, upsertDevice, type DeviceKind } from './catalog.js';
import { putScreenshot, putTree } from './content.js';
import { inTransaction, prepare, type WritableDB } from './db.js';
import { completeEpisode, insertEpisode } from './episodes.js';
import { RecorderStateError } from './errors.js';
import type { EpisodeId, RunId } from './ids.js';
import { OUTCOME_REWARD, writeReward } from './rewards.js';
import { getRun } from './runs.js';
import { insertStep, lastStepIndex } from './steps.js';

export interface StoreRecorderOptions {
  /** Default: from the serial (`simdroid-…`, `emulator-NNNN`, else a physical device). */
  deviceKind?: DeviceKind;
  /** A GRPO training rollout: its iteration (1-based), group and index in the group, stored with the episode. */
  rollout?: { iteration: number; group: number; rollout: number };
}

/**
 * Records episodes of one run into the store as they happen. Every call is one transaction: a
 * step's row, its screenshot and its tree commit together as soon as the step is taken, so a crash
 * (even `kill -9`) loses no completed step, and readers never see a step without its observation.
 *
 * One episode at a time: give each concurrently running episode its own recorder (they are cheap;
 * statements are cached per connection). A recorder whose episode never ended (its runner threw)
 * refuses a new `begin`; `resumeRun` later marks such an episode 'interrupted'.
 */
export class StoreRecorder implements EpisodeRecorder {
  private open: EpisodeId | null = null;
  private last: EpisodeId | null = null;

  constructor(private readonly db: WritableDB, readonly runId: RunId, private readonly opts: StoreRecorderOptions = {}) {
    getRun(db, runId);
  }

  /** The episode being recorded, else the last one recorded (null before the first). */
  get episodeId(): EpisodeId | null {
    return this.open ?? this.last;
  }

  begin(start: EpisodeStart): void {
    if (this.open !== null) throw new RecorderStateError(this.runId, 'begin', this.open);
    this.open = inTransaction(this.db, () => {
      const { serial, width, height, density } = start.device;
      const deviceId = upsertDevice(this.db, { serial, width, height, density }, this.opts.deviceKind ?? deviceKindOf(serial), start.startedAt);
      ensureTemplate(this.db, start.templateId);
      const instanceId = ensureInstance(this.db, start);
      const id = insertEpisode(this.db, {
        uid: randomUUID(), runId: this.runId, instanceId, deviceId, policy: start.policy, maxSteps: start.maxSteps, startedAt: start.startedAt,
      });
      this.tagRollout(id);
      return id;
    });
  }

  private tagRollout(id: EpisodeId): void {
    const r = this.opts.rollout;
    if (r) prepare(this.db, 'INSERT INTO training_rollouts (episode_id, iteration, group_index, rollout_index) VALUES (?, ?, ?, ?)').run(id, r.iteration, r.group, r.rollout);
  }

  step(step: StepRecord, before: ObservationRecord): void {
    const id = this.open;
    if (id === null) throw new RecorderStateError(this.runId, 'step', null);
    inTransaction(this.db, () => {
      const screenshot = before.screenshot ? putScreenshot(this.db, before.screenshot) : null;
      const tree = before.xml ? putTree(this.db, before.xml) : null;
      insertStep(this.db, id, step, screenshot, tree);
    });
  }

  end(result: EpisodeResult, final: ObservationRecord): void {
    inTransaction(this.db, () => {
      // The runner ends an episode whose reset failed without beginning it: record it all the same.
      const id = this.open ?? this.beginFromResult(result);
      const screenshot = final.screenshot ? putScreenshot(this.db, final.screenshot) : null;
      const tree = final.xml ? putTree(this.db, final.xml) : null;
      completeEpisode(this.db, id, {
        status: result.status, success: result.success, verdict: result.verdict ?? null, terminatedBy: result.terminatedBy, answer: result.outcome.answer ?? null,
        error: result.error ?? null, finishedAt: result.finishedAt, timings: result.timings, finalScreenshot: screenshot, finalTree: tree,
      });
      // No step, no reward: a reward belongs to an action the policy took.
      const lastStep = lastStepIndex(this.db, id);
      if (lastStep !== null) writeReward(this.db, id, lastStep, OUTCOME_REWARD, result.success ? 1 : 0, outcomeExplanation(result));
      this.last = id;
    });
    this.open = null;
  }

  private beginFromResult(r: EpisodeResult): EpisodeId {
    ensureTemplate(this.db, r.templateId);
    const instanceId = ensureInstance(this.db, { templateId: r.templateId, seed: r.seed, params: paramsFor(r), instruction: r.instruction });
    const id = insertEpisode(this.db, {
      uid: randomUUID(), runId: this.runId, instanceId, deviceId: null, policy: r.policy, maxSteps: null, startedAt: r.startedAt,
    });
    this.tagRollout(id);
    return id;
  }
}

function outcomeExplanation(r: EpisodeResult): string {
  switch (r.status) {
    case 'success':
      return 'checker: success';
    case 'failure':
      return `checker: failure (ended by ${r.terminatedBy})`;
    case 'error':
      return `no verdict: ${r.terminatedBy}${r.error ? ` (${r.error.name}: ${r.error.message})` : ''}`;
  }
}

/**
 * The result does not carry the parameters; the registry's instance for the seed has them when it
 * gives the same instruction (instances are drawn from the seed alone). Otherwise they are unknown.
 */
function paramsFor(r: EpisodeResult): unknown {
  try {
    const inst = instantiate(getTemplate(r.templateId), r.seed);
    return inst.instruction === r.instruction ? inst.params : null;
  } catch (e) {
    if (e instanceof UnknownTemplateError) return null;
    throw e;
  }
}
