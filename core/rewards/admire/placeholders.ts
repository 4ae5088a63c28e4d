/**
 * Instance values ↔ placeholders. Milestones are kept per task template, so the values of one
 * instance ("Grace Bauer", "29") are abstracted to placeholders named after the parameter's path
 * (`person.name` → `<PersonName>`, `date.day` → `<DateDay>`) when distilling, and filled back from
 * the instance being scored when matching. The paper's placeholders (<Name>, <Date>, …) are chosen
 * by the LLM; named paths make the fill exact for both distillers.
 */

export interface PlaceholderValue {
  /** Without angle brackets, e.g. `PersonName`. */
  name: string;
  value: string;
}

const MAX_DEPTH = 4;

function pascal(segment: string): string {
  return segment.split(/[^A-Za-z0-9]+/).filter(Boolean).map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

/**
 * Every string and number leaf of the params as a placeholder, longest value first (so "Grace Bauer"
 * is replaced before "Grace"), and for equal values the shortest path first (`item` wins over
 * `items.2` when the target is also listed among the distractors).
 */
export function placeholderValues(params: unknown): PlaceholderValue[] {
  const out: Array<PlaceholderValue & { depth: number }> = [];
  const walk = (v: unknown, path: string[]) => {
    if (path.length > MAX_DEPTH) return;
    if (typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v) && Math.abs(v) < 1e6)) {
      const value = String(v).trim();
      if (value && path.length) out.push({ name: path.map(pascal).join(''), value, depth: path.length });
    } else if (Array.isArray(v)) {
      v.forEach((x, i) => walk(x, [...path, String(i)]));
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
    }
  };
  walk(params, []);
  out.sort((a, b) => b.value.length - a.value.length || a.depth - b.depth || a.name.localeCompare(b.name));
  const seen = new Set<string>();
  return out.filter((p) => {
    const key = p.value.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  }).map(({ name, value }) => ({ name, value }));
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Replaces instance values by placeholders inside the quoted parts of a step description
 * (`Type "Grace" into "first name"` → `Type "<PersonFirst>" into "first name"`). Only quoted text
 * is touched and only whole words, so "phone 0" or the app name never turn into a placeholder.
 */
export function abstractDescription(description: string, values: readonly PlaceholderValue[]): string {
  return description.replace(/"([^"]*)"/g, (_m, inner: string) => {
    let s = inner;
    for (const { name, value } of values) {
      s = s.replace(new RegExp(`(?<![\\p{L}\\p{N}<])${escape(value)}(?![\\p{L}\\p{N}>])`, 'giu'), `<${name}>`);
    }
    return `"${s}"`;
  });
}

/** Fills `<Name>` placeholders from an instance; placeholders the instance has no value for stay as they are. */
export function fillPlaceholders(milestone: string, values: readonly PlaceholderValue[]): string {
  const byName = new Map(values.map((v) => [v.name, v.value]));
  return milestone.replace(/<([A-Za-z0-9]+)>/g, (m, name: string) => byName.get(name) ?? m);
}
