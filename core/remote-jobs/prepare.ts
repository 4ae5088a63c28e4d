import { readFileSync } from 'node:fs';
import { openSimDroid } from '../devices/provider.js';
import { createModel, type PolicyModel } from '../policy/builtin.js';
import { deserializeCheckpoint, serializeCheckpoint } from '../policy/checkpoint.js';
import { DEFAULT_ADVANTAGE_OPTIONS } from '../rl/grpo.js';
import type { ReadableDB } from '../store/db.js';
import type { EpisodeId } from '../store/ids.js';
import { loadTrajectory } from '../store/trajectory.js';
import { instantiate, type TaskInstance } from '../tasks/instance.js';
import { getTemplate, TASKS } from '../tasks/registry.js';
import { splitInstances, type SplitName, type SplitPart } from '../tasks/splits.js';
import { assertNever } from '../util/errors.js';
import { createRng } from '../util/rng.js';
import { writeBundle, type Bundle } from './bundle.js';
import { BundleError } from './errors.js';
import { prepareRewardBundle, type RewardBundleSettings } from './prepare-rewards.js';
import type { JobKind } from './protocol.js';
import { collectGrpoSteps, collectSftSteps, type BundleStep } from './steps.js';
import { trainingSteps } from './vlm-episodes.js';

/**
 * Builds a job's dataset bundle from what the user names on the command line or in the Jobs view:
 * task instances (a split part, or the instances of stored episodes) and a starting checkpoint.
 * builtin-sft collects the oracle's demonstrations on an embedded SimDroid; builtin-grpo rolls out
 * one GRPO iteration's groups with the starting policy and computes the advantages here — the
 * trainer only runs the update; progrm / prm collect what `awb rewards fit` trains on
 * (prepare-rewards.ts) and start from a fresh seeded reward model (docs/jobs.md).
 */
export interface PrepareOptions {
  kind: JobKind;
  file: string;
  createdAt: number;
  /** Instances from a split part (default unseen-instance/train) … */
  split?: { split: SplitName; part: SplitPart };
  /** … or those of stored episodes (which also go into episodes.jsonl). */
  episodes?: { db: ReadableDB; ids: readonly EpisodeId[] };
  /** At most this many instances (after the split's order). */
  limit?: number;
  /** Starting checkpoint path; default a fresh model seeded by `seed`. */
  init?: string;
  seed: number;
  grpo?: { groupSize: number; temperature: number; maxSteps: number };
  /** progrm / prm: the collection's and the model's settings (`awb rewards fit` flags). */
  rewards?: RewardBundleSettings;
  /** Called after each instance's collection (progress lines). */
  onInstance?: (done: number, total: number) => void;
}

export interface Prepared {
  bundle: Bundle;
  instances: number;
  /** For GRPO: groups skipped for zero reward std (no signal). */
  skippedGroups: number;
  /** What the user should know about the data (progrm / prm: episodes left out, sample counts). */
  notes: string[];
  /** What the bundle trains on, in words, when steps.jsonl's count is not it (vlm kinds: the steps of episodes.jsonl). */
  holds?: string;
}

/**
 * A vlm kind's bundle from stored episodes: each step a VLM policy decided carries the request it was sent and the
 * reply to learn (vlm-episodes.ts trainingSteps); BundleError when no step has one (episodes of another policy).
 */
function prepareVlmBundle(kind: 'vlm-sft' | 'vlm-grpo', file: string, createdAt: number, episodes: { db: ReadableDB; ids: readonly EpisodeId[] }): Prepared {
  let replies = 0;
  let overrides = 0;
  const skipped: string[] = [];
  const bundle = writeBundle({
    kind, file, createdAt, episodes,
    annotateEpisode: (line, id) => {
      const t = trainingSteps(episodes.db, id, line.steps as Array<Record<string, unknown>>);
      replies += t.replies;
      overrides += t.overrides;
      skipped.push(...t.skipped);
      return { ...line, steps: t.steps };
    },
  });
  if (replies + overrides === 0) {
    throw new BundleError(kind, `none of the ${skipped.length} steps of episodes ${episodes.ids.join(', ')} has a recorded VLM request and reply (${skipped[0] ?? 'no steps'}); vlm jobs train on what a VLM policy was sent and answered`);
  }
  const notes = skipped.length ? [`${skipped.length} step${skipped.length === 1 ? '' : 's'} left out of training (${skipped.slice(0, 3).join('; ')}${skipped.length > 3 ? '; …' : ''})`] : [];
  return {
    bundle, instances: episodes.ids.length, skippedGroups: 0, notes,
    holds: `${replies + overrides} steps (${replies} model replies, ${overrides} overrides in the model's format) from ${episodes.ids.length} episodes`,
  };
}

