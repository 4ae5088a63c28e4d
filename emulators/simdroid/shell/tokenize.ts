/**
 * The lexer of SimDroid's shell (mksh, as /system/bin/sh on Android 13): quoting ('…', "…", \x),
 * `$VAR` expansion (the system's fixed environment here; shell variables, `$?`, `${VAR:-…}`-style
 * operators, `$((…))` arithmetic and `$(…)` / `…` command substitutions are kept as parts and expanded
 * when the command runs), operators (`;` `&` `&&` `||` `|` `(` `)`, newlines) and redirections (`>` `>>`
 * `<` `2>` `2>>` `2>&1` `>&2`). Words remember which of their glob characters were unquoted, so
 * `rm -r dir/*` globs and `echo '*'` does not. The grammar on top of it is in parse.ts.
 */
export class ShellSyntaxError extends Error {
  override name = 'ShellSyntaxError';
}

/**
 * What `${name…}` does with the value: `${#name}` its length; `${name:-w}` / `${name-w}` the word when
 * the value is empty or unset / unset; `${name:+w}` / `${name+w}` the word when set and non-empty / set;
 * `${name#p}` `${name##p}` `${name%p}` `${name%%p}` the value less its shortest/longest prefix/suffix
 * matching the glob p. Words and patterns are kept as source and expanded when the command runs.
 */
export type ParamOp =
  | { kind: 'length' }
  | { kind: 'default' | 'alternative'; colon: boolean; word: string }
  | { kind: 'trim'; suffix: boolean; longest: boolean; pattern: string };

/** A piece of a word: text (quoted or not), a parameter (`$name`, `$?`, `${name…}`), a command substitution, or `$((…))`. */
export type WordPart =
  | { kind: 'text'; text: string; quoted: boolean }
  | { kind: 'param'; name: string; quoted: boolean; op?: ParamOp; fixed?: string }
  | { kind: 'command'; src: string; quoted: boolean }
  | { kind: 'arith'; src: string; quoted: boolean };

export interface Word {
  /** The word after quote removal and static `$VAR` expansion (its source text where `deferred`). */
  value: string;
  /** A glob pattern (quoted metacharacters escaped with `\`) when the word has an unquoted `*`, `?` or `[`; else null. */
  glob: string | null;
  /** Whether any part was quoted (a quoted word is never a reserved word such as `if`). */
  quoted: boolean;
  /** The word's parts, in order; expanded when the command runs. */
  parts: WordPart[];
  /** Whether it holds a parameter or command substitution, known only when it runs (shell/expand.ts). */
  deferred: boolean;
}

export type Token = { kind: 'word'; word: Word } | { kind: 'op'; value: string };

const ENV: Record<string, string> = {
  EXTERNAL_STORAGE: '/sdcard',
  ANDROID_DATA: '/data',
  ANDROID_ROOT: '/system',
  HOME: '/',
  PATH: '/product/bin:/apex/com.android.runtime/bin:/system/bin:/system/xbin:/odm/bin:/vendor/bin',
  USER: 'shell',
};

/** Operators, longest first so `2>&1` wins over `2>` and `&&` over `&`. */
const OPERATORS = ['2>&1', '1>&2', '2>>', '>&2', '&&', '||', '>>', '2>', '1>', ';;', ';', '|', '&', '>', '<', '(', ')'];
const GLOB_CHARS = '*?[';
const ESCAPE_IN_GLOB = '*?[]\\';

/**
 * The index after the bracket closing a `$(` or `${` whose body starts at `i`: quotes are skipped (double quotes
 * only inside `$(…)`), nested openings counted — `(` anywhere in a command, `${` in a parameter.
 */
