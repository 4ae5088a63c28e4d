import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { configOfKinds, prepareRewards, type RewardBreakdown, type RewardSet } from '../rewards/compose.js';
import type { RewardEpisode, RewardKind } from '../rewards/component.js';
import { rewardEpisodeFromTrajectory } from '../rewards/episode.js';
import { getScreenshot, getTree, loadTrajectory, putRewardValues, type EpisodeId, type WritableDB } from '../store/index.js';
import { inTransaction } from '../store/db.js';
import { canonicalJson } from '../store/json.js';
import { parseFlags, UsageError } from './args.js';
import { dataDir } from '../util/data-dir.js';
import { openDb } from './open-db.js';
import { table } from './format.js';
import type { Io } from './main.js';
import { FIT_USAGE } from './rewards-fit.js';

const USAGE = `awb rewards compute --episode ID[,ID…] (--components outcome,format,… | --config FILE) [--write] [--db PATH] [--json]
  Recomputes reward components on recorded episodes and prints, per step, each component's value and
  explanation and the weighted total (--components: every weight 1). Episodes of the same task instance
  form one group (shortest-path compares within it). --write stores each component's values under its
  kind (unscored steps keep their reason). Config file: {"components": [{"kind", "weight", "options"?}]}.`;

const Flags = {
  episode: { type: 'string', multiple: true }, components: { type: 'string' }, config: { type: 'string' },
  write: { type: 'boolean' }, db: { type: 'string' }, json: { type: 'boolean' },
} as const;

const Values = z.object({
  episode: z.array(z.string(), { error: '--episode ID[,ID…] is required' }),
  components: z.string().optional(),
  config: z.string().optional(),
  write: z.boolean().optional(),
  db: z.string().optional(),
  json: z.boolean().optional(),
});

function episodeIds(flags: string[]): EpisodeId[] {
  return flags.flatMap((f) => f.split(',')).map((p) => {
    const n = Number(p.trim());
    if (!Number.isInteger(n) || n < 1) throw new UsageError(`--episode: not an episode id: ${JSON.stringify(p)}`);
    return n as EpisodeId;
  });
}

