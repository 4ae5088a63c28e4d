import { describeStep, screensOf, type EpisodePath } from './path.js';
import { sameScreen, type MatchLevel, type ScreenState } from './screen-state.js';
import { diffTrees, type TreeDiff } from './tree-diff.js';

/**
 * Aligning a failed path with successful ones by screen state, not step index (docs/failure-analysis.md
 * "Alignment"). The failed path is on a reference while each screen is one the reference showed (at
 * its match level) at or after the position the previous screen matched: staying, or moving forward
 * (shortcuts allowed), not going back. The first divergence is the first screen that is on no
 * reference: the step before it is the action that left every successful path.
 */
export interface Reference {
  path: EpisodePath;
  /** 'exact' for the same instance (stored successes, the oracle), 'layout' for other seeds of the template. */
  level: MatchLevel;
}

/** A screen on one side of the comparison: the path, the position (step index, or the final screen). */
export interface ScreenRef {
  label: string;
  episodeId: number | null;
  /** The step taken on this screen (0-based), or null for the final screen. */
  step: number | null;
  final: boolean;
  activity: string | null;
  package: string;
}

export interface Divergence {
  /**
   * 'left': the failed path's step `failedStep` led to a screen no reference showed;
   * 'start': its first screen already differs from every reference's screens (another start state);
   * 'overran': it reached a reference's final screen and went on acting.
   */
  kind: 'left' | 'start' | 'overran';
  /** The failed step that left (null for 'start'). */
  failedStep: number | null;
  failedAction: string | null;
  /** The reference and its action from the same screen (null for 'start' or a reference that ended there). */
  reference: string;
  referenceStep: number | null;
  referenceAction: string | null;
  /** The two screens after the parting: the failed path's first off-path screen and the reference's next one. */
  failedScreen: ScreenRef;
  referenceScreen: ScreenRef | null;
  /** From the reference's screen to the failed one's (null when a tree is missing). */
  diff: TreeDiff | null;
  /** The step that left was a person's override (step-through), not the policy's choice. */
  byPerson: boolean;
}

export interface Alignment {
  references: Array<{ label: string; episodeId: number | null; level: MatchLevel; steps: number }>;
  /** Per failed position (each step's screen, then the final one): the references' positions it is following there (empty from the divergence on). */
  onPath: Array<Array<{ reference: string; position: number }>>;
  /** Null when the failed path never left the successful paths (it stopped, answered or committed wrongly on them). */
  divergence: Divergence | null;
  /** The furthest reference position the failed path reached, as a fraction of that reference's length (0..1). */
  progress: { reference: string; position: number; of: number } | null;
}

function screenRef(path: EpisodePath, position: number, s: ScreenState | null): ScreenRef {
  const final = position >= path.steps.length;
  return {
    label: path.label, episodeId: path.episodeId, step: final ? null : position, final,
    activity: s?.activity ?? null, package: s?.package ?? '',
  };
}

function xmlAt(path: EpisodePath, position: number): string | null {
  return position >= path.steps.length ? path.finalXml : path.steps[position]!.xml;
}

