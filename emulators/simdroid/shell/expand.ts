import type { FileSystem } from '../system/fs.js';
import { expandWord, segmentRegExp } from './glob.js';
import { lex, type ParamOp, type Word } from './tokenize.js';
import { evaluateArith } from './arith.js';

/**
 * Expansion of a word when its command runs, as mksh does it: parameters (`$name`, `${name}`, `$?`)
 * and command substitutions (`$(…)`, `…`, output less its trailing newlines) are replaced; what an
 * unquoted expansion gives is split into fields on blanks and newlines and then globbed, a quoted
 * one stays one field; an unquoted expansion that gives nothing leaves no field. Words without
 * expansions keep their lexed value and glob.
 */
export interface ExpandContext {
  fs: FileSystem;
  /** A parameter's value ('' when unset). */
  param(name: string): string;
  /** Whether a parameter is set (`${name-w}` tells unset from empty). */
  isSet(name: string): boolean;
  /** The positional parameters, for `"$@"` (one field each). */
  params(): string[];
  /** Runs a command substitution's source and returns its standard output. */
  substitute(src: string): string;
}

const GLOB_CHARS = '*?[';
const ESCAPE_IN_GLOB = '*?[]\\';

interface Field {
  value: string;
  glob: string;
  hasGlob: boolean;
  /** Whether anything (even an empty quoted string) made this field exist. */
  real: boolean;
}

/** The fields of a word, before globbing; `split` false for assignments (one field, no splitting). */
function fields(word: Word, ctx: ExpandContext, split: boolean): Field[] {
  const out: Field[] = [];
  let cur: Field = { value: '', glob: '', hasGlob: false, real: word.quoted };
  const addQuoted = (s: string) => {
    cur.value += s;
    for (const ch of s) cur.glob += ESCAPE_IN_GLOB.includes(ch) ? `\\${ch}` : ch;
    cur.real = true;
  };
  const addUnquoted = (s: string) => {
    for (const ch of s) {
      if (split && (ch === ' ' || ch === '\t' || ch === '\n')) {
        if (cur.real) out.push(cur);
        cur = { value: '', glob: '', hasGlob: false, real: false };
        continue;
      }
      cur.value += ch;
      if (GLOB_CHARS.includes(ch)) cur.hasGlob = true;
      cur.glob += ch === '\\' ? '\\\\' : ch;
      cur.real = true;
    }
  };
  for (const part of word.parts) {
    switch (part.kind) {
      case 'text':
        if (part.quoted) addQuoted(part.text);
        else addUnquoted(part.text);
        break;
      case 'param': {
        if (part.name === '@' && part.quoted && !part.op && split) {
          // "$@": each parameter its own field, the first joined to what precedes, the last to what follows.
          const ps = ctx.params();
          ps.forEach((v, k) => {
            if (k > 0) {
              out.push(cur);
              cur = { value: '', glob: '', hasGlob: false, real: false };
            }
            addQuoted(v);
          });
          if (ps.length === 0 && word.parts.length === 1) cur.real = false;
          break;
        }
        const v = paramValue(part.name, part.fixed, part.op, ctx);
        if (part.quoted) addQuoted(v);
        else addUnquoted(v);
        break;
      }
      case 'command': {
        const v = ctx.substitute(part.src).replace(/\n+$/, '');
        if (part.quoted) addQuoted(v);
        else addUnquoted(v);
        break;
      }
      case 'arith': {
        // Parameters and substitutions inside expand first; bare names are read as variables.
        const v = String(evaluateArith(expandInText(part.src, ctx), (n) => ctx.param(n)));
        if (part.quoted) addQuoted(v);
        else addUnquoted(v);
        break;
      }
    }
  }
  if (cur.real) out.push(cur);
  return out;
}

/** The text of an operator's word or pattern (`${x:-word}`), its own expansions done. */
function expandSource(src: string, ctx: ExpandContext): string {
  return lex(src).map((t) => (t.kind === 'word' ? expandString(t.word, ctx) : t.value)).join(' ');
}

/** Text with its `$…` expansions done and nothing else (no splitting, no globbing): as inside double quotes. */
function expandInText(src: string, ctx: ExpandContext): string {
  const [t] = lex(`"${src.replace(/["\\]/g, '\\$&')}"`);
  return t?.kind === 'word' ? expandString(t.word, ctx) : '';
}

function paramValue(name: string, fixed: string | undefined, op: ParamOp | undefined, ctx: ExpandContext): string {
  const set = fixed !== undefined || ctx.isSet(name);
  const value = fixed ?? ctx.param(name);
  if (!op) return value;
  switch (op.kind) {
    case 'length':
      return String([...value].length);
    case 'default':
      return (op.colon ? value === '' : !set) ? expandSource(op.word, ctx) : value;
    case 'alternative':
      return (op.colon ? value !== '' : set) ? expandSource(op.word, ctx) : '';
    case 'trim': {
      const re = segmentRegExp(expandSource(op.pattern, ctx));
      const n = value.length;
      // Shortest: the fewest characters removed that match; longest: the most.
      for (let k = op.longest ? n : 0; op.longest ? k >= 0 : k <= n; k += op.longest ? -1 : 1) {
        if (re.test(op.suffix ? value.slice(n - k) : value.slice(0, k))) return op.suffix ? value.slice(0, n - k) : value.slice(k);
      }
      return value;
    }
  }
}

/** The arguments a word gives: its fields, each globbed against the file system. */
export function expandArgs(word: Word, ctx: ExpandContext): string[] {
  if (!word.deferred) return expandWord(word, ctx.fs);
  return fields(word, ctx, true).flatMap((f) => expandWord({ ...word, value: f.value, glob: f.hasGlob ? f.glob : null, deferred: false }, ctx.fs));
}

/** A word expanded to one string, unsplit and unglobbed (assignment values, redirect targets). */
export function expandString(word: Word, ctx: ExpandContext): string {
  if (!word.deferred) return word.value;
  return fields(word, ctx, false).map((f) => f.value).join('');
}

/** A case pattern as a glob: its quoted characters literal, an expansion's value a pattern (as mksh reads `$p`). */
export function casePattern(w: Word, ctx: ExpandContext): string {
  if (w.deferred) return expandString(w, ctx);
  return w.glob ?? w.value.replace(/[*?[\]\\]/g, '\\$&');
}
