import type { z } from 'zod';
import { assertNever } from '../../util/errors.js';
import type { RewardComponent, RewardEpisode, StepRewardValue } from '../component.js';
import type { AdmireDetail, AdmireMilestoneDetail, DetailedRewardValues } from '../details.js';
import { AdmireConfigSchema, admireWeight, type AdmireConfig } from './config.js';
import type { SuccessTrace } from './distill.js';
import { hashedEmbedder, needsPrepare, type TextEmbedder } from './embedder.js';
import { matchMilestones, milestoneRewards, type MilestoneMatch } from './match.js';
import { LlmEndpointError, MilestoneAnswerError } from './llm.js';
import type { MilestoneMemory, RefineResult } from './memory.js';
import { fillPlaceholders, placeholderValues } from './placeholders.js';

export interface AdmireRewardOptions {
  memory: MilestoneMemory;
  /** Default: the built-in hashed n-gram embedder (256 buckets, character trigrams). */
  embedder?: TextEmbedder;
  config?: z.input<typeof AdmireConfigSchema>;
  /** E in λ0·γ^E: the training iteration (default 1, Alg. 1's first). Trainers update it. */
  epoch?: number;
  /**
   * Recorded successes of a template, asked once for a template the memory has no milestones for
   * (recomputing rewards on stored episodes distils from the store's successes first).
   */
  bootstrap?: (templateId: string) => readonly SuccessTrace[];
}

/** What one episode's match looks like, for the replay viewer's milestone list. */
export interface AdmireTrace {
  version: number;
  /** The milestones as compared: placeholders filled from this instance. */
  milestones: string[];
  match: MilestoneMatch;
  raw: number[];
  weight: number;
}

const q = (s: string) => JSON.stringify(s.length > 60 ? `${s.slice(0, 57)}…` : s);

/**
 * ADMIRE as a reward component (kind 'admire'): each step's description is matched against the
 * template's current milestones (sequential pointer, cosine > δ), and credit is assigned
 * asymmetrically (success: hit steps only; failure: k/K base plus ζ·similarity on hits), weighted by
 * λ0·γ^E unless `weighted` is off. The outcome and format terms of the paper's total are other
 * components. `observe` runs Phase 1 (milestone distillation and refinement) on a batch.
 */
export class AdmireReward implements RewardComponent {
  readonly kind = 'admire' as const;
  readonly config: AdmireConfig;
  readonly embedder: TextEmbedder;
  epoch: number;
  private readonly memory: MilestoneMemory;
  private readonly bootstrap: AdmireRewardOptions['bootstrap'];
  /** Templates already bootstrapped: null, or why distilling failed. */
  private readonly bootstrapped = new Map<string, string | null>();

  constructor(opts: AdmireRewardOptions) {
    this.memory = opts.memory;
    this.bootstrap = opts.bootstrap;
    this.embedder = opts.embedder ?? hashedEmbedder();
    this.config = AdmireConfigSchema.parse(opts.config ?? {});
    this.epoch = opts.epoch ?? 1;
  }

  /** Phase 1 of an iteration (Alg. 1 lines 7–13): each template's successes distil or refine its milestones. */
  async observe(episodes: readonly RewardEpisode[], signal?: AbortSignal): Promise<RefineResult[]> {
    const byTemplate = new Map<string, SuccessTrace[]>();
    for (const ep of episodes) {
      if (ep.success !== true) continue;
      const trace: SuccessTrace = { instruction: ep.instruction, params: ep.params, descriptions: ep.steps.flatMap((s) => (s.description ? [s.description] : [])) };
      byTemplate.set(ep.templateId, [...(byTemplate.get(ep.templateId) ?? []), trace]);
    }
    const out: RefineResult[] = [];
    for (const [templateId, traces] of [...byTemplate].sort(([a], [b]) => a.localeCompare(b))) {
      out.push(await this.memory.refine(templateId, traces, signal));
    }
    return out;
  }

  /**
   * Embeds the episodes' step descriptions and filled milestones ahead of matching, for an embedder
   * whose inference is async (a transformers.js model); nothing for the built-in one. compute() does
   * it per episode (so detail() after compute() finds the vectors); a trainer may call it once for a
   * whole batch so the model sees larger batches.
   */
  async prepareEmbeddings(episodes: readonly RewardEpisode[], signal?: AbortSignal): Promise<void> {
    if (!needsPrepare(this.embedder)) return;
    const texts = episodes.flatMap((ep) => {
      const values = placeholderValues(ep.params);
      const milestones = this.memory.get(ep.templateId)?.milestones.map((m) => fillPlaceholders(m, values)) ?? [];
      if (!milestones.length) return []; // nothing to match against: no inference
      return [...ep.steps.flatMap((s) => (s.description ? [s.description] : [])), ...milestones];
    });
    await this.embedder.prepare(texts, signal);
  }

  /** The match behind the rewards, or null when the template has no milestones yet. */
  trace(episode: RewardEpisode, success: boolean): AdmireTrace | null {
    const current = this.memory.get(episode.templateId);
    if (!current || current.milestones.length === 0) return null;
    const values = placeholderValues(episode.params);
    const milestones = current.milestones.map((m) => fillPlaceholders(m, values));
    const match = matchMilestones(
      episode.steps.map((s) => (s.description ? this.embedder.embed(s.description) : null)),
      milestones.map((m) => this.embedder.embed(m)),
      this.config,
    );
    const weight = this.config.weighted ? admireWeight(this.config, this.epoch) : 1;
    return { version: current.version, milestones, match, raw: milestoneRewards(match, success, this.config), weight };
  }

