import { lex, ShellSyntaxError, type Token, type Word } from './tokenize.js';

/**
 * The grammar of SimDroid's shell, the part of mksh that adb clients use: lists (`;`, newline,
 * `&&`, `||`), pipelines with `!`, `if … then … elif … else … fi`, `for NAME in WORD…; do …; done`,
 * `while`/`until … do … done`, `case WORD in PATTERN|… ) LIST ;; … esac`, `{ …; }` and `( … )` groups, `NAME=value` assignments, and
 * redirections on any command. Syntax errors read as mksh's.
 */
export interface Redirect {
  fd: 0 | 1 | 2;
  /** `>&1`: fd 2 joins stdout; `>&2`: fd 1 joins stderr. */
  op: '>' | '>>' | '<' | '>&1' | '>&2';
  /** The target as written (its source text when it needs expanding). */
  target: string;
  /** The target word ('' targets for `>&1`/`>&2` have none). */
  word: Word | null;
}

export interface SimpleCommand {
  kind: 'simple';
  /** `NAME=value` words before the command name. */
  assignments: Array<{ name: string; value: Word }>;
  /** The words as strings, before globbing. */
  argv: string[];
  words: Word[];
  redirects: Redirect[];
}

export interface ForCommand {
  kind: 'for';
  name: string;
  items: Word[];
  body: CommandList;
  redirects: Redirect[];
}

export interface LoopCommand {
  kind: 'loop';
  /** `while` runs the body while the condition exits 0; `until` while it does not. */
  until: boolean;
  cond: CommandList;
  body: CommandList;
  redirects: Redirect[];
}

export interface IfCommand {
  kind: 'if';
  clauses: Array<{ cond: CommandList; body: CommandList }>;
  otherwise: CommandList | null;
  redirects: Redirect[];
}

export interface GroupCommand {
  kind: 'group';
  body: CommandList;
  redirects: Redirect[];
}

export interface CaseCommand {
  kind: 'case';
  word: Word;
  /** Tried in order; the first arm with a pattern matching the word runs. */
  arms: Array<{ patterns: Word[]; body: CommandList }>;
  redirects: Redirect[];
}

/** `name() COMMAND` or `function name COMMAND`: defines a function (called like a command, `$1`… its arguments). */
export interface FunctionCommand {
  kind: 'function';
  name: string;
  body: ShellCommand;
  redirects: Redirect[];
}

export type ShellCommand = SimpleCommand | IfCommand | GroupCommand | ForCommand | LoopCommand | CaseCommand | FunctionCommand;

export interface Pipeline {
  negate: boolean;
  commands: ShellCommand[];
}

export interface CommandList {
  items: Array<{ pipeline: Pipeline; next: ';' | '&&' | '||' | null }>;
}

export { ShellSyntaxError };

const RESERVED = new Set(['if', 'then', 'elif', 'else', 'fi', '{', '}', '!', 'do', 'done', 'for', 'in', 'while', 'until', 'case', 'esac', 'function']);
const REDIRECT_OPS = new Set(['>', '>>', '1>', '<', '2>', '2>>', '2>&1', '>&2', '1>&2']);

class Parser {
  private i = 0;
  constructor(private readonly tokens: Token[]) {}

  peek(): Token | undefined {
    return this.tokens[this.i];
  }

  /** The reserved word at the cursor, if the next token is one (unquoted). */
  private keyword(): string | null {
    const t = this.peek();
    return t?.kind === 'word' && !t.word.quoted && RESERVED.has(t.word.value) ? t.word.value : null;
  }

  private skipNewlines(): void {
    while (this.peek()?.kind === 'op' && (this.peek() as { value: string }).value === '\n') this.i++;
  }

