import { z } from 'zod';
import { OraclePolicy } from '../episode/policies/oracle.js';
import { RandomPolicy } from '../episode/policies/random.js';
import type { Policy } from '../episode/policy.js';
import type { PolicySpec } from '../episode/parallel/protocol.js';
import type { TaskInstance } from '../tasks/instance.js';
import { createRng } from '../util/rng.js';

/** Policies a suite can run unattended (in worker threads too). */
export const SUITE_POLICIES = ['oracle', 'random'] as const;
export const SuitePolicy = z.enum(SUITE_POLICIES);
export type SuitePolicy = z.infer<typeof SuitePolicy>;

/** Policies `awb run` offers: the suite ones, a person at the terminal, or a recorded episode replayed. */
export const RunPolicy = z.enum([...SUITE_POLICIES, 'human', 'replay']);
export type RunPolicy = z.infer<typeof RunPolicy>;

/** A fresh policy for one episode; the random agent's stream is keyed by the instance, so runs reproduce. */
export function policyFor(name: SuitePolicy, instance: TaskInstance): Policy {
  switch (name) {
    case 'oracle':
      return new OraclePolicy();
    case 'random':
      return new RandomPolicy(createRng(`random/${instance.template.id}/${instance.seed}`));
  }
}

export function policySpec(name: SuitePolicy): PolicySpec {
  return { name };
}

/** `--policy onnx:FILE`, or a path ending in .onnx: a builtin policy scored in ONNX Runtime (core/policy/onnx). The path, else null. */
export function onnxPolicyPath(arg: string): string | null {
  if (arg.startsWith('onnx:')) return arg.slice('onnx:'.length);
  return /\.onnx$/i.test(arg) ? arg : null;
}
