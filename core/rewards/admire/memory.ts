import { abstractTrace, type MilestoneDistiller, type SuccessTrace } from './distill.js';
import type { MilestoneStore, MilestoneVersion } from './milestone-store.js';

export interface RefineResult {
  templateId: string;
  /** The version in force after refinement (0: still none). */
  version: number;
  /** A new version was stored. */
  changed: boolean;
  milestones: string[];
}

export interface MilestoneMemoryOptions {
  /** Successes kept per template for the consensus (default 16: enough for a quorum, small to align). */
  keepExemplars?: number;
  now?: () => number;
}

const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * ADMIRE's global milestone memory M (Sec. 3.1, Alg. 1 lines 1 and 9–13), keyed by task template so
 * the placeholders generalise over a template's instances (the paper keys by instruction; see
 * docs/rewards.md). `refine` is Phase 1 of an iteration: with the batch's successes of a template it
 * distils M_G^(0) (P_init) or refines M_G^(i) (P_update); a list that differs from the current one is
 * stored as the next version.
 */
export class MilestoneMemory {
  private readonly keep: number;
  private readonly now: () => number;
  constructor(readonly store: MilestoneStore, readonly distiller: MilestoneDistiller, opts: MilestoneMemoryOptions = {}) {
    this.keep = opts.keepExemplars ?? 16;
    this.now = opts.now ?? Date.now;
    if (!(Number.isInteger(this.keep) && this.keep >= 1)) throw new RangeError(`keepExemplars must be an integer >= 1, got ${this.keep}`);
  }

  get(templateId: string): MilestoneVersion | null {
    return this.store.latest(templateId);
  }

  async refine(templateId: string, successes: readonly SuccessTrace[], signal?: AbortSignal): Promise<RefineResult> {
    const current = this.store.latest(templateId);
    const usable = successes.filter((s) => s.descriptions.length > 0);
    if (usable.length === 0) return { templateId, version: current?.version ?? 0, changed: false, milestones: current?.milestones ?? [] };
    // The "superior" success: fewest steps (Alg. 1 line 10 names no criterion; see distill.ts).
    const best = usable.reduce((a, b) => (b.descriptions.length < a.descriptions.length ? b : a));
    const now = this.now();
    this.store.addExemplars(templateId, usable.map(abstractTrace), this.keep, now);
    const exemplars = this.store.exemplars(templateId);
    const milestones = await this.distiller.distill({ templateId, best, exemplars, existing: current?.milestones ?? null }, signal);
    if (milestones.length === 0 || (current && same(current.milestones, milestones))) {
      return { templateId, version: current?.version ?? 0, changed: false, milestones: current?.milestones ?? [] };
    }
    const next: MilestoneVersion = {
      templateId, version: (current?.version ?? 0) + 1, milestones, distiller: this.distiller.kind, successes: exemplars.length, createdAt: now,
    };
    this.store.putVersion(next);
    return { templateId, version: next.version, changed: true, milestones };
  }
}
