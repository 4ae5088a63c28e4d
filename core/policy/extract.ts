/**
 * Values a policy may type, pulled out of the instruction: quoted strings, capitalised names (the
 * whole run and each word, so "Grace Bauer" also gives "Grace" and "Bauer"), list items after a
 * colon, `key value` clauses ("note Paid in cash" → "Paid in cash"), the text after "message:",
 * numbers, amounts, phone numbers, e-mail addresses, file names, and the hour and minute of times
 * ("11:58 PM" → "11", "58"; "10h" → "10", "00"). Deterministic, in order of first appearance,
 * deduplicated, at most `max` values.
 */
export const DEFAULT_MAX_VALUES = 32;

/** Capitalised words that start instructions: alone they are never a value. */
const COMMAND_WORDS = new Set([
  'a', 'add', 'an', 'answer', 'at', 'change', 'copy', 'create', 'delete', 'do', 'each', 'edit', 'forward', 'how', 'i', 'in', 'is',
  'keep', 'make', 'mark', 'move', 'open', 'pause', 'record', 'remove', 'rename', 'reply', 'reschedule', 'resend', 'run',
  'save', 'send', 'set', 'some', 'start', 'text', 'the', 'then', 'turn', 'update', 'use', 'using', 'what', 'when', 'which',
  'who', 'with', 'their', 'they', 'this', 'list', 'it', 'from', 'to', 'on', 'for',
]);
/** Lower-case words that may sit inside a capitalised name ("Turkey and Cheese Panini"). */
const CONNECTORS = new Set(['and', 'with', 'of', 'the', 'de', 'in', 'for', 'on', '&']);

function cleanValue(v: string): string {
  return v.replace(/\s+/g, ' ').trim().replace(/^[,;:]+|[,;:]+$/g, '').trim();
}

/** Runs of capitalised words, allowing connector words between two capitalised ones. */
function capitalisedRuns(text: string): string[] {
  const tokens = text.split(/\s+/);
  const runs: string[] = [];
  let run: string[] = [];
  let pending: string[] = [];
  const flush = () => {
    if (run.length) runs.push(run.join(' '));
    run = [];
    pending = [];
  };
  for (const raw of tokens) {
    const word = raw.replace(/^[("'“‘]+/, '');
    const core = word.replace(/[.,;:!?)"'”’]+$/, '');
    const endsClause = core !== word;
    if (/^[A-Z][\p{L}'’-]*$/u.test(core) && !/^[A-Z]{2,}$/.test(core)) {
      run.push(...pending, core);
      pending = [];
    } else if (run.length && CONNECTORS.has(core)) {
      pending.push(core);
      continue;
    } else {
      flush();
      continue;
    }
    if (endsClause) flush();
  }
  flush();
  return runs;
}

function timeParts(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/\b(\d{1,2}):(\d{2})\s*(AM|PM|am|pm)?/g)) {
    out.push(m[1]!, m[2]!, `${m[1]}:${m[2]}`);
    if (m[1]!.startsWith('0')) out.push(String(Number(m[1])));
  }
  for (const m of text.matchAll(/\b(\d{1,2})h\b/g)) out.push(m[1]!, '00');
  for (const m of text.matchAll(/\b(\d{1,2})\s*(AM|PM|am|pm)\b/g)) out.push(m[1]!, '00');
  return out;
}

export function extractValues(instruction: string, max = DEFAULT_MAX_VALUES): string[] {
  const found: string[] = [];
  const add = (v: string | undefined) => {
    if (v === undefined) return;
    const c = cleanValue(v);
    if (c) found.push(c);
  };
  const text = instruction;

  // quoted strings ('…' needs a boundary so that apostrophes in "Priya's" do not open one)
  for (const m of text.matchAll(/"([^"]+)"|“([^”]+)”|(?:^|[\s(])'([^']+?)'(?=[\s.,;:!?)]|$)/g)) add(m[1] ?? m[2] ?? m[3]);
  // the text after "message:" / "text:" / a trailing colon clause, with and without its full stop
  for (const m of text.matchAll(/:\s*([^\n:]+)$/gm)) {
    add(m[1]);
    add(m[1]!.replace(/[.]$/, ''));
    // list items after the colon
    for (const item of m[1]!.replace(/[.]$/, '').split(/,\s*/)) add(item);
  }
  // e-mail addresses, phone numbers, file names
  for (const m of text.matchAll(/[\w.+-]+@[\w-]+\.[\w.]+\w/g)) add(m[0]);
  for (const m of text.matchAll(/(?:\+\d{1,2}\s?)?\(?\d{3}\)?[\s-]?\d{3}-\d{4}|\+?\d{10,13}/g)) add(m[0]);
  for (const m of text.matchAll(/\b[\w-]+\.(?:md|txt|jpg|jpeg|png|mp3|mp4|m4a|wav|pdf|csv|docx?)\b/gi)) add(m[0]);
  // "key value" clauses of lists such as "name X, amount $Y, category Z, note W"
  for (const m of text.matchAll(/\b(?:name|named|note|category|titled|called|title|description|label|labelled|to)\s+([^,.;:\n]+)/g)) {
    add(m[1]);
  }
  // capitalised names: the run and, for multi-word runs, each word
  for (const run of capitalisedRuns(text)) {
    const words = run.split(' ');
    if (words.length === 1 && COMMAND_WORDS.has(run.toLowerCase())) continue;
    const trimmed = COMMAND_WORDS.has(words[0]!.toLowerCase()) ? words.slice(1).join(' ') : run;
    add(trimmed);
    if (words.length > 1) for (const w of words) if (!COMMAND_WORDS.has(w.toLowerCase()) && !CONNECTORS.has(w)) add(w);
  }
  // times, then amounts and other numbers
  for (const t of timeParts(text)) add(t);
  for (const m of text.matchAll(/\$?(\d+(?:\.\d+)?)/g)) add(m[1]);

  const seen = new Set<string>();
  const out: string[] = [];
  for (const v of found) {
    if (seen.has(v)) continue;
    seen.add(v);
    out.push(v);
    if (out.length >= max) break;
  }
  return out;
}

/** True when the instruction asks for information rather than a change (answer candidates go with it). */
export function isQuestion(instruction: string): boolean {
  return /\?|\banswer with\b|^\s*(what|how|which|who|when|where)\b/i.test(instruction);
}

/** True when the answer is a count ("How many …"). */
export function asksForCount(instruction: string): boolean {
  return /\bhow many\b|\banswer with a number\b/i.test(instruction);
}
