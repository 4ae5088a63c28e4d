import { parseAction, type Action, type ActionType } from '../actions/schema.js';
import type { Device, ScreenInfo } from '../device/device.js';
import type { Observation } from '../device/observation.js';
import { OraclePolicy } from '../episode/policies/oracle.js';
import type { Policy } from '../episode/policy.js';
import type { EpisodeRecorder } from '../episode/record.js';
import { runEpisode } from '../episode/runner.js';
import { stepInputs, type PolicyModel } from '../policy/builtin.js';
import { matchCandidate, type CandidateKind } from '../policy/candidates.js';
import { getTree, loadTrajectory, type EpisodeId, type ReadableDB, type StoredStep, type Trajectory } from '../store/index.js';
import { FREE_FORM_ID } from '../tasks/free-form.js';
import type { TaskInstance } from '../tasks/instance.js';
import { flattenUiTree, parseUiTree } from '../a11y/ui-tree.js';
import { WorkbenchError } from '../util/errors.js';

/**
 * Demonstrations for SFT (core/rl/sft.ts): the steps of an oracle or a person, as the builtin
 * policy's candidates (features built with the model's encoder, from the same screen and history
 * the policy would see) plus the index of the demonstrated action among them. Every step keeps the
 * package in the foreground and the task's apps, because an adapter only scores its own app's
 * screens (core/policy/adapter-policy.ts) and is trained on those steps alone.
 */
export interface Demonstration {
  features: Float32Array;
  n: number;
  chosen: number;
  /** The kind of the demonstrated action (for per-kind accuracy). */
  kind: CandidateKind;
  templateId: string;
  /** The foreground package of the demonstrated step. */
  package: string;
  /** The apps of the demonstrated task (what selects an adapter on the home screen). */
  taskApps: readonly string[];
}

export interface DemonstrationSet {
  demos: Demonstration[];
  /** Steps whose action is not among the candidates (or, recorded, whose screen could not be rebuilt), by action type; not trained on. */
  skipped: Partial<Record<ActionType | 'no-tree', number>>;
  episodes: number;
  /** Oracle episodes that did not succeed (their steps are kept: the oracle's actions are still the reference). */
  oracleFailures: number;
}

const emptySet = (): DemonstrationSet => ({ demos: [], skipped: {}, episodes: 0, oracleFailures: 0 });

function skip(set: DemonstrationSet, kind: ActionType | 'no-tree'): void {
  set.skipped[kind] = (set.skipped[kind] ?? 0) + 1;
}

export interface CollectDemonstrationsOptions {
  /** Stops before the next instance. */
  signal?: AbortSignal;
  /** Before each instance (0-based), e.g. to report progress or pause; an abort seen after it stops there. */
  beforeInstance?: (index: number, total: number) => void;
  /** A recorder per demonstration episode (the SFT run's StoreRecorder), so the demonstrations are browsable. */
  recorder?: () => EpisodeRecorder;
}

/** Runs the oracle on each instance and records every step it takes as a demonstration. */
export async function collectDemonstrations(
  device: Device, instances: readonly TaskInstance[], model: PolicyModel, opts: CollectDemonstrationsOptions = {},
): Promise<DemonstrationSet> {
  const set = emptySet();
  for (const [index, instance] of instances.entries()) {
    opts.beforeInstance?.(index, instances.length);
    if (opts.signal?.aborted) break;
    const oracle = new OraclePolicy();
    const spy: Policy = {
      name: 'oracle',
      start: (ctx) => oracle.start(ctx),
      act(obs, ctx) {
        const decision = oracle.act(obs, ctx);
        const action = parseAction(decision.action);
        const { candidates, features } = stepInputs(model, obs, ctx);
        const chosen = matchCandidate(candidates, action, obs);
        if (chosen < 0) skip(set, action.action_type);
        else set.demos.push({ features, n: candidates.length, chosen, kind: candidates[chosen]!.kind, templateId: instance.template.id, package: obs.foreground.package, taskApps: instance.template.apps });
        return decision;
      },
    };
    const recorder = opts.recorder?.();
    // Recorded demonstrations keep half-size screenshots: enough to see what the oracle did.
    const r = await runEpisode({ device, instance, policy: spy, ...(recorder ? { recorder, screenshots: 'half' as const } : {}) });
    set.episodes++;
    if (!r.success) set.oracleFailures++;
  }
  return set;
}

