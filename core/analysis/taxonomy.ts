import { elementLabel, flattenUiTree, parseUiTree } from '../a11y/ui-tree.js';
import { appByPackage } from '../device/app-catalog.js';
import type { StepError, Termination } from '../episode/record.js';
import type { StoredEpisodeStatus } from '../store/statuses.js';
import type { Difficulty } from '../tasks/task.js';
import type { CheckVerdict } from '../tasks/verdict.js';
import type { Alignment, Reference } from './align.js';
import { screensOf, typedTexts, type EpisodePath } from './path.js';
import { stateKey } from './screen-state.js';

/**
 * The failure taxonomy (docs/failure-analysis.md "Taxonomy"): one rule per class, tried in this
 * order. Every class whose rule matches is listed; the first is the primary class. Errors come
 * first (the episode says nothing about the task), then causes before the symptoms they produce
 * (a wrong app or a loop usually ends in running out of steps), the terminal symptoms last.
 */
export const FAILURE_CLASSES = [
  'environment_error', 'policy_error', 'invalid_actions', 'wrong_app', 'wrong_answer', 'wrong_target', 'typed_wrong_text',
  'not_committed', 'looping', 'declared_done_early', 'out_of_steps', 'unexplained',
] as const;
export type FailureClass = (typeof FAILURE_CLASSES)[number];

/** Coming back to a screen this many times (and more often than on any successful path) is a loop. */
export const LOOP_VISITS = 3;
/** Steps on one screen that typed nothing, held this long (and longer than on any successful path), are a loop too. */
export const STUCK_STEPS = 4;
/**
 * A template app in front for at most this many steps, and not in front at the end, counts as not
 * worked in: opening the target app and leaving it at once is working in the wrong app (EXPERIMENTS.md §6).
 */
export const BRIEF_VISIT_STEPS = 1;
/** Labels of the buttons that commit an edit (Save, OK…): matched whole, case-insensitively. */
export const COMMIT_LABEL = /^(save|ok|done|add|create|apply|set|confirm|send|update|delete|yes|submit)$/i;

export interface FailureEvidence {
  status: StoredEpisodeStatus;
  terminatedBy: Termination | null;
  answer: string | null;
  error: StepError | null;
  /** The task as the agent read it: what it names is what it may change. */
  instruction: string;
  template: { id: string; apps: readonly string[]; kind: 'completion' | 'information_retrieval' | null; difficulty: Difficulty | null };
  params: unknown;
  path: EpisodePath;
  references: readonly Reference[];
  alignment: Alignment | null;
  verdict?: CheckVerdict;
}

export interface FailureLabel { class: FailureClass; why: string }
export interface Classification { primary: FailureClass; labels: FailureLabel[] }

type Rule = (e: FailureEvidence) => string | null;

const norm = (s: string) => s.trim().toLowerCase();
/** A found value in a checker's words, without the JSON quotes the checkers put around texts. */
function unquote(s: string): string {
  try {
    const v: unknown = JSON.parse(s.trim());
    return typeof v === 'string' ? v : s;
  } catch {
    return s; // a list of texts ("a", "b") or plain words
  }
}
/** Digits only, leading zeros dropped: a keypad entry "828" is the "00h 08m 28s" it made. */
const digitsOf = (s: string) => s.replace(/\D/g, '').replace(/^0+/, '');

/** The texts a checker quoted in its words ("a", "b" → a, b). */
const quotedTexts = (t: string) => [...t.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!);

/**
 * Conditions on something the task must leave as it was ("recipe X kept", "the 8 recordings
 * unchanged", "file f in Download"): their subjects, when the condition failed. A subject is the
 * quoted names in the condition (the unchanged ones excluded by `found: not "…"`), else the words
 * between its noun and its state ("alarm 7:40 AM unchanged" → 7:40 AM); parentheses dropped.
 */
