import { z } from 'zod';
import { WorkbenchError } from '../util/errors.js';
import { checkRewardValues, REWARD_KINDS, RewardComponentError, type RewardComponent, type RewardEpisode, type RewardKind, type StepRewardValue } from './component.js';
import type { RewardDetail } from './details.js';
import { loadRewardModule, RewardUnavailableError, type RewardComponentModule, type RewardContext } from './registry.js';
import { issueLines } from '../util/zod-issues.js';

/**
 * Composing reward components: a config names the components and their weights (and options), it is
 * validated once — its shape, then every component's options against that component's schema, every
 * problem listed — and each episode gets every component's per-step values plus a weighted total.
 */

export const RewardComponentConfig = z.strictObject({
  kind: z.enum(REWARD_KINDS).describe('Which component'),
  weight: z.number().finite().describe('Weight in the per-step total; 0 computes and shows it without counting it'),
  options: z.record(z.string(), z.unknown()).optional().describe("The component's own options (see docs/rewards.md); defaults are the paper's"),
});

export const RewardConfigSchema = z.strictObject({
  components: z.array(RewardComponentConfig).min(1, 'at least one component is needed').describe('The components, in display order (each kind once)'),
});
export type RewardConfig = z.infer<typeof RewardConfigSchema>;

/** A config that does not validate; `issues` lists every problem as `path: message`. */
export class RewardConfigError extends WorkbenchError {
  override name = 'RewardConfigError';
  constructor(readonly issues: string[]) {
    super(`Invalid reward config:\n  ${issues.join('\n  ')}`);
  }
}

/** Validates a config's shape; throws RewardConfigError listing every problem. */
export function parseRewardConfig(raw: unknown): RewardConfig {
  const r = RewardConfigSchema.safeParse(raw);
  // Checked on the raw input, so a repeated kind is listed beside the shape problems (zod skips refinements then).
  const issues = [...(r.success ? [] : issueLines(r.error.issues, { root: '(root)' })), ...duplicateKinds(raw)];
  if (issues.length || !r.success) throw new RewardConfigError(issues);
  return r.data;
}

function duplicateKinds(raw: unknown): string[] {
  const list = (raw as { components?: unknown } | null)?.components;
  if (!Array.isArray(list)) return [];
  const seen = new Map<unknown, number>();
  return list.flatMap((c: unknown, i) => {
    const kind = (c as { kind?: unknown } | null)?.kind;
    if (typeof kind !== 'string') return [];
    const first = seen.get(kind);
    if (first === undefined) seen.set(kind, i);
    return first === undefined ? [] : [`components.${i}.kind: ${kind} is already components[${first}]`];
  });
}

/** The config of `--components outcome,format`: every weight 1, default options. */
export function configOfKinds(kinds: readonly string[]): RewardConfig {
  return parseRewardConfig({ components: kinds.map((kind) => ({ kind, weight: 1 })) });
}

interface PreparedComponent {
  kind: RewardKind;
  weight: number;
  module: RewardComponentModule;
  options: unknown;
}

/** A validated config with its modules loaded; `instantiate` builds the components for one group. */
export interface PreparedRewards {
  readonly config: RewardConfig;
  instantiate(ctx?: RewardContext): Promise<RewardSet>;
}

/**
 * Loads each component's module and parses its options. Throws RewardUnavailableError for a kind
 * without a module, else RewardConfigError with every options problem of every component.
 */
export async function prepareRewards(raw: unknown): Promise<PreparedRewards> {
  const config = parseRewardConfig(raw);
  const modules = await Promise.allSettled(config.components.map((c) => loadRewardModule(c.kind)));
  const unavailable = modules.flatMap((m) => (m.status === 'rejected' ? [m.reason as unknown] : []));
  if (unavailable.length) {
    const first = unavailable[0];
    if (unavailable.length === 1 || !unavailable.every((e) => e instanceof RewardUnavailableError)) throw first;
    const errs = unavailable as RewardUnavailableError[];
    throw new RewardUnavailableError(errs[0]!.kind, `${errs[0]!.reason}; and ${errs.slice(1).map((e) => `${JSON.stringify(e.kind)}: ${e.reason}`).join('; ')}`);
  }
  const issues: string[] = [];
  const prepared: PreparedComponent[] = [];
  config.components.forEach((c, i) => {
    const module = (modules[i] as PromiseFulfilledResult<RewardComponentModule>).value;
    const r = module.options.safeParse(c.options ?? {});
    if (r.success) prepared.push({ kind: c.kind, weight: c.weight, module, options: r.data });
    else issues.push(...issueLines(r.error.issues, { root: '(root)', prefix: ['components', i, 'options'] }).map((l) => `${l} (${c.kind})`));
  });
  if (issues.length) throw new RewardConfigError(issues);
  return {
    config,
    instantiate: async (ctx = {}) => new RewardSet(await Promise.all(prepared.map(async (p) => ({
      kind: p.kind, weight: p.weight, component: await p.module.create(p.options, ctx),
    })))),
  };
}

