/** JSON text for the store's JSON columns. */

/**
 * JSON text of a value a policy produced. `raw` is whatever the policy returned, so it may not be
 * serialisable (a BigInt, a cycle): it is then kept as the string of it rather than losing the step.
 */
export function toJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    // Deliberate: the step is worth more than the exact form of an unserialisable value.
    return JSON.stringify(String(value));
  }
}

/** JSON with object keys sorted, so equal parameters give equal text (the instance table's key). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'null';
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    const obj = value as Record<string, unknown>;
    return Object.fromEntries(Object.keys(obj).sort().map((k) => [k, sortKeys(obj[k])]));
  }
  return value;
}

export function fromJson<T = unknown>(text: string): T;
export function fromJson<T = unknown>(text: string | null): T | null;
export function fromJson<T = unknown>(text: string | null): T | null {
  // The store wrote this text from a value of type T (or a zod-validated import of it).
  return text === null ? null : (JSON.parse(text) as T);
}