function brokenKeeps(v: CheckVerdict | undefined): Array<{ condition: string; subjects: string[] }> {
  const out: Array<{ condition: string; subjects: string[] }> = [];
  for (const c of v?.conditions ?? []) {
    if (c.ok) continue;
    const keep = /\b(kept|unchanged)$/.test(c.name);
    const file = /^(file|folder) (.+) in \S+$/.exec(c.name);
    if (!keep && !(file && c.found?.startsWith('not in'))) continue;
    const quoted = (t: string) => quotedTexts(t).map((x) => x.replace(/\s*\(.*\)$/, ''));
    let subjects = file ? [file[2]!] : [...quoted(c.name), ...(c.found?.startsWith('not ') ? quoted(c.found) : [])];
    if (!subjects.length) {
      const words = c.name.replace(/\s+(kept|unchanged)$/, '').split(' ');
      // "alarm 7:40 AM" names 7:40 AM; "movie_watchlist.txt" is a name on its own.
      const name = (words.length > 1 && /^[a-z]+$/.test(words[0]!) ? words.slice(1) : words).join(' ');
      // "the 8 recordings", "3 other tasks": a group, not a name.
      if (name && !/^the\b|\bother\b/.test(name)) subjects = [name];
    }
    if (subjects.length) out.push({ condition: c.name, subjects });
  }
  return out;
}

/**
 * Records a "nothing else in F" / "no other …" condition lists as extra that are records the
 * checker knows from its other conditions (an existing file, a seeded record): an existing record
 * put or changed where the task's one belongs ("nothing else in Documents: found "summer_hits.mp3"").
 */
function misplacedRecords(v: CheckVerdict | undefined): Array<{ condition: string; subjects: string[] }> {
  const all = v?.conditions ?? [];
  const out: Array<{ condition: string; subjects: string[] }> = [];
  for (const c of all) {
    if (c.ok || !/^(nothing else in|no other)\b/.test(c.name) || !c.found) continue;
    const extras = quotedTexts(c.found);
    const known = extras.filter((x) => all.some((o) => o !== c && o.ok && (o.name.includes(` ${x} `) || o.name.includes(`"${x}"`))));
    if (known.length) out.push({ condition: c.name, subjects: known });
  }
  return out;
}

/** Levenshtein distance over UTF-16 units (two rows). */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

/** 1 − distance / longer length: 1 for equal strings, 0 for nothing in common. */
export function similarity(a: string, b: string): number {
  const x = norm(a);
  const y = norm(b);
  const n = Math.max(x.length, y.length);
  return n === 0 ? 1 : 1 - editDistance(x, y) / n;
}

/** The instance's parameter values that could be typed: strings and numbers, nested ones too. */
function paramTexts(p: unknown, out: string[] = []): string[] {
  if (typeof p === 'string' || typeof p === 'number') out.push(String(p));
  else if (Array.isArray(p)) for (const v of p) paramTexts(v, out);
  else if (p !== null && typeof p === 'object') for (const v of Object.values(p)) paramTexts(v, out);
  return out;
}

/**
 * Per screen (exact state): how many separate times the path came to it (runs of consecutive
 * positions count once: typing into a form keeps the screen, by design) and the longest run of
 * steps on it that typed nothing (the same no-op again and again).
 */
function visits(p: EpisodePath): Map<string, { first: number; returns: number; held: number }> {
  const out = new Map<string, { first: number; returns: number; held: number }>();
  const screens = screensOf(p);
  let prev: string | null = null;
  let run = 0;
  screens.forEach((s, i) => {
    const k = s ? stateKey(s) : null;
    const typed = p.steps[i]?.action?.action_type === 'input_text';
    if (k === null) {
      prev = null;
      return;
    }
    let v = out.get(k);
    if (!v) out.set(k, (v = { first: i, returns: 0, held: 0 }));
    if (k !== prev) {
      v.returns++;
      run = 0;
    }
    if (i < p.steps.length && !typed) v.held = Math.max(v.held, ++run);
    prev = k;
  });
  return out;
}

/** Digits keyed on a keypad (taps on one-digit labels in a row, the longest run), or null. */
function keyedDigits(p: EpisodePath): string | null {
  let best = '';
  let run = '';
  for (const s of p.steps) {
    const l = clickLabel(s);
    run = /^\d$/.test(l) ? run + l : '';
    if (run.length > best.length) best = run;
  }
  return best.length >= 2 ? best : null;
}

const clickLabel = (s: EpisodePath['steps'][number]) =>
  (s.action?.action_type === 'click' || s.action?.action_type === 'long_press') && !s.error ? s.targetLabel ?? '' : '';

