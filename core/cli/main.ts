import { SimDroid } from '../../emulators/simdroid/simdroid.js';
import { UsageError } from './args.js';
import { tasksCommand } from './tasks.js';
import { runCommand, suiteCommand } from './run.js';
import { splitsCommand } from './splits.js';

export interface Io {
  out(line: string): void;
  err(line: string): void;
}

const consoleIo: Io = {
  out: (l) => process.stdout.write(`${l}\n`),
  err: (l) => process.stderr.write(`${l}\n`),
};

/** The embedded default device: an in-process SimDroid. */
export function embeddedDevice(): SimDroid {
  return new SimDroid({ serial: 'simdroid-embedded' });
}

const HELP = `awb — Android Agent Workbench

Usage:
  awb tasks list [--app APP] [--json]          the task templates
  awb tasks show TEMPLATE [--seed S] [--json]  one instance: instruction, parameters, subgoals
  awb run --task TEMPLATE [--seed S] [--policy oracle|random] [--max-steps N] [--screenshots DIR] [--json]
                                               one episode on the embedded SimDroid
  awb suite run [--split unseen-instance|unseen-template|unseen-app|all] [--part train|test|adapt]
                [--policy oracle|random] [--limit N] [--json]
                                               every instance of a split part, with success rates
  awb splits show|check|propose [--json]       the generalization splits: sizes, rule check, a regenerated held-out set
  awb help                                     this text`;

/** Runs the CLI; returns the exit code. Errors with a user-facing message print it and exit 2 or 1. */
export async function main(argv: string[], io: Io = consoleIo): Promise<number> {
  const [cmd, ...rest] = argv;
  try {
    switch (cmd) {
      case 'tasks':
        return await tasksCommand(rest, io);
      case 'run':
        return await runCommand(rest, io);
      case 'suite':
        return await suiteCommand(rest, io);
      case 'splits':
        return await splitsCommand(rest, io);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.out(HELP);
        return 0;
      default:
        throw new UsageError(`Unknown command ${JSON.stringify(cmd)}.\n\n${HELP}`);
    }
  } catch (e) {
    const err = e as Error;
    const known = ['UsageError', 'UnknownTemplateError', 'SeedError', 'SplitError', 'TaskParamsError'].includes(err.name);
    io.err(`awb: ${known ? err.message : err.stack ?? err.message}`);
    return known ? 2 : 1;
  }
}
