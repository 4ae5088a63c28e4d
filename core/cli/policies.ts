import { z } from 'zod';
import { OraclePolicy } from '../episode/policies/oracle.js';
import { RandomPolicy } from '../episode/policies/random.js';
import type { Policy } from '../episode/policy.js';
import type { TaskInstance } from '../tasks/instance.js';
import { createRng } from '../util/rng.js';

export const POLICY_NAMES = ['oracle', 'random'] as const;
export const PolicyName = z.enum(POLICY_NAMES);
export type PolicyName = z.infer<typeof PolicyName>;

/** A fresh policy for one episode; the random agent's stream is keyed by the instance, so runs reproduce. */
export function policyFor(name: PolicyName, instance: TaskInstance): Policy {
  switch (name) {
    case 'oracle':
      return new OraclePolicy();
    case 'random':
      return new RandomPolicy(createRng(`random/${instance.template.id}/${instance.seed}`));
  }
}
