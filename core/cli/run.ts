import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { runEpisode, type EpisodeResult } from '../episode/runner.js';
import { instantiate, type TaskInstance } from '../tasks/instance.js';
import { getTemplate, TASKS } from '../tasks/registry.js';
import { parsePart, parseSplit, splitInstances } from '../tasks/splits.js';
import { intArg, parseFlags, UsageError } from './args.js';
import { pct, progressBar, table } from './format.js';
import { PolicyName, policyFor } from './policies.js';
import { embeddedDevice, type Io } from './main.js';

/** `awb run --task T --seed S --policy P`: one episode on the embedded SimDroid. */
export async function runCommand(argv: string[], io: Io): Promise<number> {
  const { values } = parseFlags(argv, {
    task: { type: 'string' }, seed: { type: 'string' }, policy: { type: 'string' }, json: { type: 'boolean' },
    'max-steps': { type: 'string' }, screenshots: { type: 'string' },
  }, z.object({
    task: z.string({ error: '--task is required' }),
    seed: intArg('--seed').default(0),
    policy: PolicyName.default('oracle'),
    json: z.boolean().optional(),
    'max-steps': intArg('--max-steps').pipe(z.number().min(1).max(500)).optional(),
    screenshots: z.string().optional(),
  }));
  const instance = instantiate(getTemplate(values.task), values.seed);
  const device = embeddedDevice();
  try {
    if (!values.json) io.out(`${instance.template.id} seed ${instance.seed}: ${instance.instruction}`);
    const shotDir = values.screenshots;
    if (shotDir) mkdirSync(shotDir, { recursive: true });
    const result = await runEpisode({
      device, instance, policy: policyFor(values.policy, instance),
      ...(values['max-steps'] ? { maxSteps: values['max-steps'] } : {}),
      onStep: (step) => {
        if (shotDir) writeFileSync(join(shotDir, `step-${String(step.index).padStart(2, '0')}.png`), device.screenshotSync(0.5));
        if (!values.json) io.out(`  ${String(step.index + 1).padStart(2)}. ${step.description ?? JSON.stringify(step.raw)}${step.error ? `  [${step.error.name}: ${step.error.message}]` : ''}`);
      },
    });
    if (values.json) io.out(JSON.stringify(episodeSummary(result, values.policy)));
    else io.out(`${result.success ? 'SUCCESS' : 'FAILURE'} after ${result.steps.length} steps (ended by ${result.terminatedBy}${result.error ? `: ${result.error.message}` : ''})`);
    return 0;
  } finally {
    device.close();
  }
}

function episodeSummary(r: EpisodeResult, policy: string) {
  return {
    template: r.templateId, seed: r.seed, policy, instruction: r.instruction, success: r.success, steps: r.steps.length,
    terminatedBy: r.terminatedBy, answer: r.outcome.answer ?? null, error: r.error ?? null,
    actions: r.steps.map((s) => ({ action: s.action ?? s.raw, description: s.description ?? null, error: s.error ?? null })),
  };
}

interface Tally {
  episodes: number;
  successes: number;
}

const rate = (t: Tally) => (t.episodes ? t.successes / t.episodes : 0);

/** `awb suite run --split S --part P --policy P`: every instance of a split part, with a summary. */
export async function suiteCommand(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== 'run') throw new UsageError('awb suite run --split unseen-instance|unseen-template|unseen-app|all --part train|test|adapt --policy oracle|random [--limit N] [--json]');
  const { values } = parseFlags(rest, {
    split: { type: 'string' }, part: { type: 'string' }, policy: { type: 'string' }, json: { type: 'boolean' }, limit: { type: 'string' },
  }, z.object({
    split: z.string().default('unseen-instance'),
    part: z.string().default('test'),
    policy: PolicyName.default('oracle'),
    json: z.boolean().optional(),
    limit: intArg('--limit').pipe(z.number().min(1)).optional(),
  }));
  const split = parseSplit(values.split);
  const part = parsePart(values.part);
  let instances: TaskInstance[] = splitInstances(TASKS, split, part);
  if (values.limit) instances = instances.slice(0, values.limit);
  const device = embeddedDevice();
  const started = Date.now();
  const total: Tally = { episodes: 0, successes: 0 };
  const byApp = new Map<string, Tally>();
  const byDifficulty = new Map<string, Tally>();
  const bump = (m: Map<string, Tally>, k: string, ok: boolean) => {
    const t = m.get(k) ?? { episodes: 0, successes: 0 };
    t.episodes++;
    if (ok) t.successes++;
    m.set(k, t);
  };
  const progress = progressBar(instances.length);
  try {
    for (const instance of instances) {
      const r = await runEpisode({ device, instance, policy: policyFor(values.policy, instance) });
      total.episodes++;
      if (r.success) total.successes++;
      bump(byApp, instance.template.apps[0], r.success);
      bump(byDifficulty, instance.template.difficulty, r.success);
      progress.tick(`${instance.template.id}#${instance.seed}`);
    }
  } finally {
    progress.done();
    device.close();
  }
  const wallSeconds = (Date.now() - started) / 1000;
  const summarise = (m: Map<string, Tally>) => Object.fromEntries([...m].sort().map(([k, t]) => [k, { ...t, successRate: rate(t) }]));
  const summary = {
    split, part, policy: values.policy, episodes: total.episodes, successes: total.successes, successRate: rate(total),
    byApp: summarise(byApp), byDifficulty: summarise(byDifficulty), wallSeconds,
  };
  if (values.json) {
    io.out(JSON.stringify(summary));
    return 0;
  }
  io.out(`${split}/${part} with the ${values.policy} policy: ${total.successes}/${total.episodes} succeeded (${pct(rate(total))}) in ${wallSeconds.toFixed(1)} s`);
  io.out(table([['APP', 'EPISODES', 'SUCCESS'], ...[...byApp].sort().map(([k, t]) => [k, String(t.episodes), pct(rate(t))])]));
  io.out(table([['DIFFICULTY', 'EPISODES', 'SUCCESS'], ...[...byDifficulty].sort().map(([k, t]) => [k, String(t.episodes), pct(rate(t))])]));
  return 0;
}
