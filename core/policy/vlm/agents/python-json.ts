/**
 * Python's json.dumps(value, ensure_ascii=False) with its default separators (", " and ": "): how the official
 * agents' Python writes JSON into prompts. Strings are escaped as JSON.stringify escapes them, which is what Python
 * writes with ensure_ascii off (\" \\ \n \r \t \b \f, other control characters as \u00XX).
 */
export function pythonJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : pythonFloat(value);
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (typeof value === 'object') return `{${Object.entries(value as Record<string, unknown>).map(([k, v]) => `${JSON.stringify(k)}: ${pythonJson(v)}`).join(', ')}}`;
  return JSON.stringify(value);
}

/** repr(float): the shortest round-trip digits, with ".0" for whole numbers (JS writes 1 for 1.0). */
function pythonFloat(x: number): string {
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : x < 0 ? '-Infinity' : 'NaN';
  return String(x);
}
