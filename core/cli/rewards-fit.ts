import { accessSync, constants, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { TASKS } from '../tasks/registry.js';
import { instanceKey, instantiate, type TaskInstance } from '../tasks/instance.js';
import { parsePart, parseSplit, SPLIT_DATA, splitTemplates, type SplitName, type SplitPart } from '../tasks/splits.js';
import { intArg, type Options, UsageError } from './args.js';
import type { Io } from './main.js';
import { demonstrationInstances, parseTrainSftConfig, TrainSftConfigError } from '../rl/train-sft.js';

/**
 * What `awb rewards fit progrm` and `awb rewards fit shepherd` share: which task instances the
 * model is fitted on and which it is scored on, the output path (checked before the minutes of
 * collection), the training config file, and progress lines on stderr.
 */
export const FIT_USAGE = `awb rewards fit progrm [--source lcs|env|outcome] [--perturbations 0,0.2,0.4] [COMMON]
awb rewards fit shepherd [--deviations N] [COMMON]
  COMMON: [--split S] [--part train|adapt] [--templates ID[,ID…]] [--max-templates N] [--seeds S[,S…]] [--test-seeds S[,S…]]
          [--hidden H] [--config FILE] [--seed N] [--out FILE] [--json]
  Collects episodes on the embedded SimDroid, trains the builtin model, reports its held-out score
  (ProgRM: key-step progress error against SimDroid's ground-truth subgoals, ProgRM §3.3; judge:
  accuracy on oracle-labelled steps) and writes the checkpoint the reward component reads.
  Fitted on: the split part (default unseen-instance / train), optionally only --templates or the first
  --max-templates, at --seeds (default the part's seeds; test instances of the split are never used).
  Held out: the split's test part at --test-seeds (default ${SPLIT_DATA.seeds.test[0]}): unseen instances of the fitted
  templates (unseen-instance, all) or the held-out templates (unseen-template, unseen-app).
  progrm: --source lcs (ProgRM_LCS, default), env (ProgRM_Env: ground-truth subgoals) or outcome (ORM);
    each instance runs once per --perturbations entry (oracle with that chance of a random step; 0 = oracle).
  shepherd: oracle steps are positives, one deviating candidate per oracle step the negatives
    (--deviations N: at most N per instance).
  --config FILE: training hyper-parameters (progrm: ProgressTrainConfig, shepherd: JudgeTrainConfig; JSON).
  --seed: the model's initialisation and the collection's randomness (default 0). --hidden: hidden units
  (progrm default 32; shepherd default 16, 0 = logistic regression).
  --out: default <data folder>/progrm/model.json or <data folder>/shepherd/judge.json.
  Progress goes to stderr; --json prints one summary object on stdout.`;

/** Flags both fit commands take (parseArgs options). */
export const COMMON_FIT_FLAGS = {
  split: { type: 'string' }, part: { type: 'string' }, templates: { type: 'string' }, 'max-templates': { type: 'string' },
  seeds: { type: 'string' }, 'test-seeds': { type: 'string' }, hidden: { type: 'string' }, config: { type: 'string' },
  seed: { type: 'string' }, out: { type: 'string' }, json: { type: 'boolean' },
} as const satisfies Options;

export const CommonFitValues = z.object({
  split: z.string().default('unseen-instance'),
  part: z.string().default('train'),
  templates: z.string().optional(),
  'max-templates': intArg('--max-templates').pipe(z.number().min(1, 'must be at least 1')).optional(),
  seeds: z.string().optional(),
  'test-seeds': z.string().optional(),
  hidden: intArg('--hidden').pipe(z.number().max(1024, 'at most 1024')).optional(),
  config: z.string().min(1).optional(),
  seed: intArg('--seed').default(0),
  out: z.string().min(1).optional(),
  json: z.boolean().optional(),
});
export type CommonFitValues = z.infer<typeof CommonFitValues>;

/** A comma-separated list of seeds; names the first entry that is not one. */
export function seedList(flag: string, text: string): number[] {
  const items = text.split(',').map((s) => s.trim());
  const out: number[] = [];
  for (const item of items) {
    const n = /^\d+$/.test(item) ? Number(item) : NaN;
    if (!Number.isSafeInteger(n)) throw new UsageError(`${flag}: not a seed (a non-negative integer): ${JSON.stringify(item)}`);
    out.push(n);
  }
  return out;
}

/** A comma-separated list of numbers in [0, 1]; names the first entry that is not one. */
export function probabilityList(flag: string, text: string): number[] {
  return text.split(',').map((s) => {
    const item = s.trim();
    const n = item === '' ? NaN : Number(item);
    if (!(n >= 0 && n <= 1)) throw new UsageError(`${flag}: not a probability in [0, 1]: ${JSON.stringify(item)}`);
    return n;
  });
}

export interface FitPlan {
  split: SplitName;
  part: SplitPart;
  train: TaskInstance[];
  heldOut: TaskInstance[];
  testSeeds: number[];
  out: string;
}

/**
 * The fitting instances (the rules of `awb train sft`'s demonstrations: never a test instance of the
 * split) and the held-out ones (the split's test part at the test seeds, minus any fitted instance).
 */
export function fitPlan(v: CommonFitValues, defaultOut: string): FitPlan {
  const split = parseSplit(v.split);
  const part = parsePart(v.part);
  // The held-out score is taken on the test part, and the judge verifies on it at inference: fitting there would leak.
  if (part === 'test') throw new UsageError('--part test: the models are scored on the test part; fit on train (default) or adapt');
  const templates = v.templates?.split(',').map((t) => t.trim()).filter(Boolean);
  const seeds = v.seeds === undefined ? undefined : seedList('--seeds', v.seeds);
  let train: TaskInstance[];
  try {
    train = demonstrationInstances(parseTrainSftConfig({ split, part, templates, maxTemplates: v['max-templates'], seeds }));
  } catch (e) {
    if (e instanceof TrainSftConfigError) throw new UsageError(e.problems.map((p) => `--${p.replace(/^maxTemplates/, 'max-templates')}`).join('\n'), { cause: e });
    throw e;
  }
  if (train.length === 0) throw new UsageError(`No instances to fit on in ${split}/${part} with these templates and seeds (every one is a test instance, or the part is empty)`);
  const testSeeds = v['test-seeds'] === undefined ? [SPLIT_DATA.seeds.test[0]!] : seedList('--test-seeds', v['test-seeds']);
  const fitted = new Set(train.map((i) => i.template.id));
  // unseen-instance and all hold out seeds of the same templates; the others hold out templates.
  const sameTemplates = split === 'unseen-instance' || split === 'all';
  const testTemplates = splitTemplates(TASKS, split, 'test').filter((t) => !sameTemplates || fitted.has(t.id));
  const seen = new Set(train.map(instanceKey));
  const heldOut: TaskInstance[] = [];
  for (const t of testTemplates) {
    for (const s of testSeeds) {
      const inst = instantiate(t, s);
      const key = instanceKey(inst);
      if (seen.has(key)) continue;
      seen.add(key);
      heldOut.push(inst);
    }
  }
  return { split, part, train, heldOut, testSeeds, out: checkOut(resolve(v.out ?? defaultOut)) };
}

/** Refuses an output path that cannot be written, before any collection runs. */
export function checkOut(path: string): string {
  const dir = dirname(path);
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
  } catch (e) {
    throw new UsageError(`--out ${path}: cannot write in ${dir} (${(e as Error).message})`, { cause: e });
  }
  let isDir = false;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    // Not there yet: the usual case.
  }
  if (isDir) throw new UsageError(`--out ${path}: is a folder; give the checkpoint file's path`);
  return path;
}