  /** A list, up to one of the `until` reserved words (or `)`), or the end. */
  list(until: readonly string[]): CommandList {
    const list: CommandList = { items: [] };
    for (;;) {
      this.skipNewlines();
      const t = this.peek();
      if (!t) break;
      const kw = this.keyword();
      if (kw !== null && until.includes(kw)) break;
      if (t.kind === 'op' && t.value === ')' && until.includes(')')) break;
      if (t.kind === 'op' && t.value === ';;' && until.includes(';;')) break;
      if (t.kind === 'op' && (t.value === ';' || t.value === '&')) throw new ShellSyntaxError(`syntax error: unexpected '${t.value}'`);
      const pipeline = this.pipeline();
      const sep = this.peek();
      let next: CommandList['items'][number]['next'] = null;
      if (sep?.kind === 'op' && (sep.value === '&&' || sep.value === '||')) {
        next = sep.value;
        this.i++;
        this.skipNewlines();
        if (!this.peek()) throw new ShellSyntaxError('syntax error: unexpected end of file');
      } else if (sep?.kind === 'op' && (sep.value === ';' || sep.value === '&' || sep.value === '\n')) {
        next = ';';
        this.i++;
      }
      list.items.push({ pipeline, next });
      if (next === null) {
        const after = this.peek();
        const kw2 = this.keyword();
        if (!after || (kw2 !== null && until.includes(kw2)) || (after.kind === 'op' && (after.value === ')' || after.value === ';;') && until.includes(after.value))) break;
        throw new ShellSyntaxError(`syntax error: unexpected '${after.kind === 'op' ? after.value : after.word.value}'`);
      }
    }
    return list;
  }

  private pipeline(): Pipeline {
    let negate = false;
    if (this.keyword() === '!') {
      negate = true;
      this.i++;
    }
    const commands = [this.command()];
    while (this.peek()?.kind === 'op' && (this.peek() as { value: string }).value === '|') {
      this.i++;
      this.skipNewlines();
      commands.push(this.command());
    }
    return { negate, commands };
  }

  private expectKeyword(kw: string, opener: string): void {
    if (this.keyword() !== kw) throw new ShellSyntaxError(`syntax error: '${opener}' unmatched`);
    this.i++;
  }

  private command(): ShellCommand {
    const kw = this.keyword();
    const t = this.peek();
    if (kw === 'if') {
      this.i++;
      const clauses: IfCommand['clauses'] = [];
      let otherwise: CommandList | null = null;
      for (;;) {
        const cond = this.list(['then']);
        this.expectKeyword('then', 'if');
        const body = this.list(['elif', 'else', 'fi']);
        clauses.push({ cond: nonEmpty(cond, 'then'), body: nonEmpty(body, 'fi') });
        const k = this.keyword();
        this.i++;
        if (k === 'elif') continue;
        if (k === 'else') {
          otherwise = nonEmpty(this.list(['fi']), 'fi');
          this.expectKeyword('fi', 'if');
        } else if (k !== 'fi') throw new ShellSyntaxError("syntax error: 'if' unmatched");
        break;
      }
      return { kind: 'if', clauses, otherwise, redirects: this.redirects() };
    }
    if (kw === 'for') return this.forCommand();
    if (kw === 'case') return this.caseCommand();
    if (kw === 'function') {
      this.i++;
      const n = this.peek();
      if (n?.kind !== 'word' || n.word.quoted || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(n.word.value)) throw new ShellSyntaxError('function: bad identifier');
      this.i++;
      this.skipNewlines();
      return { kind: 'function', name: n.word.value, body: this.command(), redirects: [] };
    }
    const after = (k: number) => this.tokens[this.i + k];
    const isParen = (tok: Token | undefined, v: string) => tok?.kind === 'op' && tok.value === v;
    if (t?.kind === 'word' && !t.word.quoted && /^[A-Za-z_][A-Za-z0-9_]*$/.test(t.word.value) && isParen(after(1), '(') && isParen(after(2), ')')) {
      this.i += 3;
      this.skipNewlines();
      return { kind: 'function', name: t.word.value, body: this.command(), redirects: [] };
    }
    if (kw === 'while' || kw === 'until') {
      this.i++;
      const cond = nonEmpty(this.list(['do']), 'do');
      const body = this.doGroup(kw);
      return { kind: 'loop', until: kw === 'until', cond, body, redirects: this.redirects() };
    }
    if (kw === '{') {
      this.i++;
      const body = nonEmpty(this.list(['}']), '}');
      this.expectKeyword('}', '{');
      return { kind: 'group', body, redirects: this.redirects() };
    }
    if (t?.kind === 'op' && t.value === '(') {
      this.i++;
      const body = nonEmpty(this.list([')']), ')');
      const close = this.peek();
      if (close?.kind !== 'op' || close.value !== ')') throw new ShellSyntaxError("syntax error: '(' unmatched");
      this.i++;
      return { kind: 'group', body, redirects: this.redirects() };
    }
    if (kw !== null && kw !== '!') throw new ShellSyntaxError(`syntax error: '${kw}' unexpected`);
    const cmd: SimpleCommand = { kind: 'simple', assignments: [], argv: [], words: [], redirects: [] };
    for (;;) {
      const u = this.peek();
      if (!u) break;
      const assignment = u.kind === 'word' && cmd.words.length === 0 ? asAssignment(u.word) : null;
      if (assignment) {
        cmd.assignments.push(assignment);
        this.i++;
        continue;
      }
      if (u.kind === 'word') {
        cmd.argv.push(u.word.value);
        cmd.words.push(u.word);
        this.i++;
        continue;
      }
      if (!REDIRECT_OPS.has(u.value)) break;
      cmd.redirects.push(...this.redirects());
    }
    if (cmd.argv.length === 0 && cmd.redirects.length === 0 && cmd.assignments.length === 0) {
      const u = this.peek();
      throw new ShellSyntaxError(u ? `syntax error: unexpected '${u.kind === 'op' ? (u.value === '\n' ? 'newline' : u.value) : u.word.value}'` : 'syntax error: unexpected end of file');
    }
    return cmd;
  }