function closingEnd(src: string, i: number, kind: '(' | '{'): number {
  const close = kind === '(' ? ')' : '}';
  let depth = 1;
  while (i < src.length) {
    const c = src[i]!;
    if (c === '\\') i += 2;
    else if (c === "'") {
      const end = src.indexOf("'", i + 1);
      if (end < 0) break;
      i = end + 1;
    } else if (c === '"' && kind === '(') {
      i++;
      while (i < src.length && src[i] !== '"') i += src[i] === '\\' ? 2 : 1;
      i++;
    } else {
      if (c === kind && (kind === '(' || src[i - 1] === '$')) depth++;
      else if (c === close && --depth === 0) return i + 1;
      i++;
    }
  }
  throw new ShellSyntaxError(kind === '(' ? "syntax error: unexpected end of file (expecting ')')" : 'bad substitution');
}

/** The source inside `…` starting at `i` (after the opening backquote), with its \` \\ \$ escapes removed, and the index after the closing one. */
function backquoted(src: string, i: number): { body: string; end: number } {
  let body = '';
  while (i < src.length && src[i] !== '`') {
    if (src[i] === '\\' && i + 1 < src.length && '`\\$'.includes(src[i + 1]!)) {
      body += src[i + 1];
      i += 2;
    } else body += src[i++];
  }
  if (i >= src.length) throw new ShellSyntaxError('syntax error: unexpected end of file (expecting \'`\')');
  return { body, end: i + 1 };
}

