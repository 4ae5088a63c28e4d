/**
 * Python's json.dumps(value, ensure_ascii=…) with its default separators (", " and ": "): how the official agents'
 * Python writes JSON into prompts. Strings are escaped as JSON.stringify escapes them, which is what Python writes with
 * ensure_ascii off (\" \\ \n \r \t \b \f, other control characters as \u00XX); with it on (json.dumps' default), every
 * character outside space…tilde is written as \uXXXX too (a pair of them beyond the BMP), lower-case hex as Python's.
 */
export function pythonJson(value: unknown, opts: { ensureAscii?: boolean } = {}): string {
  const str = opts.ensureAscii ? asciiString : (s: string) => JSON.stringify(s);
  const dump = (v: unknown): string => {
    if (v === null || v === undefined) return 'null';
    if (typeof v === 'string') return str(v);
    if (typeof v === 'boolean') return v ? 'true' : 'false';
    if (typeof v === 'number') return Number.isInteger(v) ? String(v) : pythonFloat(v);
    if (Array.isArray(v)) return `[${v.map(dump).join(', ')}]`;
    if (typeof v === 'object') return `{${Object.entries(v as Record<string, unknown>).map(([k, x]) => `${str(k)}: ${dump(x)}`).join(', ')}}`;
    return JSON.stringify(v);
  };
  return dump(value);
}

function asciiString(s: string): string {
  return JSON.stringify(s).replace(/[^ -~]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** repr(float): the shortest round-trip digits, with ".0" for whole numbers (JS writes 1 for 1.0). */
function pythonFloat(x: number): string {
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : x < 0 ? '-Infinity' : 'NaN';
  return String(x);
}