/** One step's values from every component, and the weighted total (null when a counted component is). */
export interface StepRewardRow {
  step: number;
  description?: string;
  values: Partial<Record<RewardKind, StepRewardValue>>;
  total: number | null;
  /** The sum written out (`1·outcome + 0.5·format`), or why the total is unscored. */
  totalExplanation: string;
}

export interface RewardBreakdown {
  components: { kind: RewardKind; weight: number }[];
  /** Each component's values, in step order (what the store keeps under its kind). */
  byKind: Partial<Record<RewardKind, StepRewardValue[]>>;
  steps: StepRewardRow[];
  /** Each detailed component's detail, when asked for (`compute(…, { details: true })`). */
  details?: Partial<Record<RewardKind, RewardDetail>>;
}

export interface ComputeOptions {
  /** Also collect each component's detail (for the replay viewer); training leaves it off. */
  details?: boolean;
}

/** Components of one config, built for one group of episodes. */
export class RewardSet {
  constructor(readonly components: readonly { kind: RewardKind; weight: number; component: RewardComponent }[]) {}

  async compute(episode: RewardEpisode, signal?: AbortSignal, opts: ComputeOptions = {}): Promise<RewardBreakdown> {
    const byKind: Partial<Record<RewardKind, StepRewardValue[]>> = {};
    const details: Partial<Record<RewardKind, RewardDetail>> = {};
    for (const c of this.components) {
      let values: StepRewardValue[];
      if (opts.details && c.component.computeDetailed) {
        const r = await c.component.computeDetailed(episode, signal);
        if (r.detail.kind !== c.kind) throw new RewardComponentError(c.kind, 'its detail is of another kind', r.detail.kind);
        values = r.values;
        details[c.kind] = r.detail;
      } else values = await c.component.compute(episode, signal);
      checkRewardValues(c.kind, episode, values);
      byKind[c.kind] = values;
    }
    const out: RewardBreakdown = {
      components: this.components.map((c) => ({ kind: c.kind, weight: c.weight })),
      byKind,
      steps: episode.steps.map((s, i) => this.row(i, s.description, byKind)),
    };
    if (opts.details) out.details = details;
    return out;
  }

  /**
   * total_t = Σ_k w_k · r_{k,t} over the components with w_k ≠ 0. A null r_{k,t} in any of them makes
   * total_t null, with the component's reason: an unscored step must not read as a 0 reward.
   */
  private row(step: number, description: string | undefined, byKind: Partial<Record<RewardKind, StepRewardValue[]>>): StepRewardRow {
    const values: Partial<Record<RewardKind, StepRewardValue>> = {};
    let total = 0;
    const terms: string[] = [];
    const unscored: string[] = [];
    for (const c of this.components) {
      const v = byKind[c.kind]![step]!;
      values[c.kind] = v;
      if (c.weight === 0) continue;
      if (v.value === null) unscored.push(`${c.kind} unscored (${v.explanation})`);
      else {
        total += c.weight * v.value;
        terms.push(`${c.weight}·${c.kind}(${round(v.value)})`);
      }
    }
    const row: StepRewardRow = unscored.length
      ? { step, values, total: null, totalExplanation: unscored.join('; ') }
      : { step, values, total, totalExplanation: terms.join(' + ') || 'no weighted component' };
    if (description !== undefined) row.description = description;
    return row;
  }
}

const round = (x: number) => String(Math.round(x * 1000) / 1000);

/** Validates the config, builds its components for the episode's group, and scores the episode. */
export async function computeRewards(episode: RewardEpisode, config: unknown, ctx: RewardContext = {}, signal?: AbortSignal): Promise<RewardBreakdown> {
  const prepared = await prepareRewards(config);
  return (await prepared.instantiate(ctx)).compute(episode, signal);
}
