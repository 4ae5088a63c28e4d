import { assertSeed, createRng } from '../util/rng.js';
import { fillTemplate, type TaskTemplate } from './task.js';
import { issueLines } from '../util/zod-issues.js';

/** One concrete task: a template, the seed it was drawn with, its parameters and instruction. */
export interface TaskInstance<P = unknown> {
  readonly template: TaskTemplate<P>;
  readonly seed: number;
  readonly params: P;
  readonly instruction: string;
}

export class TaskParamsError extends Error {
  override name = 'TaskParamsError';
  constructor(readonly templateId: string, readonly seed: number, readonly issues: string[]) {
    super(`${templateId} (seed ${seed}): generated parameters are invalid: ${issues.join('; ')}`);
  }
}

/**
 * Draws an instance from a seed. The generator is keyed by template id and seed, so adding or
 * reordering templates never changes another template's instances.
 */
export function instantiate<P>(template: TaskTemplate<P>, seed: number): TaskInstance<P> {
  assertSeed(seed);
  const raw = template.generate(createRng(`${template.id}:${seed}`));
  const parsed = template.params.safeParse(raw);
  if (!parsed.success) {
    throw new TaskParamsError(template.id, seed, issueLines(parsed.error.issues));
  }
  const params = parsed.data;
  const instruction = template.instruction ? template.instruction(params) : fillTemplate(template.template, params as Record<string, unknown>);
  return { template, seed, params, instruction };
}

/** Parameters given from outside (`awb run --params`) do not fit the template's schema. */
export class GivenParamsError extends Error {
  override name = 'GivenParamsError';
  constructor(readonly templateId: string, readonly params: unknown, readonly issues: string[]) {
    super(`${templateId}: the given parameters ${clip(JSON.stringify(params) ?? String(params))} are invalid: ${issues.join('; ')}`);
  }
}

function clip(s: string): string {
  return s.length > 200 ? `${s.slice(0, 200)}…` : s;
}

/**
 * An instance whose parameters come from outside instead of a seed: a task another harness (AndroidWorld's
 * initialize_task) set up on a device, to be solved and checked by ours. Validated with the template's
 * schema; `seed` only labels the instance in recordings.
 */
export function instanceWithParams<P>(template: TaskTemplate<P>, params: unknown, seed = 0): TaskInstance<P> {
  assertSeed(seed);
  const parsed = template.params.safeParse(params);
  if (!parsed.success) throw new GivenParamsError(template.id, params, issueLines(parsed.error.issues));
  const p = parsed.data;
  const instruction = template.instruction ? template.instruction(p) : fillTemplate(template.template, p as Record<string, unknown>);
  return { template, seed, params: p, instruction };
}

/** Parameters are compared as canonical JSON to find seeds that give the same instance (the paper's dedup). */
export function instanceKey(inst: TaskInstance): string {
  return `${inst.template.id}:${JSON.stringify(inst.params)}`;
}