/** Single-character special parameters: `$?`, `$#`, `$0`…`$9`, `$@`, `$*`. */
const SPECIAL = /[?#@*0-9]/;

/** `name` and what to do with it, from the text between `${` and `}`. */
function paramBody(body: string): { name: string; op?: ParamOp } {
  if (body.length > 1 && body.startsWith('#') && /^([A-Za-z_]\w*|[?#@*0-9])$/.test(body.slice(1))) return { name: body.slice(1), op: { kind: 'length' } };
  const m = /^([A-Za-z_]\w*|[?#@*0-9])(.*)$/s.exec(body);
  if (!m) throw new ShellSyntaxError(`\${${body}}: bad substitution`);
  const [, name, rest] = m as unknown as [string, string, string];
  if (rest === '') return { name };
  const op = /^(:?[-+]|##?|%%?)(.*)$/s.exec(rest);
  if (!op) throw new ShellSyntaxError(`\${${body}}: bad substitution`);
  const [, sym, arg] = op as unknown as [string, string, string];
  if (sym.endsWith('-') || sym.endsWith('+')) return { name, op: { kind: sym.endsWith('-') ? 'default' : 'alternative', colon: sym.startsWith(':'), word: arg } };
  return { name, op: { kind: 'trim', suffix: sym.startsWith('%'), longest: sym.length === 2, pattern: arg } };
}

export function lex(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let value = '';
  let glob = '';
  let hasGlob = false;
  let quoted = false;
  let inWord = false;
  let parts: WordPart[] = [];
  let deferred = false;
  let start = 0;
  const text = (t: string, isQuoted: boolean) => {
    const last = parts[parts.length - 1];
    if (last?.kind === 'text' && last.quoted === isQuoted) last.text += t;
    else parts.push({ kind: 'text', text: t, quoted: isQuoted });
  };
  const begin = () => {
    if (!inWord) start = i;
    inWord = true;
  };
  const addQuoted = (s: string) => {
    begin();
    value += s;
    for (const ch of s) glob += ESCAPE_IN_GLOB.includes(ch) ? `\\${ch}` : ch;
    text(s, true);
    quoted = true;
  };
  const addPlain = (ch: string) => {
    begin();
    value += ch;
    if (GLOB_CHARS.includes(ch)) hasGlob = true;
    glob += ch === '\\' ? '\\\\' : ch;
    text(ch, false);
  };
  const addPart = (part: WordPart) => {
    begin();
    parts.push(part);
    deferred = true;
    if (part.quoted) quoted = true;
  };
  const flush = () => {
    if (inWord) {
      tokens.push({ kind: 'word', word: deferred
        ? { value: src.slice(start, i).trim(), glob: null, quoted, parts, deferred }
        : { value, glob: hasGlob ? glob : null, quoted, parts, deferred } });
    }
    value = '';
    glob = '';
    hasGlob = false;
    quoted = false;
    inWord = false;
    parts = [];
    deferred = false;
  };
  /** At "$": a parameter, a command substitution, or a lone "$". */
  const dollar = (inQuotes: boolean) => {
    if (src[i + 1] === '(') {
      if (src[i + 2] === '(') {
        // $((expr)): the body up to the `))` that closes it.
        const end = closingEnd(src, i + 2, '(');
        if (src[end - 2] !== ')') throw new ShellSyntaxError("syntax error: unexpected end of file (expecting ')')");
        begin();
        addPart({ kind: 'arith', src: src.slice(i + 3, end - 2), quoted: inQuotes });
        i = end;
        return;
      }
      begin();
      const end = closingEnd(src, i + 2, '(');
      addPart({ kind: 'command', src: src.slice(i + 2, end - 1), quoted: inQuotes });
      i = end;
      return;
    }
    begin();
    i++;
    let name = '';
    let op: ParamOp | undefined;
    if (src[i] === '{') {
      const end = closingEnd(src, i + 1, '{');
      ({ name, op } = paramBody(src.slice(i + 1, end - 1)));
      i = end;
    } else if (i < src.length && SPECIAL.test(src[i]!)) {
      name = src[i++]!;
    } else {
      while (i < src.length && /[A-Za-z0-9_]/.test(src[i]!)) name += src[i++];
    }
    if (name === '') {
      if (inQuotes) addQuoted('$');
      else addPlain('$');
      return;
    }
    // The system's environment is fixed: it expands now; shell variables and specials when run.
    const fixed = ENV[name];
    if (fixed !== undefined && !op) addQuoted(fixed);
    else addPart({ kind: 'param', name, quoted: inQuotes, ...(op ? { op } : {}), ...(fixed !== undefined ? { fixed } : {}) });
  };
  const backquote = (inQuotes: boolean) => {
    begin();
    const { body, end } = backquoted(src, i + 1);
    addPart({ kind: 'command', src: body, quoted: inQuotes });
    i = end;
  };
  while (i < src.length) {
    const c = src[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      flush();
      if (c === '\n') tokens.push({ kind: 'op', value: '\n' });
      i++;
      continue;
    }
    if (c === '#' && !inWord) {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    if (c === "'") {
      const end = src.indexOf("'", i + 1);
      if (end < 0) throw new ShellSyntaxError('unterminated quoted string');
      begin();
      addQuoted(src.slice(i + 1, end));
      i = end + 1;
      continue;
    }
    if (c === '"') {
      begin();
      quoted = true;
      i++;
      let out = '';
      const emit = () => {
        if (out) addQuoted(out);
        out = '';
      };
      for (;;) {
        if (i >= src.length) throw new ShellSyntaxError('unterminated quoted string');
        const d = src[i]!;
        if (d === '"') {
          i++;
          break;
        }
        if (d === '\\' && i + 1 < src.length && '"\\$`\n'.includes(src[i + 1]!)) {
          out += src[i + 1];
          i += 2;
          continue;
        }
        if (d === '$') {
          emit();
          dollar(true);
          continue;
        }
        if (d === '`') {
          emit();
          backquote(true);
          continue;
        }
        out += d;
        i++;
      }
      emit();
      continue;
    }
    if (c === '\\') {
      if (i + 1 < src.length && src[i + 1] !== '\n') addQuoted(src[i + 1]!);
      i += 2;
      continue;
    }
    if (c === '$') {
      dollar(false);
      continue;
    }
    if (c === '`') {
      backquote(false);
      continue;
    }
    // `2>` and `1>` are redirections only at the start of a word (`a2>x` is the word `a2`, then `>`).
    const op = OPERATORS.find((o) => src.startsWith(o, i) && !(inWord && /^[12]/.test(o)));
    if (op) {
      flush();
      tokens.push({ kind: 'op', value: op });
      i += op.length;
      continue;
    }
    addPlain(c);
    i++;
  }
  flush();
  return tokens;
}
