/**
 * Reading what models actually write: JSON inside code fences and prose, Python-flavoured JSON
 * (single quotes, True/False/None, trailing commas, bare keys), and Python-style calls such as
 * `click(start_box='(10,20)')` or `do(action="Tap", element=[1,2,3,4])`. Everything here returns
 * a result or a reason; the format modules turn a reason into their VlmFormatError.
 */

export type Lenient<T> = { ok: true; value: T } | { ok: false; reason: string };

/** The body of the first ``` fence (any language tag), or the text itself when there is none. */
export function unfence(text: string): string {
  const m = /```[\w-]*[ \t]*\r?\n?([\s\S]*?)```/.exec(text);
  return m ? m[1]! : text;
}

/** The text between <tag> and </tag> (first occurrence; an unclosed tag runs to the end), or undefined. */
export function tagged(text: string, tag: string): string | undefined {
  const open = text.indexOf(`<${tag}>`);
  if (open < 0) return undefined;
  const start = open + tag.length + 2;
  const close = text.indexOf(`</${tag}>`, start);
  return (close < 0 ? text.slice(start) : text.slice(start, close)).trim();
}

/** Index just past the string literal opened at `i` (quote char text[i]), or -1 when it never closes. */
export function skipString(text: string, i: number): number {
  const q = text[i]!;
  const triple = text.startsWith(q.repeat(3), i);
  const end = triple ? q.repeat(3) : q;
  for (let j = i + end.length; j < text.length; j++) {
    if (text[j] === '\\') {
      j++;
      continue;
    }
    if (text.startsWith(end, j)) return j + end.length;
  }
  return -1;
}

/** The first balanced `open…close` span starting at or after `from`, skipping string literals. */
export function balanced(text: string, from: number, open: string, close: string): { start: number; end: number } | undefined {
  const start = text.indexOf(open, from);
  if (start < 0) return undefined;
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"' || c === "'") {
      const j = skipString(text, i);
      if (j < 0) return undefined;
      i = j - 1;
    } else if (c === open) depth++;
    else if (c === close && --depth === 0) return { start, end: i + 1 };
  }
  return undefined;
}

/** Converts a Python/JS-ish literal to strict JSON text: quotes, booleans, None, trailing commas, bare keys. */
export function toStrictJson(text: string): string {
  let out = '';
  // The last character written that is not whitespace: a bare word after "{" or "," is a key. Kept as we
  // go, because asking /[{,]\s*$/ of `out` per word rescanned (and flattened) all of it: quadratic.
  let last = '';
  const emit = (s: string) => {
    out += s;
    const t = s.trimEnd();
    if (t) last = t[t.length - 1]!;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"' || c === "'") {
      const j = skipString(text, i);
      if (j < 0) return out + text.slice(i);
      emit(JSON.stringify(decodePyString(text.slice(i, j))));
      i = j - 1;
      continue;
    }
    if (c === ',') {
      const rest = text.slice(i + 1).match(/^\s*([}\]])/);
      if (rest) continue;
    }
    if (/[A-Za-z_]/.test(c) && !/[\w]/.test(text[i - 1] ?? '')) {
      const word = /^[A-Za-z_]\w*/.exec(text.slice(i))![0];
      const after = text.slice(i + word.length).match(/^\s*:/);
      if (after && (last === '{' || last === ',')) emit(JSON.stringify(word));
      else emit(word === 'True' ? 'true' : word === 'False' ? 'false' : word === 'None' ? 'null' : word);
      i += word.length - 1;
      continue;
    }
    emit(c);
  }
  return out;
}

/** The value of a Python string literal ('…', "…", '''…''' or """…"""), with the usual escapes. */
export function decodePyString(literal: string): string {
  const q = literal[0]!;
  const n = literal.startsWith(q.repeat(3)) && literal.length >= 6 ? 3 : 1;
  const body = literal.slice(n, literal.length - n);
  // Python's escapes; an unknown one (\d, \() keeps its backslash, as Python keeps it.
  return body.replace(/\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|x[0-9a-fA-F]{2}|[0-7]{1,3}|\r\n|.)/gs, (m, e: string) => {
    if (e[0] === 'u' || e[0] === 'x') return String.fromCharCode(parseInt(e.slice(1), 16));
    if (e[0] === 'U') return String.fromCodePoint(Math.min(parseInt(e.slice(1), 16), 0x10ffff));
    if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8));
    switch (e) {
      case 'n': return '\n';
      case 't': return '\t';
      case 'r': return '\r';
      case 'a': return '\x07';
      case 'b': return '\b';
      case 'f': return '\f';
      case 'v': return '\v';
      case '\\': case "'": case '"': return e;
      case '\n': case '\r': case '\r\n': return '';
      default: return m;
    }
  });
}

/** Parses strict JSON, else the lenient conversion of it. */
export function lenientJsonValue(text: string): Lenient<unknown> {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    try {
      return { ok: true, value: JSON.parse(toStrictJson(text)) };
    } catch (e) {
      return { ok: false, reason: `not JSON even leniently read (${(e as Error).message})` };
    }
  }
}

/** The JSON object in free text: after the last `marker` when given and present, else the first `{…}`. */
export function findJsonObject(text: string, marker?: RegExp): Lenient<Record<string, unknown>> {
  const body = unfence(text);
  let from = 0;
  if (marker) {
    const all = [...body.matchAll(new RegExp(marker.source, marker.flags.includes('g') ? marker.flags : `${marker.flags}g`))];
    if (all.length) from = all[all.length - 1]!.index! + all[all.length - 1]![0].length;
  }
  const span = balanced(body, from, '{', '}') ?? (from > 0 ? balanced(body, 0, '{', '}') : undefined);
  if (!span) return { ok: false, reason: 'no {...} object found' };
  const r = lenientJsonValue(body.slice(span.start, span.end));
  if (!r.ok) return r;
  if (!r.value || typeof r.value !== 'object' || Array.isArray(r.value)) return { ok: false, reason: 'the {...} is not an object' };
  return { ok: true, value: r.value as Record<string, unknown> };
}

