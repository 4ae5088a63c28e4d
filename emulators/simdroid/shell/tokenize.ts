/**
 * A small POSIX-ish shell parser, enough for what adb clients send: quoting ('…', "…", \x),
 * `$VAR` expansion, `;` `&&` `||` lists, `|` pipelines, and `>` `>>` `2>` `2>&1` `<` redirections.
 */
export interface Redirect {
  fd: 1 | 2 | 0;
  op: '>' | '>>' | '<' | '>&1';
  target: string;
}

export interface SimpleCommand {
  argv: string[];
  redirects: Redirect[];
}

export interface Pipeline {
  commands: SimpleCommand[];
}

export interface CommandList {
  items: Array<{ pipeline: Pipeline; next: ';' | '&&' | '||' | null }>;
}

export class ShellSyntaxError extends Error {
  override name = 'ShellSyntaxError';
}

type Token = { kind: 'word'; value: string } | { kind: 'op'; value: string };

const ENV: Record<string, string> = {
  EXTERNAL_STORAGE: '/sdcard',
  ANDROID_DATA: '/data',
  ANDROID_ROOT: '/system',
  HOME: '/',
  PATH: '/product/bin:/apex/com.android.runtime/bin:/system/bin:/system/xbin:/odm/bin:/vendor/bin',
  USER: 'shell',
};

function lex(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let word: string | null = null;
  const flush = () => {
    if (word !== null) tokens.push({ kind: 'word', value: word });
    word = null;
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
    if (c === ' ' || c === '\t' || c === '\n') {
      flush();
      if (c === '\n') tokens.push({ kind: 'op', value: ';' });
      i++;
      continue;
    }
    if (c === '#' && word === null) {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    if (c === "'") {
      const end = src.indexOf("'", i + 1);
      if (end < 0) throw new ShellSyntaxError("unterminated quoted string");
      word = (word ?? '') + src.slice(i + 1, end);
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
      word = (word ?? '') + out;
      continue;
    }
    if (c === '\\') {
      if (i + 1 < src.length) word = (word ?? '') + src[i + 1];
      i += 2;
      continue;
    }
    if (c === '$') {
      word = (word ?? '') + expandVar();
      continue;
    }
    const three = src.slice(i, i + 4);
    if (three.startsWith('2>&1')) {
      flush();
      tokens.push({ kind: 'op', value: '2>&1' });
      i += 4;
      continue;
    }
    const two = src.slice(i, i + 2);
    if (['&&', '||', '>>', '2>'].includes(two) && !(two === '2>' && word !== null)) {
      flush();
      tokens.push({ kind: 'op', value: two });
      i += 2;
      continue;
    }
    if (';|><&'.includes(c)) {
      flush();
      tokens.push({ kind: 'op', value: c });
      i++;
      continue;
    }
    word = (word ?? '') + c;
    i++;
  }
  flush();
  return tokens;
}

export function parseShell(src: string): CommandList {
  const tokens = lex(src);
  const list: CommandList = { items: [] };
  let pipeline: Pipeline = { commands: [] };
  let cmd: SimpleCommand = { argv: [], redirects: [] };
  const endCommand = () => {
    if (cmd.argv.length === 0 && cmd.redirects.length === 0) {
      if (pipeline.commands.length > 0) throw new ShellSyntaxError("syntax error: unexpected '|'");
      return false;
    }
    pipeline.commands.push(cmd);
    cmd = { argv: [], redirects: [] };
    return true;
  };
  const endPipeline = (next: ';' | '&&' | '||' | null) => {
    const had = endCommand();
    if (!had && pipeline.commands.length === 0) {
      if (next === '&&' || next === '||') throw new ShellSyntaxError(`syntax error: unexpected '${next}'`);
      return;
    }
    list.items.push({ pipeline, next });
    pipeline = { commands: [] };
  };
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.kind === 'word') {
      cmd.argv.push(t.value);
      continue;
    }
    switch (t.value) {
      case ';':
      case '&':
        endPipeline(';');
        break;
      case '&&':
      case '||':
        endPipeline(t.value);
        break;
      case '|':
        if (!endCommand()) throw new ShellSyntaxError("syntax error: unexpected '|'");
        break;
      case '2>&1':
        cmd.redirects.push({ fd: 2, op: '>&1', target: '' });
        break;
      default: {
        const target = tokens[i + 1];
        if (!target || target.kind !== 'word') throw new ShellSyntaxError(`syntax error: unexpected '${t.value}'`);
        i++;
        const op = t.value === '<' ? '<' : t.value === '>>' ? '>>' : '>';
        cmd.redirects.push({ fd: t.value === '2>' ? 2 : t.value === '<' ? 0 : 1, op, target: target.value });
      }
    }
  }
  endPipeline(null);
  if (list.items.length && list.items[list.items.length - 1]!.next !== null && list.items[list.items.length - 1]!.next !== ';') {
    throw new ShellSyntaxError('syntax error: unexpected end of file');
  }
  return list;
}
