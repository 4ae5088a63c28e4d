import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { z } from 'zod';
import { issueLines } from '../util/zod-issues.js';
import { PLAIN_ISSUES } from '../util/plain-issues.js';

/** A bad command line: the message is for the user, the exit code is 2 (as most CLIs use). */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** `--help` / `-h` given to a command that has no help flag of its own: main prints that command's help lines. */
export class HelpRequested extends Error {
  override name = 'HelpRequested';
}

export type Options = NonNullable<ParseArgsConfig['options']>;

/** Parses flags and validates them with a zod schema: the one place CLI input is checked. */
export function parseFlags<S extends z.ZodType>(argv: string[], options: Options, schema: S): { values: z.infer<S>; positionals: string[] } {
  if (!('help' in options) && argv.some((a) => a === '--help' || a === '-h')) throw new HelpRequested('help');
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (e) {
    // Node's messages can run over several lines ("argument is ambiguous.\nDid you forget …"): one line here.
    throw new UsageError((e as Error).message.replace(/^TypeError \[[A-Z_]+\]: /, '').replace(/\s*\n\s*/g, ' '));
  }
  const r = schema.safeParse(parsed.values, PLAIN_ISSUES);
  if (!r.success) {
    throw new UsageError(issueLines(r.error.issues).map((l) => `--${l}`).join('\n'));
  }
  return { values: r.data, positionals: parsed.positionals };
}

/** A non-negative integer given as text (seeds, counts). */
export const intArg = (what: string) =>
  z.string().regex(/^\d+$/, `${what} must be a non-negative integer`).transform(Number).pipe(z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER));

/** "Invalid config:\n  a: x\n  b: y" → "Invalid config: a: x; b: y": a problem list said in one line. */
export function oneLine(message: string): string {
  return message.replace(/:\s*\n\s*/g, ': ').replace(/\s*\n\s*/g, '; ').trim();
}

/**
 * A folder a command writes into at its end (checkpoints): refused at the start when it, or a folder above it, is a
 * file, rather than after the work (and after a run was recorded). A missing folder is fine: it is created.
 */
export function checkOutFolder(path: string, flag: string): void {
  for (let p = resolve(path); ; p = dirname(p)) {
    let isDir: boolean;
    try {
      isDir = statSync(p).isDirectory();
    } catch {
      if (dirname(p) === p) return;
      continue; // not there yet: the first folder above it decides
    }
    if (!isDir) throw new UsageError(`${flag} ${path}: ${p === resolve(path) ? 'is a file, not a folder' : `${p} is a file, not a folder`}`);
    return;
  }
}
