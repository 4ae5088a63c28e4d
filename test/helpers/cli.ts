import { main } from '../../core/cli/main.js';

/**
 * Runs `awb <argv…>` in this process, as the CLI tests do: what it prints is captured, not written to the
 * terminal. `out` and `err` are the printed lines joined by '\n'. No readLine: a command that asks for input
 * gets none (tests that answer prompts build their own Io).
 */
export async function runCli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}
