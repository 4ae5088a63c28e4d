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
