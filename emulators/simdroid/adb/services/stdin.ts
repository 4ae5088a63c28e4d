import { parseShell, type SimpleCommand } from '../../shell/parse.js';

/**
 * Whether a command line reads the session's stdin, so the service must wait for the host to
 * close it before running the command. SimDroid's commands run to completion in one call, so
 * stdin has to be complete first; a real device runs the command at once and lets it block. Only
 * the first command of each pipeline sees the session's stdin, and `<` replaces it.
 */
export function readsSessionStdin(line: string): boolean {
  let list;
  try {
    list = parseShell(line);
  } catch {
    // A syntax error is reported when the line runs; it reads nothing.
    return false;
  }
  return list.items.some(({ pipeline }) => {
    const first = pipeline.commands[0];
    return first !== undefined && first.kind === 'simple' && !first.redirects.some((r) => r.op === '<') && readsStdin(first);
  });
}

/** Words that are not options (nor an option's value, for the options listed). */
function operands(argv: string[], withValue: readonly string[] = []): string[] {
  const out: string[] = [];
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    if (withValue.includes(a)) i++;
    else if (a === '-' || !a.startsWith('-')) out.push(a);
  }
  return out;
}

/** SimDroid's commands that fall back to stdin, and when they do (mirrors shell/commands/*). */
function readsStdin(cmd: SimpleCommand): boolean {
  const name = cmd.argv[0]?.replace(/^\/system\/bin\//, '');
  switch (name) {
    case 'cat':
    case 'wc':
      return operands(cmd.argv).length === 0;
    case 'head':
    case 'tail':
      return operands(cmd.argv, ['-n']).length === 0;
    case 'grep':
      return operands(cmd.argv).length === 1;
    case 'sqlite3':
      return operands(cmd.argv, ['-separator']).length === 1;
    default:
      return false;
  }
}
