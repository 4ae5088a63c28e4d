import { z } from 'zod';
import { aggregateEval, formatMeanStd, type EvalEpisode, type EvalReport } from '../rl/eval.js';
import { getTemplate } from '../tasks/registry.js';
import { parsePart, parseSplit } from '../tasks/splits.js';
import { getRun, listEpisodes, type ReadableDB, type Run, type RunId } from '../store/index.js';
import { parseFlags, UsageError } from './args.js';
import { table } from './format.js';
import type { Io } from './main.js';
import { openDb } from './open-db.js';
import { evalTemplates } from './eval.js';

const USAGE = 'awb eval compare RUN_ID... [--db PATH] [--json]';

/** The part of an `awb eval` run's config that compare reads. */
const EvalRunConfig = z.object({
  eval: z.literal(true),
  policy: z.string(),
  checkpoint: z.object({ path: z.string(), sha256: z.string() }).optional(),
  splits: z.array(z.string()).min(1),
  part: z.string(),
  seed: z.number(),
  limit: z.number().optional(),
});

/** One policy (checkpoint identified by its hash) on one split part, over the seeds of its runs. */
export interface ComparedPolicy {
  label: string;
  policy: string;
  checkpoint?: { path: string; sha256: string };
  splits: string[];
  part: string;
  runs: RunId[];
  report: EvalReport;
}

function finishedEpisodes(db: ReadableDB, runId: RunId) {
  const rows = [];
  for (let offset = 0; ; offset += 1000) {
    const page = listEpisodes(db, { runId, limit: 1000, offset, status: ['success', 'failure', 'error'] });
    rows.push(...page.rows);
    if (rows.length >= page.total || page.rows.length === 0) return rows;
  }
}

/**
 * Groups eval runs by (policy or checkpoint hash, splits, part, limit) and aggregates each group
 * over its runs' seeds exactly as `awb eval` does. Episodes still running or interrupted are left
 * out. A run that is not an `awb eval` run is a usage error naming it.
 */
export function comparePolicies(db: ReadableDB, runIds: readonly RunId[]): ComparedPolicy[] {
  const groups = new Map<string, { run: Run; config: z.infer<typeof EvalRunConfig> }[]>();
  for (const id of runIds) {
    const run = getRun(db, id);
    const r = EvalRunConfig.safeParse(run.config);
    if (!r.success) throw new UsageError(`Run ${id} "${run.name}" is not an awb eval run`);
    const c = r.data;
    const key = JSON.stringify([c.policy, c.checkpoint?.sha256 ?? null, c.splits, c.part, c.limit ?? null]);
    groups.set(key, [...(groups.get(key) ?? []), { run, config: c }]);
  }
  return [...groups.values()].map((members) => {
    const c = members[0]!.config;
    const regimesOf = new Map(evalTemplates(c.splits.map(parseSplit), parsePart(c.part)).map((t) => [t.template.id, t.regimes as string[]]));
    const seeds = [...new Set(members.map((m) => m.config.seed))];
    const episodes: EvalEpisode[] = members.flatMap(({ run, config }) => finishedEpisodes(db, run.id).map((e) => {
      const t = getTemplate(e.templateId);
      return {
        seed: config.seed, templateId: e.templateId, regimes: regimesOf.get(e.templateId) ?? [], difficulty: t.difficulty, app: t.apps[0],
        success: e.status === 'success', error: e.status === 'error',
      };
    }));
    const label = c.checkpoint ? `${c.policy} ${c.checkpoint.path} (${c.checkpoint.sha256.slice(0, 12)})` : c.policy;
    return {
      label, policy: c.policy, ...(c.checkpoint ? { checkpoint: c.checkpoint } : {}), splits: c.splits, part: c.part,
      runs: members.map((m) => m.run.id), report: aggregateEval(episodes, seeds),
    };
  });
}

/** `awb eval compare RUN_ID...`: one row per policy or checkpoint, mean ± std over its runs' seeds. */
export async function evalCompareCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseFlags(argv, { db: { type: 'string' }, json: { type: 'boolean' } }, z.object({ db: z.string().optional(), json: z.boolean().optional() }));
  if (positionals.length === 0) throw new UsageError(`Give the run ids of awb eval runs\n${USAGE}`);
  const ids = positionals.map((p) => {
    if (!/^\d+$/.test(p) || Number(p) < 1) throw new UsageError(`Run id must be a positive integer, got ${JSON.stringify(p)}`);
    return Number(p) as RunId;
  });
  const { db } = openDb(values.db);
  try {
    const compared = comparePolicies(db, ids);
    if (values.json) {
      io.out(JSON.stringify({ policies: compared }));
      return 0;
    }
    const difficulties = ['easy', 'medium', 'hard'] as const;
    io.out(table([
      ['POLICY', 'SPLIT/PART', 'SEEDS', 'EPISODES', 'MEAN ± STD', ...difficulties.map((d) => d.toUpperCase())],
      ...compared.map((p) => [
        p.label, `${p.splits.join(',')}/${p.part}`, p.report.seeds.join(','), String(p.report.overall.episodes), formatMeanStd(p.report.overall),
        ...difficulties.map((d) => (p.report.byDifficulty[d] ? formatMeanStd(p.report.byDifficulty[d]) : '-')),
      ]),
    ]));
    return 0;
  } finally {
    db.close();
  }
}
