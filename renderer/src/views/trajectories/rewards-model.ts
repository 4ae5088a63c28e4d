import type { EpisodeRewardsView } from '../../../../core/api/api.js';

/**
 * The Rewards panel's table and the ProgRM curve as plain data (tested without React): steps ×
 * components, each cell a value or "unscored" with its reason, never a 0 standing in for a gap.
 */

export interface RewardCell {
  value: number | null;
  explanation: string;
}

export interface RewardRow {
  step: number;
  /** Absent: nothing of that kind on this step (stored outcome sits on the last step only). */
  cells: Record<string, RewardCell | undefined>;
  /** The weighted total of a recomputation (null: unscored, the explanation says which component); absent for stored values. */
  total?: RewardCell;
}

export interface KindTotal {
  /** Σ of the scored values. */
  sum: number;
  /** Steps of this kind that are unscored (not counted in the sum). */
  unscored: number;
}

export interface RewardTable {
  /** 'computed': a fresh recomputation (stored too when written); 'stored': what the store holds. */
  source: 'computed' | 'stored';
  kinds: string[];
  weights: Record<string, number>;
  rows: RewardRow[];
  totals: Record<string, KindTotal>;
  /** Σ of the weighted step totals (computed only), with the count of unscored step totals. */
  total: KindTotal | null;
}

function addTo(t: KindTotal, v: number | null): void {
  if (v === null) t.unscored++;
  else t.sum += v;
}

export function rewardTable(view: EpisodeRewardsView): RewardTable {
  const b = view.computed;
  if (b) {
    const kinds = b.components.map((c) => c.kind);
    const totals = Object.fromEntries(kinds.map((k) => [k, { sum: 0, unscored: 0 }]));
    const total = { sum: 0, unscored: 0 };
    const rows = b.steps.map((s): RewardRow => {
      const cells: RewardRow['cells'] = {};
      for (const k of kinds) {
        const v = s.values[k];
        if (!v) continue;
        cells[k] = { value: v.value, explanation: v.explanation };
        addTo(totals[k]!, v.value);
      }
      addTo(total, s.total);
      return { step: s.step, cells, total: { value: s.total, explanation: s.totalExplanation } };
    });
    return { source: 'computed', kinds, weights: Object.fromEntries(b.components.map((c) => [c.kind, c.weight])), rows, totals, total };
  }
  const kinds = view.storedKinds;
  const totals = Object.fromEntries(kinds.map((k) => [k, { sum: 0, unscored: 0 }]));
  const rows = view.stored.map((byKind, step): RewardRow => {
    const cells: RewardRow['cells'] = {};
    for (const k of kinds) {
      const v = byKind[k];
      if (!v) continue;
      cells[k] = v;
      addTo(totals[k]!, v.value);
    }
    return { step, cells };
  });
  return { source: 'stored', kinds, weights: {}, rows, totals, total: null };
}

/** A reward as the table prints it: three decimals, or "unscored" (never 0). */
export function formatReward(v: number | null): string {
  if (v === null) return 'unscored';
  const r = Math.round(v * 1000) / 1000;
  return Object.is(r, -0) ? '0' : String(r);
}

export interface CurvePoint {
  /** The timeline position it belongs to: 0 = the initial state (before step 1), i = after step i. */
  position: number;
  x: number;
  y: number;
}

/**
 * The progress curve in an SVG box: point i is the progress after step i (point 0 the initial
 * state), x spread evenly over the width, y = 0 at the bottom and 1 at the top (progress is in [0, 1]).
 */
export function curvePoints(progress: readonly number[], width: number, height: number, pad = 4): CurvePoint[] {
  const n = progress.length;
  const w = width - 2 * pad;
  const h = height - 2 * pad;
  return progress.map((p, i) => ({
    position: i,
    x: pad + (n <= 1 ? w / 2 : (i * w) / (n - 1)),
    y: pad + (1 - Math.min(1, Math.max(0, p))) * h,
  }));
}

export function pathOf(points: readonly CurvePoint[]): string {
  return points.map((p, i) => `${i ? 'L' : 'M'}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' ');
}
