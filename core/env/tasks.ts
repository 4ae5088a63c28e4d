import { instanceWithParams, instantiate, type TaskInstance } from '../tasks/instance.js';
import { getTemplate, TASKS } from '../tasks/registry.js';
import { parsePart, parseSplit, PARTS, SPLITS, splitInstances, type SplitName, type SplitPart } from '../tasks/splits.js';
import type { TaskSpec } from './protocol.js';

/**
 * Which task instance each `reset` of a session plays (docs/env-protocol.md, `reset`): a template's seeds counting up
 * from the one given, the same given params every time, or a split part's instances in order. Everything a spec can
 * get wrong (an unknown template, params the schema refuses, an unknown split) is refused when the source is made, so
 * `create` fails rather than the first `reset`.
 */
export class TaskSource {
  private nextSeed: number;
  private cursor = 0;
  private readonly instances: readonly TaskInstance[] | null;

  constructor(readonly spec: TaskSpec) {
    this.nextSeed = spec.seed ?? 0;
    if (spec.template !== undefined) {
      const t = getTemplate(spec.template);
      // Checked now: bad params are the request's fault, named before any device is touched.
      if (spec.params !== undefined) instanceWithParams(t, spec.params, this.nextSeed);
      else instantiate(t, this.nextSeed);
      this.instances = null;
    } else {
      this.instances = partInstances(parseSplit(spec.split!), parsePart(spec.part!));
    }
  }

  /** The instance of the next episode; `seed` picks it (a template's seed, or the split part's `seed mod n`-th). */
  next(seed?: number): TaskInstance {
    const { spec } = this;
    if (this.instances) {
      const i = seed ?? this.cursor;
      this.cursor = i + 1;
      return this.instances[i % this.instances.length]!;
    }
    const t = getTemplate(spec.template!);
    const s = seed ?? this.nextSeed;
    this.nextSeed = s + 1;
    return spec.params !== undefined ? instanceWithParams(t, spec.params, s) : instantiate(t, s);
  }
}

const byPart = new Map<string, readonly TaskInstance[]>();

/** A split part's instances in the order `awb suite run` plays them, drawn once per process. */
export function partInstances(split: SplitName, part: SplitPart): readonly TaskInstance[] {
  const key = `${split}/${part}`;
  let list = byPart.get(key);
  if (!list) byPart.set(key, (list = splitInstances(TASKS, split, part)));
  return list;
}

/** The `tasks` operation's answer: every template, and each split part as [template, seed] pairs. */
export function taskCatalog(): { templates: unknown[]; splits: Record<string, Record<string, Array<[string, number]>>> } {
  const templates = TASKS.map((t) => ({
    id: t.id, app: t.apps[0], apps: [...t.apps], difficulty: t.difficulty, kind: t.kind, max_steps: t.maxSteps ?? null, template: t.template,
  }));
  const splits: Record<string, Record<string, Array<[string, number]>>> = {};
  for (const split of SPLITS) {
    if (split === 'all') continue;
    splits[split] = {};
    for (const part of PARTS) splits[split]![part] = partInstances(split, part).map((i) => [i.template.id, i.seed]);
  }
  return { templates, splits };
}
