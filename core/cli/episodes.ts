import { z } from 'zod';
import {
  EpisodeFilterSchema, exportEpisodes, type EpisodeFilter, getRun, importEpisodes, listEpisodes, loadTrajectory, STORED_EPISODE_STATUSES, type EpisodeId,
  type RunId,
} from '../store/index.js';
import { intArg, parseFlags, UsageError } from './args.js';
import { explainCommand } from './explain.js';
import { table } from './format.js';
import type { Io } from './main.js';
import { openDb } from './open-db.js';

const USAGE = `awb episodes list [--template T] [--app A] [--status success|failure|error|interrupted] [--run R] [--policy P]
                  [--search TEXT] [--limit N] [--offset N] [--oldest] [--db PATH] [--json]
awb episodes show EPISODE_ID [--db PATH] [--json]
awb episodes explain EPISODE_ID [--oracle when-needed|always|never] [--db PATH] [--json]
awb episodes export (EPISODE_ID... | --template T | --run R | --status S ...) --out DIR [--force] [--db PATH] [--json]
awb episodes import DIR [--name NAME] [--db PATH] [--json]`;

const FilterFlags = {
  template: { type: 'string' }, app: { type: 'string' }, status: { type: 'string', multiple: true }, run: { type: 'string' },
  policy: { type: 'string' }, search: { type: 'string' }, limit: { type: 'string' }, offset: { type: 'string' }, oldest: { type: 'boolean' },
  db: { type: 'string' }, json: { type: 'boolean' },
} as const;

const FilterValues = z.object({
  template: z.string().optional(),
  app: z.string().optional(),
  status: z.array(z.enum(STORED_EPISODE_STATUSES)).optional(),
  run: intArg('--run').optional(),
  policy: z.string().optional(),
  search: z.string().optional(),
  limit: intArg('--limit').pipe(z.number().min(1).max(1000)).optional(),
  offset: intArg('--offset').optional(),
  oldest: z.boolean().optional(),
  db: z.string().optional(),
  json: z.boolean().optional(),
});

/** The store's filter from the flags (validated by the store's own schema); the run id is branded here. */
function filterOf(v: z.infer<typeof FilterValues>): EpisodeFilter {
  const { runId: _ignored, ...rest } = EpisodeFilterSchema.parse({
    ...(v.template ? { templateId: v.template } : {}), ...(v.app ? { app: v.app } : {}),
    ...(v.status ? { status: v.status } : {}),
    ...(v.policy ? { policy: v.policy } : {}), ...(v.search ? { search: v.search } : {}),
    ...(v.limit ? { limit: v.limit } : {}), ...(v.offset ? { offset: v.offset } : {}), order: v.oldest ? 'oldest' : 'newest',
  });
  return { ...rest, ...(v.run !== undefined ? { runId: v.run as RunId } : {}) };
}

const time = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 19);

