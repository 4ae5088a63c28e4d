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

/** Parameters are compared as canonical JSON to find seeds that give the same instance (the paper's dedup). */
export function instanceKey(inst: TaskInstance): string {
  return `${inst.template.id}:${JSON.stringify(inst.params)}`;
}