function readConfig(v: z.infer<typeof Values>): unknown {
  if (v.components !== undefined && v.config !== undefined) throw new UsageError('Give --components or --config, not both');
  if (v.components !== undefined) return configOfKinds(v.components.split(',').map((k) => k.trim()).filter(Boolean));
  if (v.config === undefined) throw new UsageError(`Give --components or --config.\n${USAGE}`);
  let text: string;
  try {
    text = readFileSync(v.config, 'utf8');
  } catch (e) {
    throw new UsageError(`--config ${v.config}: ${(e as Error).message}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new UsageError(`--config ${v.config}: not JSON (${(e as Error).message})`);
  }
}

export interface EpisodeRewards {
  episodeId: EpisodeId;
  templateId: string;
  seed: number;
  breakdown: RewardBreakdown;
}

/** Recomputes the config's rewards for the episodes, grouped by task instance; writes them when asked. */
export async function computeStoredRewards(db: WritableDB, ids: readonly EpisodeId[], config: unknown, write: boolean): Promise<EpisodeRewards[]> {
  const prepared = await prepareRewards(config);
  const groupKey = (ep: RewardEpisode) => `${ep.templateId}\0${ep.seed}\0${canonicalJson(ep.params)}`;
  const episodes = ids.map((id) => ({ id, ep: rewardEpisodeFromTrajectory(loadTrajectory(db, id), (h) => getTree(db, h), (h) => getScreenshot(db, h)) }));
  const groups = new Map<string, RewardEpisode[]>();
  for (const { ep } of episodes) groups.set(groupKey(ep), [...(groups.get(groupKey(ep)) ?? []), ep]);
  const sets = new Map<string, RewardSet>();
  const out: EpisodeRewards[] = [];
  for (const { id, ep } of episodes) {
    const key = groupKey(ep);
    let set = sets.get(key);
    if (!set) sets.set(key, (set = await prepared.instantiate({ group: groups.get(key) ?? [ep], db, dataDir: dataDir() })));
    out.push({ episodeId: id, templateId: ep.templateId, seed: ep.seed, breakdown: await set.compute(ep) });
  }
  if (write) {
    inTransaction(db, () => {
      for (const r of out) {
        for (const [kind, values] of Object.entries(r.breakdown.byKind)) putRewardValues(db, r.episodeId, kind, values);
      }
    });
  }
  return out;
}

const num = (x: number) => String(Math.round(x * 1000) / 1000);

function printEpisode(io: Io, r: EpisodeRewards): void {
  const kinds = r.breakdown.components.map((c) => c.kind);
  io.out(`Episode ${r.episodeId} — ${r.templateId} seed ${r.seed}; weights ${r.breakdown.components.map((c) => `${c.kind}=${c.weight}`).join(' ')}`);
  const cell = (kind: RewardKind, step: number) => {
    const v = r.breakdown.steps[step]!.values[kind]!;
    return `${v.value === null ? 'unscored' : num(v.value)} ${v.explanation}`;
  };
  io.out(table([['STEP', 'ACTION', ...kinds.map((k) => k.toUpperCase()), 'TOTAL'], ...r.breakdown.steps.map((s) => [
    String(s.step + 1), s.description ?? '(no action)', ...kinds.map((k) => cell(k, s.step)),
    s.total === null ? `unscored: ${s.totalExplanation}` : num(s.total),
  ])]));
}

/** A reward model's checkpoint that is missing or damaged: the user's to fix, so no stack trace. */
const MISSING_MODEL_ERRORS = new Set(['ProgRmCheckpointError', 'ProgRmCheckpointMissingError', 'ProgRmModelMissingError', 'JudgeCheckpointError', 'ShepherdJudgeMissingError']);

const isHelp = (a: string) => a === '--help' || a === '-h';

/** `awb rewards fit progrm|shepherd …`. */
async function fitCommand(argv: string[], io: Io): Promise<number> {
  const [model, ...rest] = argv;
  if (model === undefined || isHelp(model) || rest.some(isHelp)) {
    io.out(FIT_USAGE);
    return 0;
  }
  switch (model) {
    // Loaded on use, like the reward modules themselves: most awb commands never need them.
    case 'progrm':
      return (await import('./rewards-fit-progrm.js')).fitProgRmCommand(rest, io);
    case 'shepherd':
      return (await import('./rewards-fit-shepherd.js')).fitShepherdCommand(rest, io);
    default:
      throw new UsageError(`awb rewards fit: unknown model ${JSON.stringify(model)}; choose progrm or shepherd.\n${FIT_USAGE}`);
  }
}

/** `awb rewards compute` and `awb rewards fit`. */
export async function rewardsCommand(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'fit') return fitCommand(rest, io);
  if ((sub !== undefined && isHelp(sub)) || (sub === 'compute' && rest.some(isHelp))) {
    io.out(`${USAGE}\n\n${FIT_USAGE}`);
    return 0;
  }
  if (sub !== 'compute') throw new UsageError(`${USAGE}\n\n${FIT_USAGE}`);
  const { values, positionals } = parseFlags(rest, Flags, Values);
  if (positionals.length) throw new UsageError(`Unexpected ${JSON.stringify(positionals[0])}.\n${USAGE}`);
  const ids = episodeIds(values.episode);
  const config = readConfig(values);
  const { db } = openDb(values.db);
  try {
    const results = await computeStoredRewards(db, ids, config, values.write ?? false).catch((e: unknown) => {
      throw MISSING_MODEL_ERRORS.has((e as Error).name) ? new UsageError(`${(e as Error).message}\n(awb rewards fit progrm|shepherd trains one)`, { cause: e }) : e;
    });
    if (values.json) {
      io.out(JSON.stringify({ written: values.write ?? false, episodes: results }));
      return 0;
    }
    results.forEach((r, i) => {
      if (i) io.out('');
      printEpisode(io, r);
    });
    if (values.write) io.out(`Wrote ${results[0]!.breakdown.components.length} reward kinds for ${results.length} episodes`);
    return 0;
  } finally {
    db.close();
  }
}
