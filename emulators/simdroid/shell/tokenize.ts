/**
 * The lexer of SimDroid's shell (mksh, as /system/bin/sh on Android 13): quoting ('…', "…", \x),
 * `$VAR` expansion, operators (`;` `&` `&&` `||` `|` `(` `)`, newlines) and redirections (`>` `>>`
 * `<` `2>` `2>>` `2>&1` `>&2`). Words remember which of their glob characters were unquoted, so
 * `rm -r dir/*` globs and `echo '*'` does not. The grammar on top of it is in parse.ts.
 */
export class ShellSyntaxError extends Error {
  override name = 'ShellSyntaxError';
}

export interface Word {
  /** The word after quote removal and `$VAR` expansion. */
  value: string;
  /** A glob pattern (quoted metacharacters escaped with `\`) when the word has an unquoted `*`, `?` or `[`; else null. */
  glob: string | null;
  /** Whether any part was quoted (a quoted word is never a reserved word such as `if`). */
  quoted: boolean;
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
const OPERATORS = ['2>&1', '1>&2', '2>>', '>&2', '&&', '||', '>>', '2>', '1>', ';', '|', '&', '>', '<', '(', ')'];
const GLOB_CHARS = '*?[';
const ESCAPE_IN_GLOB = '*?[]\\';

export function lex(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let value = '';
  let glob = '';
  let hasGlob = false;
  let quoted = false;
  let inWord = false;
  const addQuoted = (s: string) => {
    value += s;
    for (const ch of s) glob += ESCAPE_IN_GLOB.includes(ch) ? `\\${ch}` : ch;
    quoted = true;
    inWord = true;
  };
  const addPlain = (ch: string) => {
    value += ch;
    if (GLOB_CHARS.includes(ch)) hasGlob = true;
    glob += ch === '\\' ? '\\\\' : ch;
    inWord = true;
  };
  const flush = () => {
    if (inWord) tokens.push({ kind: 'word', word: { value, glob: hasGlob ? glob : null, quoted } });
    value = '';
    glob = '';
    hasGlob = false;
    quoted = false;
    inWord = false;
  };
  const expandVar = (): string => {
    // At "$": read a name, or {name}.
    i++;
    let name = '';
    if (src[i] === '{') {
      const end = src.indexOf('}', i);
      if (end < 0) throw new ShellSyntaxError('bad substitution');
      name = src.slice(i + 1, end);
      i = end + 1;
    } else {
      while (i < src.length && /[A-Za-z0-9_?]/.test(src[i]!)) name += src[i++];
    }
    if (name === '') return '$';
    return ENV[name] ?? '';
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
      addQuoted(src.slice(i + 1, end));
      i = end + 1;
      continue;
    }
    if (c === '"') {
      let out = '';
      i++;
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
          out += expandVar();
          continue;
        }
        out += d;
        i++;
      }
      addQuoted(out);
      continue;
    }
    if (c === '\\') {
      if (i + 1 < src.length && src[i + 1] !== '\n') addQuoted(src[i + 1]!);
      i += 2;
      continue;
    }
    if (c === '$') {
      addQuoted(expandVar());
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
