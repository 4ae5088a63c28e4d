/**
 * mksh's arithmetic expansion `$((…))`: C's integer operators on 32-bit signed integers (mksh's
 * mksh_ari_t), names read as variables (unset or empty: 0), constants decimal (a leading 0 is still
 * decimal in mksh), 0x… hex or BASE#digits. Assignment operators are not supported.
 */
export class ShellArithError extends Error {
  override name = 'ShellArithError';
  constructor(readonly expression: string, reason: string) {
    super(`${expression}: ${reason}`);
  }
}

type Tok = { kind: 'num'; value: number } | { kind: 'name'; name: string } | { kind: 'op'; op: string };

const OPS = ['<<', '>>', '<=', '>=', '==', '!=', '&&', '||', '+', '-', '*', '/', '%', '<', '>', '&', '|', '^', '!', '~', '(', ')', '?', ':'];

function tokens(expr: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < expr.length) {
    const c = expr[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const word = /^[A-Za-z0-9_#]+/.exec(expr.slice(i));
    if (word) {
      const w = word[0];
      i += w.length;
      if (/^[A-Za-z_]\w*$/.test(w)) out.push({ kind: 'name', name: w });
      else out.push({ kind: 'num', value: literal(w, expr) });
      continue;
    }
    const op = OPS.find((o) => expr.startsWith(o, i));
    if (!op) throw new ShellArithError(expr, `unexpected '${c}'`);
    out.push({ kind: 'op', op });
    i += op.length;
  }
  return out;
}

function literal(w: string, expr: string): number {
  let m: RegExpExecArray | null;
  let v: number;
  if ((m = /^0[xX]([0-9a-fA-F]+)$/.exec(w))) v = parseInt(m[1]!, 16);
  else if ((m = /^(\d+)#([0-9A-Za-z]+)$/.exec(w)) && Number(m[1]) >= 2 && Number(m[1]) <= 36) v = parseInt(m[2]!, Number(m[1]));
  else if (/^\d+$/.test(w)) v = Number(w);
  else throw new ShellArithError(expr, `bad number '${w}'`);
  if (Number.isNaN(v)) throw new ShellArithError(expr, `bad number '${w}'`);
  return v | 0;
}

/** Binary operators by precedence, loosest first (C's table, without assignment and comma). */
const LEVELS: readonly (readonly string[])[] = [['||'], ['&&'], ['|'], ['^'], ['&'], ['==', '!='], ['<', '<=', '>', '>='], ['<<', '>>'], ['+', '-'], ['*', '/', '%']];

/** Evaluates `expr`; `variable(name)` gives a shell variable's text. */
export function evaluateArith(expr: string, variable: (name: string) => string, depth = 0): number {
  const toks = tokens(expr);
  let i = 0;
  const peek = () => toks[i];
  const isOp = (op: string) => peek()?.kind === 'op' && (peek() as { op: string }).op === op;
  const expect = (op: string) => {
    if (!isOp(op)) throw new ShellArithError(expr, i >= toks.length ? 'unexpected end of expression' : `missing ${op}`);
    i++;
  };

  const ternary = (): number => {
    const cond = binary(0);
    if (!isOp('?')) return cond;
    i++;
    const a = ternary();
    expect(':');
    const b = ternary();
    return cond ? a : b;
  };
  const binary = (level: number): number => {
    if (level >= LEVELS.length) return unary();
    let left = binary(level + 1);
    for (;;) {
      const t = peek();
      if (t?.kind !== 'op' || !LEVELS[level]!.includes(t.op)) return left;
      i++;
      const right = binary(level + 1);
      left = apply(t.op, left, right);
    }
  };
  const apply = (op: string, a: number, b: number): number => {
    switch (op) {
      case '||': return a || b ? 1 : 0;
      case '&&': return a && b ? 1 : 0;
      case '|': return a | b;
      case '^': return a ^ b;
      case '&': return a & b;
      case '==': return a === b ? 1 : 0;
      case '!=': return a !== b ? 1 : 0;
      case '<': return a < b ? 1 : 0;
      case '<=': return a <= b ? 1 : 0;
      case '>': return a > b ? 1 : 0;
      case '>=': return a >= b ? 1 : 0;
      case '<<': return a << (b & 31);
      case '>>': return a >> (b & 31);
      case '+': return (a + b) | 0;
      case '-': return (a - b) | 0;
      case '*': return Math.imul(a, b);
      case '/':
      case '%':
        if (b === 0) throw new ShellArithError(expr, 'zero divisor');
        return op === '/' ? Math.trunc(a / b) | 0 : (a % b) | 0;
      default: throw new ShellArithError(expr, `unexpected '${op}'`);
    }
  };
  const unary = (): number => {
    const t = peek();
    if (t?.kind === 'op' && ['-', '+', '!', '~'].includes(t.op)) {
      i++;
      const v = unary();
      return t.op === '-' ? -v | 0 : t.op === '+' ? v : t.op === '!' ? (v ? 0 : 1) : ~v;
    }
    return primary();
  };
  const primary = (): number => {
    const t = toks[i++];
    if (!t) throw new ShellArithError(expr, 'unexpected end of expression');
    if (t.kind === 'num') return t.value;
    if (t.kind === 'name') {
      const text = variable(t.name).trim();
      if (text === '') return 0;
      // A variable holding an expression is evaluated as one (mksh does), within reason.
      if (depth > 8) throw new ShellArithError(expr, `expression recurses on parameter '${t.name}'`);
      return evaluateArith(text, variable, depth + 1);
    }
    if (t.op === '(') {
      const v = ternary();
      expect(')');
      return v;
    }
    throw new ShellArithError(expr, `unexpected '${t.op}'`);
  };

  if (toks.length === 0) return 0;
  const v = ternary();
  if (i < toks.length) {
    const t = toks[i]!;
    throw new ShellArithError(expr, `unexpected '${t.kind === 'op' ? t.op : t.kind === 'name' ? t.name : t.value}'`);
  }
  return v;
}