/** Reads --config FILE as JSON and hands it to the model's own parser, naming the file on a problem. */
export function readTrainConfig<T>(file: string | undefined, parse: (input: unknown) => T, problemsOf: (e: unknown) => string[] | undefined): T {
  if (file === undefined) return parse({});
  let input: unknown;
  try {
    input = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new UsageError(`--config ${file}: ${(e as Error).message}`, { cause: e });
  }
  try {
    return parse(input);
  } catch (e) {
    const problems = problemsOf(e);
    if (problems) throw new UsageError(`--config ${file}: ${problems.join('; ')}`, { cause: e });
    throw e;
  }
}

/**
 * A progress callback for a collection over `total` instances: a line on stderr about twenty times
 * (and at the end), with the seconds since the callback was made.
 */
export function progressLines(io: Io, label: string, total: number): (done: number) => void {
  const every = Math.max(1, Math.ceil(total / 20));
  const t0 = performance.now();
  return (done) => {
    if (done % every === 0 || done === total) io.err(`${label}: ${done}/${total} instances (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  };
}

/** A number for a terminal line: 3 decimals, or n/a when undefined (no key steps, nothing judged). */
export const fmt = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : 'n/a');

/** JSON keeps NaN as null, which is what n/a means there. */
export const finiteOrNull = (x: number) => (Number.isFinite(x) ? x : null);