function instancesOf(o: PrepareOptions): TaskInstance[] {
  let list: TaskInstance[];
  if (o.episodes) {
    const seen = new Set<string>();
    list = [];
    for (const id of o.episodes.ids) {
      const t = loadTrajectory(o.episodes.db, id);
      const key = `${t.instance.templateId}/${t.instance.seed}`;
      if (seen.has(key)) continue;
      seen.add(key);
      list.push(instantiate(getTemplate(t.instance.templateId), t.instance.seed));
    }
  } else {
    const s = o.split ?? { split: 'unseen-instance', part: 'train' };
    list = splitInstances(TASKS, s.split, s.part);
  }
  return o.limit === undefined ? list : list.slice(0, o.limit);
}

function initModel(o: PrepareOptions): { model: PolicyModel; text: string } {
  if (o.init) {
    const text = readFileSync(o.init, 'utf8');
    return { model: deserializeCheckpoint(text, o.init).model, text };
  }
  const model = createModel(createRng(`jobs/init/${o.seed}`));
  return { model, text: serializeCheckpoint(model, { init: 'fresh', seed: o.seed }) };
}

export async function prepareBundle(o: PrepareOptions): Promise<Prepared> {
  switch (o.kind) {
    case 'builtin-sft':
    case 'builtin-grpo': {
      const instances = instancesOf(o);
      if (!instances.length) throw new BundleError(o.kind, 'no task instances selected');
      const { model, text } = initModel(o);
      const device = openSimDroid({ serial: 'simdroid-jobs' });
      let steps: BundleStep[];
      let skippedGroups = 0;
      try {
        if (o.kind === 'builtin-sft') {
          steps = (await collectSftSteps(device, instances, model)).steps;
        } else {
          const g = o.grpo ?? { groupSize: 4, temperature: 1, maxSteps: 20 };
          const r = await collectGrpoSteps([device], instances, { ...g, model, seed: o.seed, advantage: DEFAULT_ADVANTAGE_OPTIONS, mode: 'trajectory' });
          steps = r.steps;
          skippedGroups = r.groups.filter((s) => s.skipped).length;
          if (!steps.length) throw new BundleError(o.kind, `all ${r.groups.length} groups had equal rewards (no signal); use more instances or a larger group`);
        }
      } finally {
        device.close();
      }
      const bundle = writeBundle({ kind: o.kind, file: o.file, createdAt: o.createdAt, steps, initPolicy: text, ...(o.episodes ? { episodes: o.episodes } : {}) });
      return { bundle, instances: instances.length, skippedGroups, notes: [] };
    }
    case 'vlm-sft':
    case 'vlm-grpo': {
      if (!o.episodes) throw new BundleError(o.kind, 'needs --episodes (the screenshots it learns from)');
      return prepareVlmBundle(o.kind, o.file, o.createdAt, o.episodes);
    }
    case 'progrm':
    case 'prm': {
      // The local fit's rules: its instances are a split part's (never stored episodes), and never the test part it is scored on.
      if (o.episodes) throw new BundleError(o.kind, 'learns from oracle and perturbed episodes it collects on a split part (--from-split), not from stored episodes');
      if (o.init) throw new BundleError(o.kind, 'starts from a fresh model seeded by --seed; --init is for the builtin policy kinds');
      if (o.split?.part === 'test') throw new BundleError(o.kind, `--from-split ${o.split.split}:test: reward models are scored on the test part; fit on train (default) or adapt`);
      const instances = instancesOf(o);
      if (!instances.length) throw new BundleError(o.kind, 'no task instances selected');
      const device = openSimDroid({ serial: 'simdroid-jobs' });
      try {
        const r = await prepareRewardBundle({
          kind: o.kind, file: o.file, createdAt: o.createdAt, device, instances, seed: o.seed, settings: o.rewards ?? {},
          ...(o.onInstance ? { onInstance: (done: number) => o.onInstance!(done, instances.length) } : {}),
        });
        return { bundle: r.bundle, instances: instances.length, skippedGroups: 0, notes: r.notes };
      } finally {
        device.close();
      }
    }
    default:
      return assertNever(o.kind, 'job kind');
  }
}
