/** A JSON column held something else than this code wrote: the store was edited or is corrupt. */
export class MilestoneRowError extends Error {
  override name = 'MilestoneRowError';
  constructor(readonly column: string, readonly text: string) {
    super(`${column} does not hold the expected JSON: ${text.slice(0, 200)}`);
  }
}

export function parseJson<T>(text: string, column: string, check: (x: unknown) => x is T): T {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new MilestoneRowError(column, text);
  }
  if (!check(v)) throw new MilestoneRowError(column, text);
  return v;
}
