/**
 * A checker's verdict with its reasons: each condition it tested, with what it expected and what
 * it found, in plain words ("contact Alice Smith has number 2412043170": found 2412043107). `ok` is
 * the verdict (every condition held); the conditions are what a researcher reads to see why.
 */

/** One condition a checker tested, with what it expected and what it found. */
export interface CheckCondition { name: string; ok: boolean; expected?: string; found?: string }
/** A checker's answer: ok is the verdict; conditions say why. */
export interface CheckVerdict { ok: boolean; conditions: CheckCondition[] }

/** A condition; it holds when `found` equals `expected` unless `ok` says otherwise. */
export function condition(name: string, expected: string, found: string, ok: boolean = found === expected): CheckCondition {
  return { name, ok, expected, found };
}

/** A condition from a test's outcome alone, with `expected`/`found` words where the caller has them. */
export function holds(name: string, ok: boolean, words: { expected?: string; found?: string } = {}): CheckCondition {
  const c: CheckCondition = { name, ok };
  if (words.expected !== undefined) c.expected = words.expected;
  if (words.found !== undefined) c.found = words.found;
  return c;
}

/** The verdict of these conditions: ok when every one holds (an empty list holds vacuously). */
export function verdictOf(conditions: readonly CheckCondition[]): CheckVerdict {
  return { ok: conditions.every((c) => c.ok), conditions: [...conditions] };
}

/** Every condition of several verdicts (or loose conditions), as one verdict. */
export function allOf(...parts: ReadonlyArray<CheckVerdict | CheckCondition | readonly CheckCondition[]>): CheckVerdict {
  return verdictOf(parts.flatMap((p) => (Array.isArray(p) ? p : 'conditions' in p ? p.conditions : [p as CheckCondition])));
}

/**
 * Whether a verdict (or a checker's list of conditions) holds: the yes/no a subgoal or milestone
 * reads, so it judges with the checker's own conditions rather than a second copy of them.
 */
export function met(v: CheckVerdict | readonly CheckCondition[]): boolean {
  return 'conditions' in v ? v.ok : v.every((c) => c.ok);
}

/** The first condition that failed, the short reason an episode list shows. */
export function firstFailed(v: CheckVerdict | undefined): CheckCondition | undefined {
  return v?.conditions.find((c) => !c.ok);
}

/** One line for a condition: `name: expected E, found F` (or just the name when it holds or has no words). */
export function describeCondition(c: CheckCondition): string {
  if (c.ok) return c.name;
  const parts = [c.expected !== undefined ? `expected ${c.expected}` : '', c.found !== undefined ? `found ${c.found}` : ''].filter(Boolean);
  return parts.length ? `${c.name}: ${parts.join(', ')}` : c.name;
}

/** A list of values in words: `"a", "b"` or "none". */
export function listed(values: readonly string[], none = 'none'): string {
  return values.length ? values.map((v) => JSON.stringify(v)).join(', ') : none;
}

/** A count that must be exact ("3 contacts in all"). */
export function countIs(name: string, expected: number, found: number): CheckCondition {
  return condition(name, String(expected), String(found));
}

/**
 * Every item passes `ok` ("the other contacts are unchanged"): found names the items that do not,
 * by `label`, so a failure says which.
 */
export function eachHolds<T>(name: string, items: readonly T[], ok: (t: T) => boolean, label: (t: T) => string): CheckCondition {
  const bad = items.filter((t) => !ok(t)).map(label);
  return holds(name, bad.length === 0, { expected: `all ${items.length}`, found: bad.length ? `not ${listed(bad)}` : `all ${items.length}` });
}

/** A yes/no property ("alarm enabled"): expected and found as the words for each side. */
export function flagIs(name: string, expected: boolean, found: boolean, words: [yes: string, no: string] = ['yes', 'no']): CheckCondition {
  return condition(name, expected ? words[0] : words[1], found ? words[0] : words[1]);
}
