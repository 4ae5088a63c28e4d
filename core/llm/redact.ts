/**
 * Secrets out of text: every occurrence of a secret (and of `Bearer <secret>`) is replaced before a
 * message can reach an error, a step record, the store or a log. A secret shorter than 4 characters
 * is still replaced (a test key like "k" would otherwise leak), whole-string matching only.
 */
export const REDACTED = '[redacted]';

export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const s of secrets) {
    if (!s) continue;
    out = out.split(s).join(REDACTED);
  }
  return out;
}

/** A deep copy of plain JSON-like data with every string redacted. */
export function redactDeep<T>(value: T, secrets: readonly (string | undefined)[]): T {
  if (typeof value === 'string') return redact(value, secrets) as T;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, secrets)) as T;
  if (value && typeof value === 'object' && !(value instanceof Uint8Array)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v, secrets)])) as T;
  }
  return value;
}
