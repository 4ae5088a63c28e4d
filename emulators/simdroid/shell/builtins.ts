import type { CommandIo } from './run.js';
import { SH } from './sh.js';

/** mksh's builtins that act on the shell's own state (run.ts dispatches to them before the commands). */
export const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `return [N]`: ends the running function (or adb's line) with N, else the last status. */
export function returnBuiltin(argv: string[], io: CommandIo, sh: { status: number; returning: boolean }): number {
  // mksh: `return` outside a function ends the script (adb's line) with that status.
  const code = argv[1] === undefined ? sh.status : Number.parseInt(argv[1], 10);
  if (argv[1] !== undefined && !/^-?\d+$/.test(argv[1])) {
    io.err(`${SH}: return: ${argv[1]}: bad number\n`);
    sh.returning = true;
    return 1;
  }
  sh.returning = true;
  return code & 255;
}

/** mksh's `export NAME[=value] …`; with no operand it lists what this shell exported. */
export function exportVars(argv: string[], io: CommandIo, sh: { vars: Map<string, string>; exported: Set<string> }): number {
  if (argv.length === 1) {
    for (const k of [...sh.exported].sort()) io.out(`export ${k}=${quoteValue(sh.vars.get(k) ?? '')}\n`);
    return 0;
  }
  let code = 0;
  for (const arg of argv.slice(1)) {
    const eq = arg.indexOf('=');
    const key = eq < 0 ? arg : arg.slice(0, eq);
    if (!IDENTIFIER.test(key)) {
      io.err(`${SH}: export: ${key}: is not an identifier\n`);
      code = 1;
      continue;
    }
    if (eq >= 0) sh.vars.set(key, arg.slice(eq + 1));
    sh.exported.add(key);
  }
  return code;
}

/** How mksh's `export` listing quotes a value: bare when safe, else in single quotes. */
function quoteValue(v: string): string {
  return /^[A-Za-z0-9_./:,+-]+$/.test(v) ? v : `'${v.replace(/'/g, "'\\''")}'`;
}