export class DemonstrationSourceError extends WorkbenchError {
  override name = 'DemonstrationSourceError';
  constructor(readonly problems: string[]) {
    super(`Cannot use these episodes as demonstrations:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** A click given by coordinates (a person tapping the screen) names the element it touched by index. */
function withTargetIndex(step: StoredStep, action: Action): Action {
  if ((action.action_type === 'click' || action.action_type === 'long_press') && action.index === undefined && step.target) {
    return { action_type: action.action_type, index: step.target.ordinal };
  }
  return action;
}

/**
 * The recorded episodes, checked for use as demonstrations: each must exist, have succeeded and have
 * shown `pkg` at some step. Every problem is listed at once (DemonstrationSourceError).
 */
export function demonstrationEpisodes(db: ReadableDB, episodeIds: readonly number[], pkg: string): Trajectory[] {
  const problems: string[] = [];
  const trajectories: Trajectory[] = [];
  for (const id of episodeIds) {
    let t;
    try {
      t = loadTrajectory(db, id as EpisodeId);
    } catch (e) {
      problems.push(`episode ${id}: ${(e as Error).message}`);
      continue;
    }
    if (t.episode.success !== true) problems.push(`episode ${id} (${t.episode.policy}, ${t.instance.templateId}) did not succeed (status ${t.episode.status})`);
    else if (!t.steps.some((s) => s.foreground.package === pkg)) problems.push(`episode ${id} (${t.instance.templateId}) never shows ${pkg}`);
    else trajectories.push(t);
  }
  if (problems.length) throw new DemonstrationSourceError(problems);
  return trajectories;
}

/**
 * Demonstrations from recorded episodes (a person's in the UI's manual mode, `awb run --policy human`,
 * or any successful run; checked by demonstrationEpisodes): each step's screen is rebuilt from the
 * stored tree and foreground, the history from the steps before it, and the recorded action matched
 * against the candidates.
 */
export function storedDemonstrations(db: ReadableDB, episodeIds: readonly number[], model: PolicyModel, pkg: string): DemonstrationSet {
  const set = emptySet();
  for (const t of demonstrationEpisodes(db, episodeIds, pkg)) {
    set.episodes++;
    // The history as the builtin policy would have made it: taps by element index.
    const history = t.steps.map((s) => (s.action ? { ...s, action: withTargetIndex(s, s.action) } : s));
    t.steps.forEach((step, i) => {
      if (!step.action || step.error) return;
      if (!step.tree) return skip(set, 'no-tree');
      const tree = parseUiTree(getTree(db, step.tree));
      const root = tree.roots[0]?.bounds;
      const screen: ScreenInfo = t.episode.device
        ? { width: t.episode.device.width, height: t.episode.device.height, density: t.episode.device.density }
        : { width: root?.right ?? 1080, height: root?.bottom ?? 2400, density: 420 };
      const obs: Observation = { screen, tree, elements: flattenUiTree(tree), foreground: step.foreground };
      const ctx = { instruction: t.instance.instruction, step: step.index, history: history.slice(0, i) };
      const action = history[i]!.action!;
      const { candidates, features } = stepInputs(model, obs, ctx);
      const chosen = matchCandidate(candidates, action, obs);
      if (chosen < 0) return skip(set, action.action_type);
      set.demos.push({ features, n: candidates.length, chosen, kind: candidates[chosen]!.kind, templateId: t.instance.templateId, package: step.foreground.package, taskApps: t.instance.templateId === FREE_FORM_ID ? [] : t.instance.template.apps });
    });
  }
  return set;
}
