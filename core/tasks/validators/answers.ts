import { holds, listed, verdictOf, type CheckCondition, type CheckVerdict } from '../verdict.js';

/**
 * Comparing an agent's `answer` to the expected one, tolerant the way AndroidWorld's
 * information-retrieval checks are: case, surrounding punctuation and spacing do not matter;
 * numbers compare as numbers; lists compare as sets.
 */
export function normalizeAnswer(s: string): string {
  return s.toLowerCase().replace(/[\s]+/g, ' ').replace(/^[\s"'.,;:!]+|[\s"'.,;:!]+$/g, '').trim();
}

export function answersMatch(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = normalizeAnswer(given);
  const b = normalizeAnswer(expected);
  if (a === b) return true;
  const na = Number(a.replace(/[$,]/g, ''));
  const nb = Number(b.replace(/[$,]/g, ''));
  return a !== '' && b !== '' && Number.isFinite(na) && Number.isFinite(nb) && Math.abs(na - nb) < 1e-6;
}

/** The answer lists the expected items (any order, separated by commas, "and" or newlines). */
export function answerListMatches(given: string | undefined, expected: readonly string[]): boolean {
  if (given === undefined) return false;
  const items = given.split(/,|\band\b|\n|;/i).map(normalizeAnswer).filter(Boolean);
  const want = expected.map(normalizeAnswer);
  return items.length === want.length && want.every((w) => items.includes(w));
}

/** What the agent answered, in words. */
export function answeredWords(given: string | undefined): string {
  return given === undefined ? 'no answer' : `answered ${JSON.stringify(given)}`;
}

/** "answer equals E": found `answered "G"` or "no answer". */
export function answerCondition(given: string | undefined, expected: string): CheckCondition {
  return holds(`answer equals ${JSON.stringify(expected)}`, answersMatch(given, expected), { expected, found: answeredWords(given) });
}

/** The answer matches one of several accepted forms (e.g. a file name with or without its extension). */
export function answerOneOfCondition(given: string | undefined, accepted: readonly string[]): CheckCondition {
  const ok = accepted.some((a) => answersMatch(given, a));
  return holds(`answer equals ${accepted.map((a) => JSON.stringify(a)).join(' or ')}`, ok, { expected: accepted.join(' or '), found: answeredWords(given) });
}

/**
 * An answer judged by a task's own matcher (a size, a duration, a time): `ok` is its result,
 * `expected` the answer in words.
 */
export function answerJudged(given: string | undefined, expected: string, ok: boolean): CheckCondition {
  return holds(`answer equals ${JSON.stringify(expected)}`, ok, { expected, found: answeredWords(given) });
}

/** "answer lists …": the items in any order. */
export function answerListCondition(given: string | undefined, expected: readonly string[]): CheckCondition {
  return holds(`answer lists ${listed(expected)}`, answerListMatches(given, expected), { expected: expected.join(', '), found: answeredWords(given) });
}

/** The verdict of an information-retrieval task: the answer alone. */
export function answerVerdict(given: string | undefined, expected: string): CheckVerdict {
  return verdictOf([answerCondition(given, expected)]);
}

export function answerListVerdict(given: string | undefined, expected: readonly string[]): CheckVerdict {
  return verdictOf([answerListCondition(given, expected)]);
}