export function align(failed: EpisodePath, refs: readonly Reference[]): Alignment {
  const fs = screensOf(failed);
  const rs = refs.map((r) => screensOf(r.path));
  // Follow the references in order: a screen stays on a reference while it matches one of its positions at or after
  // a position the previous screen was on (going back to an earlier screen of the success is leaving it).
  const onPath: Alignment['onPath'] = [];
  let alive: Array<{ k: number; position: number }> | null = null;
  for (const f of fs) {
    const next: Array<{ k: number; position: number }> = [];
    if (f) {
      refs.forEach((r, k) => rs[k]!.forEach((s, j) => {
        if (!s || !sameScreen(f, s, r.level)) return;
        if (alive === null || alive.some((a) => a.k === k && a.position <= j)) next.push({ k, position: j });
      }));
    } else if (alive) next.push(...alive); // no tree recorded here: assume it stayed where it was
    onPath.push(next.map((a) => ({ reference: refs[a.k]!.path.label, position: a.position })));
    if (!next.length) break;
    alive = next;
  }
  while (onPath.length < fs.length) onPath.push([]);
  let progress: Alignment['progress'] = null;
  for (const hits of onPath) {
    for (const h of hits) {
      const of = refs.find((r) => r.path.label === h.reference)!.path.steps.length;
      if (!progress || h.position / of > progress.position / progress.of) progress = { reference: h.reference, position: h.position, of };
    }
  }
  const base = {
    references: refs.map((r) => ({ label: r.path.label, episodeId: r.path.episodeId, level: r.level, steps: r.path.steps.length })),
    onPath, progress,
  };
  if (!refs.length) return { ...base, divergence: null };
  const off = onPath.findIndex((hits) => hits.length === 0);
  if (off < 0) return { ...base, divergence: overran(failed, refs, onPath) };
  const failedScreen = screenRef(failed, off, fs[off]!);
  if (off === 0) {
    return { ...base, divergence: {
      kind: 'start', failedStep: null, failedAction: null, reference: refs[0]!.path.label, referenceStep: null, referenceAction: null,
      failedScreen, referenceScreen: screenRef(refs[0]!.path, 0, rs[0]![0] ?? null), diff: diffAt(refs[0]!.path, 0, failed, 0), byPerson: false,
    } };
  }
  // The reference that got furthest from the screen the failed path left: its next action is what the success did.
  // Ties go to a same-instance reference (its screens are this instance's, its actions are the ones to compare).
  const exact = (h: { reference: string }) => refs.find((r) => r.path.label === h.reference)!.level === 'exact';
  const from = onPath[off - 1]!.reduce((best, h) => (!best || h.position > best.position || (h.position === best.position && exact(h) && !exact(best)) ? h : best),
    null as null | { reference: string; position: number });
  const prev = off - 1;
  const step = failed.steps[prev]!;
  if (!from) {
    // The screen before had no tree recorded: report the parting without the reference's side.
    return { ...base, divergence: {
      kind: 'left', failedStep: prev, failedAction: describeStep(step), reference: refs[0]!.path.label, referenceStep: null,
      referenceAction: null, failedScreen, referenceScreen: null, diff: null, byPerson: step.overridden === true,
    } };
  }
  const k = refs.findIndex((r) => r.path.label === from.reference);
  const ref = refs[k]!.path;
  const refStep = ref.steps[from.position];
  return { ...base, divergence: {
    kind: 'left', failedStep: prev, failedAction: describeStep(step), reference: ref.label,
    referenceStep: refStep ? from.position : null, referenceAction: refStep ? describeStep(refStep) : null,
    failedScreen, referenceScreen: screenRef(ref, from.position + 1, rs[k]![from.position + 1] ?? null),
    diff: diffAt(ref, from.position + 1, failed, off), byPerson: step.overridden === true,
  } };
}

/** Every screen was on a successful path; if one was a reference's final screen and the failed path acted on, it overran it. */
function overran(failed: EpisodePath, refs: readonly Reference[], onPath: Alignment['onPath']): Divergence | null {
  for (let i = 0; i < failed.steps.length; i++) {
    const end = onPath[i]!.find((h) => h.position === refs.find((r) => r.path.label === h.reference)!.path.steps.length);
    if (!end || onPath[i]!.some((h) => h.position < refs.find((r) => r.path.label === h.reference)!.path.steps.length)) continue;
    const ref = refs.find((r) => r.path.label === end.reference)!.path;
    return {
      kind: 'overran', failedStep: i, failedAction: describeStep(failed.steps[i]!), reference: ref.label, referenceStep: null, referenceAction: null,
      failedScreen: screenRef(failed, i + 1, screensOf(failed)[i + 1] ?? null), referenceScreen: screenRef(ref, ref.steps.length, null),
      diff: diffAt(ref, ref.steps.length, failed, i + 1), byPerson: failed.steps[i]!.overridden === true,
    };
  }
  return null;
}

function diffAt(ref: EpisodePath, refPos: number, failed: EpisodePath, failedPos: number): TreeDiff | null {
  const a = xmlAt(ref, refPos);
  const b = xmlAt(failed, failedPos);
  return a !== null && b !== null ? diffTrees(a, b) : null;
}
