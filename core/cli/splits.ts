import { z } from 'zod';
import { TASKS } from '../tasks/registry.js';
import { proposeHeldOutTemplates, SPLIT_DATA, splitStats, validateSplits } from '../tasks/splits.js';
import { parseFlags, UsageError } from './args.js';
import { table } from './format.js';
import type { Io } from './main.js';

/** `awb splits show|check|propose`: the generalization splits, their rules, and a regenerated held-out set. */
export async function splitsCommand(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  const { values } = parseFlags(rest, { json: { type: 'boolean' } }, z.object({ json: z.boolean().optional() }));
  switch (sub) {
    case 'show': {
      const stats = splitStats(TASKS);
      if (values.json) io.out(JSON.stringify(stats));
      else io.out(table([['SPLIT', 'PART', 'INSTANCES', 'TEMPLATES', 'APPS', 'MEAN DIFFICULTY'], ...stats.map((s) => [
        s.split, s.part, String(s.instances), String(s.templates), String(s.apps), s.meanDifficulty.toFixed(2),
      ])]));
      return 0;
    }
    case 'check': {
      const problems = validateSplits(TASKS);
      if (values.json) io.out(JSON.stringify({ ok: problems.length === 0, problems }));
      else io.out(problems.length ? problems.join('\n') : 'core/tasks/splits.json follows the rules.');
      return problems.length ? 1 : 0;
    }
    case 'propose': {
      const held = proposeHeldOutTemplates(TASKS);
      const data = { ...SPLIT_DATA, unseenTemplate: { testTemplates: held } };
      io.out(JSON.stringify(values.json ? { ...data, problems: validateSplits(TASKS, data) } : data.unseenTemplate, null, 2));
      return 0;
    }
    default:
      throw new UsageError('awb splits show [--json] | awb splits check [--json] | awb splits propose [--json]');
  }
}