  /** The values and the milestone list with its hits (core/rewards/details.ts), for the replay viewer. */
  async computeDetailed(episode: RewardEpisode, signal?: AbortSignal): Promise<DetailedRewardValues> {
    const values = await this.compute(episode, signal);
    return { values, detail: this.detail(episode) };
  }

  /**
   * The match as the viewer lists it. The match does not depend on the verdict (only the credit
   * does), so an episode without one still shows which milestones its steps hit.
   */
  detail(episode: RewardEpisode): AdmireDetail {
    const base = { kind: 'admire' as const, templateId: episode.templateId, embedderId: this.embedder.id, delta: this.config.delta };
    const failed = this.bootstrapped.get(episode.templateId);
    const t = failed ? null : this.trace(episode, episode.success ?? false);
    if (!t) {
      const steps = episode.steps.map(() => ({ compared: null, similarity: null, hit: false }));
      const note = failed ? `milestones could not be distilled (${failed})` : `no milestones for ${episode.templateId} yet (no success distilled)`;
      return { ...base, version: null, milestones: [], steps, weight: this.config.weighted ? admireWeight(this.config, this.epoch) : 1, note };
    }
    const { match: m } = t;
    const milestones: AdmireMilestoneDetail[] = t.milestones.map((text, j) => {
      const hitSteps = m.hit.flatMap((h, i) => (h && m.compared[i] === j ? [i] : []));
      const compared = m.similarity.filter((s, i): s is number => s !== null && m.compared[i] === j);
      const similarity = hitSteps.length ? m.similarity[hitSteps[0]!]! : compared.length ? Math.max(...compared) : null;
      return { text, hitStep: hitSteps[0] ?? null, hitSteps, similarity };
    });
    const steps = episode.steps.map((_, i) => ({ compared: m.compared[i] ?? null, similarity: m.similarity[i] ?? null, hit: m.hit[i] ?? false }));
    const detail: AdmireDetail = { ...base, version: t.version, milestones, steps, weight: t.weight };
    if (episode.success === null) detail.note = 'no checker verdict: the hits are shown, the steps are unscored';
    return detail;
  }

  async compute(episode: RewardEpisode, signal?: AbortSignal): Promise<StepRewardValue[]> {
    const { steps, success } = episode;
    if (this.bootstrap && !this.bootstrapped.has(episode.templateId) && !this.memory.get(episode.templateId)) {
      this.bootstrapped.set(episode.templateId, null);
      try {
        await this.memory.refine(episode.templateId, this.bootstrap(episode.templateId), signal);
      } catch (e) {
        // The LLM distiller's endpoint down or answering garbage: this template's steps are unscored
        // with the reason (asked once per component, not per episode); anything else is a bug.
        if (!(e instanceof LlmEndpointError || e instanceof MilestoneAnswerError)) throw e;
        this.bootstrapped.set(episode.templateId, `${e.name}: ${e.message}`);
      }
    }
    const failed = this.bootstrapped.get(episode.templateId);
    if (failed) {
      const why = `milestones for ${episode.templateId} could not be distilled (${failed})`;
      return steps.map((_, step) => ({ step, value: null, explanation: why }));
    }
    await this.prepareEmbeddings([episode], signal);
    if (success === null) {
      const why = `no checker verdict (${episode.verdictNote ?? 'the episode ended in an error'}): ADMIRE's credit depends on success or failure`;
      return steps.map((_, step) => ({ step, value: null, explanation: why }));
    }
    const t = this.trace(episode, success);
    if (!t) {
      const why = `no milestones for ${episode.templateId} yet (no success distilled)`;
      switch (this.config.noMilestones) {
        case 'zero': return steps.map((_, step) => ({ step, value: 0, explanation: `${why}: 0, the outcome carries the episode` }));
        case 'unscored': return steps.map((_, step) => ({ step, value: null, explanation: why }));
        default: return assertNever(this.config.noMilestones, 'noMilestones');
      }
    }
    const { match: m, milestones, raw, weight } = t;
    const K = m.K;
    return steps.map((_, i) => {
      const at = m.compared[i] ?? null;
      const s = m.similarity[i] ?? null;
      const what = at === null || s === null
        ? steps[i]!.description ? 'all milestones done' : 'no description to match'
        : `${m.hit[i] ? 'hit' : 'no hit'} m${at + 1}/${K} ${q(milestones[at]!)} (cos ${s.toFixed(2)} ${m.hit[i] ? '>' : '≤'} δ ${this.config.delta})`;
      const k = this.config.baseMode === 'running' ? m.kAt[i]! : m.kFinal;
      const credit = success
        ? m.hit[i] ? 'success: similarity' : 'success: no credit off milestones'
        : `failure: base ${k}/${K}${this.config.baseOnFailure ? '' : ' (off)'}${m.hit[i] ? ` + ζ·similarity` : ''}`;
      const weighted = this.config.weighted ? ` × λ ${weight.toFixed(3)}` : '';
      return { step: i, value: raw[i]! * weight, explanation: `${what}; ${credit} = ${raw[i]!.toFixed(3)}${weighted} (milestones v${t.version})` };
    });
  }
}
