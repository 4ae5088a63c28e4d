import type { Device } from '../device/device.js';
import type { EpisodeResult, EpisodeStart, ObservationRecord, StepRecord } from '../episode/record.js';
import type { EpisodeExtras, PoolRecorder } from '../rollout/threads/protocol.js';
import { inTransaction, type WritableDB } from '../store/db.js';
import { putSubgoalProgress, StoreRecorder, type EpisodeId, type RunId, type SubgoalProgress } from '../store/index.js';
import type { SubgoalTracker } from '../rewards/episode.js';
import type { TaskInstance } from '../tasks/instance.js';
import { assertNever } from '../util/errors.js';
import { UsageError } from './args.js';

/**
 * Where an episode's ground-truth subgoal progress comes from: a SubgoalTracker on the device in
 * this process, or the records of a parallel worker (the pool hands them to `end`).
 */
export type SubgoalSource = { kind: 'tracker'; tracker: SubgoalTracker } | { kind: 'worker'; instance: TaskInstance };

/**
 * A trajectory-store recorder (`awb run/suite run --subgoals`) that also stores the episode's
 * subgoal progress, in the transaction that ends the episode: a finished episode always has its
 * progress, and a crash before the end leaves neither (the episode stays 'running' until
 * `--resume` marks it interrupted and runs it again).
 */
export class SubgoalStoreRecorder implements PoolRecorder {
  private readonly store: StoreRecorder;

  constructor(private readonly db: WritableDB, runId: RunId, private readonly source: SubgoalSource) {
    this.store = new StoreRecorder(db, runId);
  }

  /** The episode being recorded, else the last one recorded (null before the first). */
  get episodeId(): EpisodeId | null {
    return this.store.episodeId;
  }

  begin(start: EpisodeStart): void {
    this.store.begin(start);
  }

  step(step: StepRecord, before: ObservationRecord): void {
    this.store.step(step, before);
  }

  /** The progress is checked against the stored steps (putSubgoalProgress); a mismatch rolls the end back too. */
  end(result: EpisodeResult, final: ObservationRecord, extras: EpisodeExtras = {}): void {
    const progress = this.progressOf(extras);
    inTransaction(this.db, () => {
      this.store.end(result, final);
      putSubgoalProgress(this.db, this.store.episodeId!, progress);
    });
  }

  private progressOf(extras: EpisodeExtras): SubgoalProgress {
    const s = this.source;
    switch (s.kind) {
      case 'tracker':
        return s.tracker.progress();
      case 'worker':
        // No records at all: the episode failed before it began on the device (no step to count).
        return extras.subgoals ?? { names: s.instance.template.subgoals(s.instance.params).map((g) => g.name), done: [] };
      default:
        return assertNever(s, 'subgoal source');
    }
  }
}

/**
 * `--subgoals` on a device behind adb: the subgoal checks read state through shell queries, which a
 * SimDroid served over adb answers as the embedded one does, but only SimDroid's are ground truth
 * the task suite was written against. SimDroid says who it is in its build properties (as its adb
 * banner does); anything else is refused.
 */
export async function requireSimDroid(device: Device): Promise<void> {
  const r = await device.shell('getprop ro.product.manufacturer');
  const maker = r.stdout.trim();
  if (maker !== 'SimDroid') {
    throw new UsageError(`--subgoals reads SimDroid's ground truth, but ${device.serial} is not a SimDroid (ro.product.manufacturer ${JSON.stringify(maker)}); a real device or AVD has no ground-truth subgoals: drop --subgoals or --device`);
  }
}