/** `awb episodes list|show|explain|export|import`: the recorded trajectories. */
export async function episodesCommand(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'list': {
      const { values } = parseFlags(rest, FilterFlags, FilterValues);
      const { db } = openDb(values.db);
      try {
        const page = listEpisodes(db, filterOf(values));
        if (values.json) {
          io.out(JSON.stringify(page));
          return 0;
        }
        io.out(table([['ID', 'STATUS', 'TEMPLATE', 'SEED', 'POLICY', 'STEPS', 'STARTED'], ...page.rows.map((r) => [
          String(r.id), r.status, r.templateId, String(r.seed), r.policy, String(r.steps), time(r.startedAt),
        ])]));
        const c = page.counts;
        io.out(`${page.rows.length} of ${page.total} episodes (success ${c.success}, failure ${c.failure}, error ${c.error}, interrupted ${c.interrupted})`);
        return 0;
      } finally {
        db.close();
      }
    }
    case 'show': {
      const { values, positionals } = parseFlags(rest, { db: { type: 'string' }, json: { type: 'boolean' } }, z.object({ db: z.string().optional(), json: z.boolean().optional() }));
      const id = Number(positionals[0]);
      if (!Number.isInteger(id) || id < 1) throw new UsageError(`awb episodes show EPISODE_ID: got ${JSON.stringify(positionals[0] ?? '')}`);
      const { db } = openDb(values.db);
      try {
        const t = loadTrajectory(db, id as EpisodeId);
        if (values.json) {
          io.out(JSON.stringify(t));
          return 0;
        }
        const e = t.episode;
        io.out(`Episode ${e.id} (${e.uid}) — ${t.instance.templateId} seed ${t.instance.seed}, ${e.policy}: ${e.status}${e.terminatedBy ? `, ended by ${e.terminatedBy}` : ''}`);
        io.out(t.instance.instruction);
        if (e.error) io.out(`error: ${e.error.name}: ${e.error.message}`);
        if (e.answer !== null) io.out(`answer: ${JSON.stringify(e.answer)}`);
        io.out(table([['STEP', 'ACTION', 'REWARDS', 'MS'], ...t.steps.map((s) => [
          String(s.index + 1),
          `${s.overridden ? '(override) ' : ''}${s.description ?? JSON.stringify(s.raw)}${s.error ? `  [${s.error.name}]` : ''}`,
          Object.entries(s.rewards).map(([k, r]) => `${k}=${r.value}`).join(' '),
          String(Math.round(s.timings.observeMs + s.timings.policyMs + s.timings.actMs + s.timings.settleMs)),
        ])]));
        return 0;
      } finally {
        db.close();
      }
    }
    case 'explain':
      return await explainCommand(rest, io);
    case 'export': {
      const { values, positionals } = parseFlags(rest, { ...FilterFlags, out: { type: 'string' }, force: { type: 'boolean' } }, FilterValues.extend({
        out: z.string({ error: '--out DIR is required' }).min(1, '--out needs a folder (it was given an empty one)'), force: z.boolean().optional(),
      }));
      const ids = positionals.map((p) => {
        const n = Number(p);
        if (!Number.isInteger(n) || n < 1) throw new UsageError(`Not an episode id: ${JSON.stringify(p)}`);
        return n as EpisodeId;
      });
      const filtered = values.template || values.app || values.status || values.run !== undefined || values.policy || values.search;
      if (ids.length && filtered) throw new UsageError('Give episode ids or a filter, not both');
      if (!ids.length && !filtered) throw new UsageError(`Nothing selected.\n${USAGE}`);
      const { db } = openDb(values.db);
      try {
        if (values.run !== undefined) getRun(db, values.run as RunId); // RunNotFoundError, before a folder is made
        const summary = exportEpisodes(db, ids.length ? ids : filterOf(values), values.out, { force: values.force === true });
        io.out(values.json ? JSON.stringify(summary) : `Exported ${summary.manifest.counts.episodes} episodes to ${summary.dir}`);
        return 0;
      } finally {
        db.close();
      }
    }
    case 'import': {
      const { values, positionals } = parseFlags(rest, { db: { type: 'string' }, json: { type: 'boolean' }, name: { type: 'string' } }, z.object({
        db: z.string().optional(), json: z.boolean().optional(), name: z.string().optional(),
      }));
      const dir = positionals[0];
      if (!dir) throw new UsageError('awb episodes import DIR');
      const { db } = openDb(values.db);
      try {
        const summary = await importEpisodes(db, dir, values.name ? { name: values.name } : {});
        const d = summary.duplicates;
        const repeated = d.length
          ? `; ${d.length} uid${d.length > 1 ? 's' : ''} on more than one line, imported once (${d.slice(0, 3).map((x) => `${x.uid} at lines ${x.lines.join(', ')}`).join('; ')}${d.length > 3 ? '; …' : ''})`
          : '';
        io.out(values.json ? JSON.stringify(summary) : `Imported ${summary.imported.length} episodes${summary.skipped ? ` (${summary.skipped} already there)` : ''}${summary.run ? ` as run ${summary.run.id}` : ''}${repeated}`);
        return 0;
      } finally {
        db.close();
      }
    }
    default:
      throw new UsageError(USAGE);
  }
}
