import { z } from 'zod';
import { ACTION_TYPES } from '../actions/schema.js';
import { validateAgainst } from '../actions/target.js';
import { findApp } from '../device/app-catalog.js';
import { assertNever } from '../util/errors.js';
import { chosenProbability } from './confidence.js';
import type { StepProposal } from './runner.js';

/**
 * Breakpoints are data (so a UI can list, toggle and persist them) evaluated against what the
 * policy proposes for a step, before the step is carried out — the moment a person can still
 * override it.
 */
export const BreakpointSpec = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('invalid_action') }).describe('The proposal does not parse, or cannot be carried out on this screen'),
  z.strictObject({ kind: z.literal('low_confidence'), below: z.number().min(0).max(1) })
    .describe("The policy's probability of the action it chose is below a threshold (its own probability; a softmax of its scores when it gives none)"),
  z.strictObject({ kind: z.literal('app'), app: z.string().min(1) }).describe('A given app (name or package) is in front'),
  z.strictObject({ kind: z.literal('action_type'), actionType: z.enum(ACTION_TYPES) }).describe('The proposal is of a given action type'),
  z.strictObject({ kind: z.literal('step'), index: z.int().nonnegative() }).describe('A given step (0-based)'),
  z.strictObject({ kind: z.literal('terminal') }).describe('The proposal would end the episode (answer or status)'),
]);
export type BreakpointSpec = z.infer<typeof BreakpointSpec>;

export interface Breakpoint {
  id: string;
  enabled: boolean;
  spec: BreakpointSpec;
}

/** The probability the policy gave the action it proposes (core/episode/confidence.ts); null without candidates. */
export function proposalConfidence(p: StepProposal): number | null {
  return chosenProbability(p.decision.candidates, p.action ?? p.decision.action);
}

export function breakpointHit(spec: BreakpointSpec, p: StepProposal): boolean {
  switch (spec.kind) {
    case 'invalid_action':
      if (p.error || !p.action) return true;
      try {
        validateAgainst(p.action, p.obs);
        return false;
      } catch {
        return true;
      }
    case 'low_confidence': {
      const prob = proposalConfidence(p);
      return prob !== null && prob < spec.below;
    }
    case 'app': {
      const pkg = findApp(spec.app)?.package ?? spec.app;
      return p.obs.foreground.package === pkg;
    }
    case 'action_type':
      return p.action?.action_type === spec.actionType;
    case 'step':
      return p.index === spec.index;
    case 'terminal':
      return p.action?.action_type === 'answer' || p.action?.action_type === 'status';
    default:
      return assertNever(spec, 'breakpoint');
  }
}

/** The enabled breakpoints a proposal hits. */
export function hits(breakpoints: readonly Breakpoint[], p: StepProposal): Breakpoint[] {
  return breakpoints.filter((b) => b.enabled && breakpointHit(b.spec, p));
}
