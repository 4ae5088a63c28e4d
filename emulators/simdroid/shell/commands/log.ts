import type { Command } from '../run.js';

/** logd's buffers, as `logcat -b` names them (Android 13). */
const BUFFERS = new Set(['main', 'radio', 'events', 'system', 'crash', 'stats', 'security', 'kernel', 'default', 'all']);
/** Options that take a value (the rest are flags). */
const WITH_VALUE = new Set(['-b', '-v', '-t', '-T', '-e', '-m', '-f', '-r', '-n', '-G', '--pid', '--regex', '--max-count', '--format', '--buffer']);

/**
 * logcat. SimDroid's apps write no log, so every buffer is empty: `-c` (clear; android_env runs
 * `logcat -b all -c` before streaming) and `-d` (dump) succeed with no output, and a streaming logcat
 * ends at once instead of waiting for lines that never come (a device command runs to its end here).
 */
export const logcat: Command = (argv, io) => {
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    const opt = eq > 0 ? a.slice(0, eq) : a.startsWith('-') && !a.startsWith('--') && a.length > 2 && WITH_VALUE.has(a.slice(0, 2)) ? a.slice(0, 2) : a;
    if (!WITH_VALUE.has(opt)) continue;
    const value = eq > 0 ? a.slice(eq + 1) : opt !== a ? a.slice(2) : argv[++i];
    if (value === undefined) {
      io.err(`logcat: option requires an argument -- '${opt.replace(/^-+/, '')}'\n`);
      return 1;
    }
    if (opt === '-b' || opt === '--buffer') {
      for (const b of value.split(',')) {
        if (!BUFFERS.has(b)) {
          io.err(`logcat: Unknown buffer '${b}' listed for -b.\n`);
          return 1;
        }
      }
    }
  }
  return 0;
};
