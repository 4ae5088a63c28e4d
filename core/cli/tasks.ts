import { z } from 'zod';
import { TASKS, getTemplate } from '../tasks/registry.js';
import { instantiate } from '../tasks/instance.js';
import { TASK_APPS } from '../tasks/task.js';
import { intArg, parseFlags, UsageError } from './args.js';
import { table } from './format.js';
import type { Io } from './main.js';

/** `awb tasks list [--app A] [--json]` and `awb tasks show <id> [--seed S] [--json]`. */
export async function tasksCommand(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'list': {
      const { values } = parseFlags(rest, { json: { type: 'boolean' }, app: { type: 'string' } }, z.object({
        json: z.boolean().optional(),
        app: z.enum(TASK_APPS).optional(),
      }));
      const shown = TASKS.filter((t) => !values.app || t.apps.includes(values.app));
      if (values.json) {
        io.out(JSON.stringify(shown.map((t) => ({
          id: t.id, apps: t.apps, difficulty: t.difficulty, kind: t.kind, tags: t.tags, template: t.template, maxSteps: t.maxSteps ?? null,
        })), null, 2));
        return 0;
      }
      io.out(table([['TEMPLATE', 'APP', 'DIFFICULTY', 'KIND', 'INSTRUCTION'], ...shown.map((t) => [
        t.id, t.apps.join('+'), t.difficulty, t.kind === 'information_retrieval' ? 'IR' : 'task', t.template,
      ])]));
      io.out(`\n${shown.length} templates`);
      return 0;
    }
    case 'show': {
      const { values, positionals } = parseFlags(rest, { json: { type: 'boolean' }, seed: { type: 'string' } }, z.object({
        json: z.boolean().optional(),
        seed: intArg('--seed').optional(),
      }));
      const id = positionals[0];
      if (!id) throw new UsageError('awb tasks show <template-id> [--seed S] [--json]');
      const t = getTemplate(id);
      const inst = instantiate(t, values.seed ?? 0);
      const info = {
        id: t.id, apps: t.apps, difficulty: t.difficulty, kind: t.kind, tags: t.tags, seed: inst.seed,
        instruction: inst.instruction, params: inst.params, subgoals: t.subgoals(inst.params).map((s) => s.name),
      };
      if (values.json) io.out(JSON.stringify(info, null, 2));
      else {
        io.out(`${t.id} (${t.apps.join(' + ')}, ${t.difficulty}, ${t.kind})`);
        io.out(`tags: ${t.tags.join(', ')}`);
        io.out(`seed ${inst.seed}: ${inst.instruction}`);
        io.out(`params: ${JSON.stringify(inst.params)}`);
        io.out(`subgoals: ${info.subgoals.map((s, i) => `${i + 1}. ${s}`).join('  ')}`);
      }
      return 0;
    }
    default:
      throw new UsageError('awb tasks list [--app A] [--json] | awb tasks show <template-id> [--seed S] [--json]');
  }
}