  /** `for NAME [in WORD…] (;|newline) do LIST done` (without `in`, over no words: adb's shell has no positional parameters). */
  private forCommand(): ForCommand {
    this.i++;
    const n = this.peek();
    if (n?.kind !== 'word' || n.word.quoted || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(n.word.value)) {
      throw new ShellSyntaxError(`for: bad identifier`);
    }
    this.i++;
    const items: Word[] = [];
    this.skipNewlines();
    if (this.keyword() === 'in') {
      this.i++;
      for (let t = this.peek(); t?.kind === 'word'; t = this.peek()) {
        items.push(t.word);
        this.i++;
      }
    }
    const sep = this.peek();
    if (sep?.kind === 'op' && (sep.value === ';' || sep.value === '\n')) this.i++;
    this.skipNewlines();
    const body = this.doGroup('for');
    return { kind: 'for', name: n.word.value, items, body, redirects: this.redirects() };
  }

  /** `case WORD in [(]PATTERN[|PATTERN…]) [LIST] ;; … esac` (the last arm's `;;` optional). */
  private caseCommand(): CaseCommand {
    this.i++;
    const w = this.peek();
    if (w?.kind !== 'word') throw new ShellSyntaxError(`syntax error: unexpected '${w ? (w.value === '\n' ? 'newline' : w.value) : 'end of file'}'`);
    this.i++;
    this.skipNewlines();
    this.expectKeyword('in', 'case');
    const arms: CaseCommand['arms'] = [];
    const isOp = (v: string) => this.peek()?.kind === 'op' && (this.peek() as { value: string }).value === v;
    for (;;) {
      this.skipNewlines();
      if (this.keyword() === 'esac') {
        this.i++;
        break;
      }
      if (!this.peek()) throw new ShellSyntaxError("syntax error: 'case' unmatched");
      if (isOp('(')) this.i++;
      const patterns: Word[] = [];
      for (;;) {
        const p = this.peek();
        if (p?.kind !== 'word') throw new ShellSyntaxError(`syntax error: unexpected '${p ? (p.value === '\n' ? 'newline' : p.value) : 'end of file'}'`);
        patterns.push(p.word);
        this.i++;
        if (!isOp('|')) break;
        this.i++;
      }
      if (!isOp(')')) throw new ShellSyntaxError("syntax error: 'case' unmatched");
      this.i++;
      arms.push({ patterns, body: this.list(['esac', ';;']) });
      if (isOp(';;')) this.i++;
      else if (this.keyword() !== 'esac') throw new ShellSyntaxError("syntax error: 'case' unmatched");
    }
    return { kind: 'case', word: w.word, arms, redirects: this.redirects() };
  }

