/**
 * zod's problems in plain words: the one formatter the CLI and the UI both show. Passed as a parse's
 * error map (`schema.safeParse(v, PLAIN_ISSUES)`), it words every zod default ("Too small: expected
 * number to be >=1") as what the field must be ("must be a whole number ≥ 1, got 0"); a message a
 * schema gives itself wins over it (zod's precedence). The text names no field: the CLI prints
 * `batchSize: must be …` (issueLines) and a form puts the field's name in front ("Batch size must
 * be …", renderer/src/store/issues.ts) next to the field. No zod import.
 */

/** The fields of zod's raw issue (what an error map is given) that the wording reads. */
export interface RawIssueLike {
  readonly code?: string;
  readonly input?: unknown;
  readonly expected?: string;
  readonly format?: string;
  readonly origin?: string;
  readonly minimum?: number | bigint;
  readonly maximum?: number | bigint;
  readonly inclusive?: boolean;
  readonly values?: readonly unknown[];
  readonly keys?: readonly string[];
  readonly divisor?: number | bigint;
  readonly errors?: ReadonlyArray<ReadonlyArray<{ readonly code?: string; readonly expected?: string }>>;
  /** The check that found the problem, and the schema it belongs to (zod's internals: read defensively). */
  readonly inst?: unknown;
  readonly schema?: unknown;
}

const TYPE_WORDS: Record<string, string> = {
  int: 'a whole number', number: 'a number', string: 'text', boolean: 'true or false', array: 'a list',
  object: 'an object', bigint: 'a whole number', null: 'null', date: 'a date', nan: 'NaN',
};

/** A value as the message quotes it: short, JSON where it can be. */
export function shownValue(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return String(v);
  let text: string;
  try {
    text = JSON.stringify(v) ?? String(v);
  } catch {
    // A cycle, a BigInt, or an object String() cannot convert either (no prototype, a toString that is not a function).
    try {
      text = String(v);
    } catch {
      text = Object.prototype.toString.call(v);
    }
  }
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/** Whether the schema (or check) the issue came from takes whole numbers only (z.int()). */
function wholeOnly(iss: RawIssueLike): boolean {
  type Internals = { _zod?: { bag?: { format?: unknown }; def?: { format?: unknown } } } | undefined;
  const formats = [iss.inst, iss.schema].flatMap((x) => [(x as Internals)?._zod?.bag?.format, (x as Internals)?._zod?.def?.format]);
  return formats.some((f) => typeof f === 'string' && /int/.test(f));
}

const plural = (n: number | bigint, one: string, many: string) => `${n} ${n === 1 || n === 1n ? one : many}`;

function sizeBound(iss: RawIssueLike, bound: number | bigint, low: boolean): string {
  const got = iss.input;
  switch (iss.origin) {
    case 'string':
      if (low && bound === 1) return 'must not be empty';
      return `must be ${low ? 'at least' : 'at most'} ${plural(bound, 'character', 'characters')}${typeof got === 'string' ? `, got ${got.length}` : ''}`;
    case 'array':
    case 'set':
      if (low && bound === 1) return 'must list at least one';
      return `must list ${low ? 'at least' : 'at most'} ${bound}${Array.isArray(got) ? `, got ${got.length}` : ''}`;
    default: {
      const what = wholeOnly(iss) ? 'a whole number' : 'a number';
      const op = low ? (iss.inclusive === false ? '>' : '≥') : (iss.inclusive === false ? '<' : '≤');
      return `must be ${what} ${op} ${bound}, got ${shownValue(got)}`;
    }
  }
}

/** The plain wording of one zod issue, or undefined to keep zod's (codes it has no words for). */
export function plainIssueMessage(iss: RawIssueLike): string | undefined {
  switch (iss.code) {
    case 'invalid_type': {
      if (iss.input === undefined) return 'is required';
      const want = TYPE_WORDS[iss.expected ?? ''] ?? iss.expected ?? 'something else';
      return `must be ${want}, got ${shownValue(iss.input)}`;
    }
    case 'too_small':
      return iss.minimum === undefined ? undefined : sizeBound(iss, iss.minimum, true);
    case 'too_big':
      return iss.maximum === undefined ? undefined : sizeBound(iss, iss.maximum, false);
    case 'invalid_value': {
      const values = iss.values ?? [];
      if (values.length === 1) return `must be ${shownValue(values[0])}, got ${shownValue(iss.input)}`;
      return `must be one of ${values.map(shownValue).join(', ')}; got ${shownValue(iss.input)}`;
    }
    case 'invalid_format':
      if (iss.format === 'url') return `must be a URL (like http://host:8000), got ${shownValue(iss.input)}`;
      if (iss.format === 'regex') return `has the wrong form: ${shownValue(iss.input)}`;
      return `must be a valid ${iss.format ?? 'value'}, got ${shownValue(iss.input)}`;
    case 'not_multiple_of':
      return `must be a multiple of ${iss.divisor}, got ${shownValue(iss.input)}`;
    case 'unrecognized_keys': {
      const keys = iss.keys ?? [];
      return `${keys.length === 1 ? 'unknown field' : 'unknown fields'} ${keys.map((k) => JSON.stringify(k)).join(', ')}`;
    }
    case 'invalid_union': {
      // A union of plain types ("text or a number"); anything richer keeps zod's word.
      const wants = (iss.errors ?? []).map((alt) => (alt.length === 1 && alt[0]!.code === 'invalid_type' ? TYPE_WORDS[alt[0]!.expected ?? ''] : undefined));
      if (wants.length === 0 || wants.some((w) => w === undefined)) return undefined;
      return `must be ${[...new Set(wants)].join(' or ')}, got ${shownValue(iss.input)}`;
    }
    default:
      return undefined;
  }
}

/** A parse's options that word its problems plainly: `schema.safeParse(value, PLAIN_ISSUES)`. */
export const PLAIN_ISSUES = { error: plainIssueMessage } as const;