/** A Python-style call: `name(arg, key=value, …)`. */
export interface PyCall {
  name: string;
  args: unknown[];
  kwargs: Record<string, unknown>;
  /** The call's source text. */
  text: string;
}

/**
 * The first call to one of `names` in the text (`name(` … balanced `)`), its arguments read as
 * Python literals: strings, numbers, lists/tuples, True/False/None; a bare identifier is its name.
 */
export function findCall(text: string, names: readonly string[]): Lenient<PyCall> {
  const re = new RegExp(`(?<![\\w.])(${names.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})\\s*\\(`, 'g');
  for (const m of text.matchAll(re)) {
    const span = balanced(text, m.index! + m[0].length - 1, '(', ')');
    if (!span) return { ok: false, reason: `${m[1]}(…) is not closed` };
    const inner = text.slice(span.start + 1, span.end - 1);
    const parsed = parseArgs(inner);
    if (!parsed.ok) return { ok: false, reason: `${m[1]}(…): ${parsed.reason}` };
    return { ok: true, value: { name: m[1]!, ...parsed.value, text: text.slice(m.index!, span.end) } };
  }
  return { ok: false, reason: `no call to ${names.join(' / ')} found` };
}

type Args = { args: unknown[]; kwargs: Record<string, unknown> };

function parseArgs(src: string): Lenient<Args> {
  const p = new PyReader(src);
  const out: Args = { args: [], kwargs: {} };
  p.ws();
  while (!p.done()) {
    const kw = /^([A-Za-z_]\w*)\s*=(?!=)/.exec(p.rest());
    if (kw) p.advance(kw[0].length);
    const v = p.value();
    if (!v.ok) return v;
    if (kw) out.kwargs[kw[1]!] = v.value;
    else out.args.push(v.value);
    p.ws();
    if (p.done()) break;
    if (!p.eat(',')) return { ok: false, reason: `expected "," at ${JSON.stringify(p.rest().slice(0, 20))}` };
    p.ws();
  }
  return { ok: true, value: out };
}

class PyReader {
  private i = 0;
  constructor(private readonly s: string) {}
  done = () => this.i >= this.s.length;
  rest = () => this.s.slice(this.i);
  advance(n: number) {
    this.i += n;
  }
  ws() {
    while (!this.done() && /\s/.test(this.s[this.i]!)) this.i++;
  }
  eat(c: string): boolean {
    if (this.s[this.i] !== c) return false;
    this.i++;
    return true;
  }
  value(): Lenient<unknown> {
    this.ws();
    const c = this.s[this.i];
    if (c === undefined) return { ok: false, reason: 'a value is missing' };
    if (c === '"' || c === "'") {
      const j = skipString(this.s, this.i);
      if (j < 0) return { ok: false, reason: 'a string is not closed' };
      const v = decodePyString(this.s.slice(this.i, j));
      this.i = j;
      return { ok: true, value: v };
    }
    if (c === '[' || c === '(') {
      const close = c === '[' ? ']' : ')';
      this.i++;
      const items: unknown[] = [];
      this.ws();
      while (!this.eat(close)) {
        if (this.done()) return { ok: false, reason: `a ${c}…${close} is not closed` };
        const v = this.value();
        if (!v.ok) return v;
        items.push(v.value);
        this.ws();
        if (!this.eat(',') && this.s[this.i] !== close) return { ok: false, reason: `expected "," or "${close}" at ${JSON.stringify(this.rest().slice(0, 20))}` };
        this.ws();
      }
      return { ok: true, value: items };
    }
    const num = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?/.exec(this.rest());
    if (num) {
      this.i += num[0].length;
      return { ok: true, value: Number(num[0]) };
    }
    const word = /^[A-Za-z_][\w.]*/.exec(this.rest());
    if (word) {
      this.i += word[0].length;
      const w = word[0];
      return { ok: true, value: w === 'True' ? true : w === 'False' ? false : w === 'None' ? null : w };
    }
    return { ok: false, reason: `cannot read a value at ${JSON.stringify(this.rest().slice(0, 20))}` };
  }
}

/** The numbers in a coordinate string: "(12,34)", "<point>12 34</point>", "[1, 2, 3, 4]", "<|box_start|>(1,2)<|box_end|>". */
export function numbersIn(value: unknown): number[] | undefined {
  if (Array.isArray(value)) {
    const flat = value.flat(2);
    return flat.every((v) => typeof v === 'number') ? (flat as number[]) : flat.every((v) => typeof v === 'string' && /^\s*-?\d/.test(v)) ? flat.map(Number) : undefined;
  }
  if (typeof value !== 'string') return undefined;
  const cleaned = value.replace(/<\|box_(start|end)\|>|<\/?(point|bbox)>/g, ' ');
  const nums = cleaned.match(/-?\d+(\.\d+)?/g);
  return nums ? nums.map(Number) : undefined;
}

/** A point from 2 numbers, or the centre of a box from 4. */
export function pointOf(value: unknown): [number, number] | undefined {
  const n = numbersIn(value);
  if (!n) return undefined;
  if (n.length === 2) return [n[0]!, n[1]!];
  if (n.length === 4) return [(n[0]! + n[2]!) / 2, (n[1]! + n[3]!) / 2];
  return undefined;
}