  /** `do LIST done`, after a loop's head. */
  private doGroup(opener: string): CommandList {
    this.skipNewlines();
    this.expectKeyword('do', opener);
    const body = nonEmpty(this.list(['done']), 'done');
    this.expectKeyword('done', opener);
    return body;
  }

  private redirects(): Redirect[] {
    const out: Redirect[] = [];
    for (;;) {
      const t = this.peek();
      if (t?.kind !== 'op' || !REDIRECT_OPS.has(t.value)) return out;
      this.i++;
      if (t.value === '2>&1') {
        out.push({ fd: 2, op: '>&1', target: '', word: null });
        continue;
      }
      if (t.value === '>&2' || t.value === '1>&2') {
        out.push({ fd: 1, op: '>&2', target: '', word: null });
        continue;
      }
      const target = this.peek();
      if (target?.kind !== 'word') throw new ShellSyntaxError(`syntax error: unexpected '${t.value}'`);
      this.i++;
      const fd = t.value.startsWith('2') ? 2 : t.value === '<' ? 0 : 1;
      const op = t.value === '<' ? '<' : t.value.endsWith('>>') ? '>>' : '>';
      out.push({ fd, op, target: target.word.value, word: target.word });
    }
  }
}

/** `NAME=value` (the name and `=` unquoted): the value's parts after the `=`; null for any other word. */
function asAssignment(word: Word): { name: string; value: Word } | null {
  const first = word.parts[0];
  const m = first?.kind === 'text' && !first.quoted ? /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(first.text) : null;
  if (!m) return null;
  const rest = first!.kind === 'text' ? first!.text.slice(m[0].length) : '';
  const parts = [...(rest ? [{ kind: 'text' as const, text: rest, quoted: false }] : []), ...word.parts.slice(1)];
  return { name: m[1]!, value: { value: word.value.slice(m[0].length), glob: null, quoted: true, parts, deferred: word.deferred } };
}

function nonEmpty(list: CommandList, before: string): CommandList {
  if (list.items.length === 0) throw new ShellSyntaxError(`syntax error: '${before}' unexpected`);
  return list;
}

export function parseShell(src: string): CommandList {
  const p = new Parser(lex(src));
  const list = p.list([]);
  // Anything left is a reserved word in the wrong place (`fi` alone, `then` with no `if`, …).
  const t = p.peek();
  if (t) throw new ShellSyntaxError(`syntax error: '${t.kind === 'word' ? t.word.value : t.value}' unexpected`);
  return list;
}

/** Every command in a list, inside `if` and groups too, outermost first (for the effects and stdin checks). */
export function allCommands(list: CommandList): ShellCommand[] {
  const out: ShellCommand[] = [];
  const visit = (l: CommandList) => {
    for (const { pipeline } of l.items) for (const c of pipeline.commands) visitCommand(c);
  };
  const visitCommand = (c: ShellCommand) => {
    out.push(c);
    switch (c.kind) {
      case 'simple':
        break;
      case 'if':
        for (const cl of c.clauses) {
          visit(cl.cond);
          visit(cl.body);
        }
        if (c.otherwise) visit(c.otherwise);
        break;
      case 'group':
        visit(c.body);
        break;
      case 'for':
        visit(c.body);
        break;
      case 'loop':
        visit(c.cond);
        visit(c.body);
        break;
      case 'case':
        for (const arm of c.arms) visit(arm.body);
        break;
      case 'function':
        visitCommand(c.body);
        break;
    }
  };
  visit(list);
  return out;
}