const RULES: Record<FailureClass, Rule> = {
  environment_error: (e) => (e.status === 'error' && e.terminatedBy !== 'policy_error' && e.terminatedBy !== 'stopped' && e.terminatedBy !== 'aborted'
    ? `the device failed${e.error ? `: ${e.error.name}: ${e.error.message}` : ''}` : null),
  policy_error: (e) => (e.status === 'error' && e.terminatedBy === 'policy_error'
    ? `the policy failed${e.error ? `: ${e.error.name}: ${e.error.message}` : ''}` : null),
  invalid_actions: (e) => {
    if (e.terminatedBy === 'malformed_action') return `ended on an unparseable action${e.error ? ` (${e.error.message})` : ''}`;
    const bad = e.path.steps.filter((s) => s.error);
    return bad.length >= Math.max(2, Math.ceil(e.path.steps.length / 3))
      ? `${bad.length} of ${e.path.steps.length} actions were invalid or impossible (${[...new Set(bad.map((s) => s.error!.name))].join(', ')})` : null;
  },
  wrong_app: (e) => {
    const appOf = (pkg: string | undefined) => (pkg === undefined ? undefined : appByPackage(pkg)?.name);
    const apps = e.path.steps.map((s) => appOf(s.foreground.package));
    const stepsIn = new Map<string, number>();
    for (const a of apps) if (a !== undefined) stepsIn.set(a, (stepsIn.get(a) ?? 0) + 1);
    // The app in front at the end: the final screen's, else the last step's.
    const end = appOf(screensOf(e.path).at(-1)?.package ?? e.path.steps.at(-1)?.foreground.package);
    const missing = e.template.apps.filter((a) => (stepsIn.get(a) ?? 0) <= BRIEF_VISIT_STEPS && a !== end);
    const others = [...stepsIn.keys()].filter((a) => !e.template.apps.includes(a));
    if (missing.length) {
      const where = others.length ? `; worked in ${others.join(', ')} instead` : '';
      const brief = missing.filter((a) => stepsIn.has(a));
      if (!brief.length) return `never opened ${missing.join(', ')}${where}`;
      const never = missing.filter((a) => !stepsIn.has(a));
      return `${never.length ? `never opened ${never.join(', ')}; ` : ''}opened ${brief.join(', ')} for ${brief.length > 1 ? 'a step each' : `${stepsIn.get(brief[0]!)} step`} and left at once${where}`;
    }
    // It worked in the task's apps, then wandered off and ended working in another one (two steps or more there).
    let tail = 0;
    for (let i = apps.length - 1; i >= 0 && apps[i] !== undefined && !e.template.apps.includes(apps[i]!); i--) tail++;
    return tail >= 2 ? `left for ${apps.at(-1)} and ended there after ${tail} steps` : null;
  },
  wrong_answer: (e) => {
    // No answer at all is not a wrong answer: it stopped (declared_done_early) or ran out (out_of_steps).
    if (e.answer === null || e.answer.trim() === '') return null;
    const cond = e.verdict?.conditions.find((c) => !c.ok && /answer/i.test(c.name));
    if (cond) return `${cond.name}: expected ${cond.expected ?? '?'}, answered ${cond.found ?? JSON.stringify(e.answer)}`;
    return e.template.kind === 'information_retrieval' ? `answered ${JSON.stringify(e.answer)}, which the checker rejected` : null;
  },
  wrong_target: (e) => {
    if (e.template.kind === 'information_retrieval') return null;
    const goal = norm(e.instruction);
    const hit = [...brokenKeeps(e.verdict), ...misplacedRecords(e.verdict)].find((k) => k.subjects.every((x) => !goal.includes(norm(x))));
    return hit ? `changed ${hit.subjects.map((x) => JSON.stringify(x)).join(', ')}, which the task does not name (${hit.condition})` : null;
  },
  typed_wrong_text: (e) => {
    const typed = typedTexts(e.path);
    const keyed = keyedDigits(e.path);
    const byKeypad = keyed && e.verdict?.conditions.find((c) => !c.ok && c.found !== undefined && digitsOf(c.found) === keyed.replace(/^0+/, ''));
    if (byKeypad) return `${byKeypad.name}: keyed ${JSON.stringify(keyed)}, expected ${JSON.stringify(byKeypad.expected ?? '?')}`;
    if (!typed.length) return null;
    // The found value must be exactly what was typed: "no contact named Zoe Ito" after typing "Zoe Ito" says the record
    // is missing, and a found count of 4 is not the "4" inside a typed phone number.
    // "no other events: found "Hackathon"" lists a record it typed that is wrong elsewhere, not wrong text.
    const byVerdict = e.verdict?.conditions.find((c) => !c.ok && !c.name.startsWith('no ') && c.found !== undefined && c.found.trim() !== '' && typed.some((t) => norm(t) === norm(unquote(c.found!))));
    if (byVerdict) return `${byVerdict.name}: typed ${JSON.stringify(byVerdict.found)}, expected ${JSON.stringify(byVerdict.expected ?? '?')}`;
    const refTyped = e.references.filter((r) => r.level === 'exact').flatMap((r) => typedTexts(r.path));
    const expected = refTyped.length ? refTyped : paramTexts(e.params).flatMap((p) => [p, ...p.split(/\s+/)]);
    for (const t of typed) {
      if (expected.some((x) => norm(x) === norm(t))) continue;
      const near = expected.reduce((best, x) => (similarity(t, x) > similarity(t, best) ? x : best), '');
      if (near && similarity(t, near) >= 0.5) return `typed ${JSON.stringify(t)} where ${refTyped.length ? 'the successful path typed' : 'the task says'} ${JSON.stringify(near)}`;
    }
    return null;
  },
  not_committed: (e) => {
    if (e.template.kind === 'information_retrieval' || e.path.steps.some((s) => COMMIT_LABEL.test(clickLabel(s)))) return null;
    for (const r of e.references) {
      const j = r.path.steps.findIndex((s) => COMMIT_LABEL.test(clickLabel(s)));
      if (j < 0) continue;
      // Only screens it acted on: arriving at the Save screen with the last step of the budget is running out.
      const reached = e.alignment?.onPath.slice(0, e.path.steps.length).some((hits) => hits.some((h) => h.reference === r.path.label && h.position === j));
      if (reached) return `reached the screen where ${r.path.label} tapped "${r.path.steps[j]!.targetLabel}", and never tapped it`;
    }
    const lastXml = e.path.steps.at(-1)?.xml;
    if (e.references.length || !lastXml) return null;
    const commit = flattenUiTree(parseUiTree(lastXml)).find((el) => el.node.clickable && el.node.enabled && COMMIT_LABEL.test(elementLabel(el)));
    if (commit) return `had "${elementLabel(commit)}" on its last screen and never tapped it`;
    return null;
  },
  looping: (e) => {
    const mine = visits(e.path);
    const refMax = new Map<string, { returns: number; held: number }>();
    for (const r of e.references) {
      for (const [k, v] of visits(r.path)) {
        const m = refMax.get(k);
        refMax.set(k, { returns: Math.max(m?.returns ?? 0, v.returns), held: Math.max(m?.held ?? 0, v.held) });
      }
    }
    for (const [k, v] of mine) {
      const ref = refMax.get(k) ?? { returns: 0, held: 0 };
      if (v.returns >= LOOP_VISITS && v.returns > ref.returns) return `came back to the screen of step ${v.first + 1} ${v.returns} times`;
      if (v.held >= STUCK_STEPS && v.held > ref.held) return `stayed on the screen of step ${v.first + 1} for ${v.held} steps without typing`;
    }
    return null;
  },
  declared_done_early: (e) => {
    if (e.terminatedBy !== 'status') return null;
    const last = e.path.steps.at(-1)?.action;
    const said = last?.action_type === 'status' ? last.goal_status : 'done';
    if (e.template.kind === 'information_retrieval' && said === 'complete' && (e.answer === null || e.answer.trim() === '')) {
      return 'declared the task complete without answering the question';
    }
    return `declared the task ${said} while the checker says it is not`;
  },
  out_of_steps: (e) => (e.terminatedBy === 'max_steps' ? `used all ${e.path.steps.length} steps` : null),
  unexplained: (e) => `no rule matched (${e.status}${e.terminatedBy ? `, ended by ${e.terminatedBy}` : ''})`,
};

/** Classifies a failed (or errored) episode: every class whose rule matches, in FAILURE_CLASSES order; the first is primary. */
export function classifyFailure(e: FailureEvidence): Classification {
  const labels: FailureLabel[] = [];
  for (const c of FAILURE_CLASSES) {
    if (c === 'unexplained' && labels.length) break;
    const why = RULES[c](e);
    if (why !== null) labels.push({ class: c, why });
  }
  return { primary: labels[0]!.class, labels };
}
