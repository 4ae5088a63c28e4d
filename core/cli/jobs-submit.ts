import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { prepareBundle } from '../remote-jobs/prepare.js';
import { isRewardJobKind, type RewardBundleSettings } from '../remote-jobs/prepare-rewards.js';
import { isJobKind, JOB_KINDS, parseJobConfig, type JobKind } from '../remote-jobs/protocol.js';
import { LABEL_SOURCES } from '../rewards/progrm/annotate.js';
import type { EpisodeId } from '../store/ids.js';
import { parsePart, parseSplit } from '../tasks/splits.js';
import { intArg, parseFlags, UsageError } from './args.js';
import { dataDir } from '../util/data-dir.js';
import { eventLine, withRemoteJobs } from './jobs-common.js';
import type { Io } from './main.js';
import { probabilityList, progressLines } from './rewards-fit.js';

export const SUBMIT_USAGE = `awb jobs submit --trainer NAME --kind ${JOB_KINDS.join('|')} [--config FILE] [--name N]
                [--from-split SPLIT[:PART] | --episodes ID,ID…] [--limit N] [--init CKPT] [--seed S]
                [--group-size G] [--temperature T] [--max-steps M]                      (builtin-grpo)
                [--source lcs|env|outcome] [--perturbations P,P…] [--hidden H]        (progrm)
                [--deviations N] [--hidden H]                                         (prm)
                [--follow] [--db PATH] [--json]
  progrm / prm collect what awb rewards fit progrm / shepherd trains on (same flags, same --seed) on a
  split part and send a fresh seeded model as init/model.json; not with --episodes or --init.
awb jobs submit --retry JOB                     post a submission that never got an answer again (same idempotency key), or submit
                                                a job its trainer lost while it ran (failed: interrupted) again as a new job`;

const Flags = {
  trainer: { type: 'string' }, kind: { type: 'string' }, config: { type: 'string' }, name: { type: 'string' },
  'from-split': { type: 'string' }, episodes: { type: 'string' }, limit: { type: 'string' }, init: { type: 'string' }, seed: { type: 'string' },
  'group-size': { type: 'string' }, temperature: { type: 'string' }, 'max-steps': { type: 'string' }, follow: { type: 'boolean' },
  source: { type: 'string' }, perturbations: { type: 'string' }, deviations: { type: 'string' }, hidden: { type: 'string' },
  retry: { type: 'string' }, db: { type: 'string' }, json: { type: 'boolean' },
} as const;

const Values = z.object({
  trainer: z.string().optional(),
  kind: z.string().refine(isJobKind, `--kind must be one of ${JOB_KINDS.join(', ')}`).optional(),
  config: z.string().optional(),
  name: z.string().optional(),
  'from-split': z.string().optional(),
  episodes: z.string().regex(/^\d+(,\d+)*$/, '--episodes takes ids like 3,4,9').optional(),
  limit: intArg('--limit').pipe(z.number().min(1)).optional(),
  init: z.string().optional(),
  seed: intArg('--seed').default(0),
  'group-size': intArg('--group-size').pipe(z.number().min(2).max(64)).default(4),
  temperature: z.string().regex(/^\d+(\.\d+)?$/, '--temperature must be a positive number').transform(Number).pipe(z.number().positive()).default(1),
  'max-steps': intArg('--max-steps').pipe(z.number().min(1)).default(20),
  follow: z.boolean().optional(),
  source: z.enum(LABEL_SOURCES, { error: (iss) => `--source must be one of ${LABEL_SOURCES.join(', ')} (got ${JSON.stringify(iss.input)})` }).optional(),
  perturbations: z.string().optional(),
  deviations: intArg('--deviations').pipe(z.number().min(1, '--deviations: at least 1 deviating episode per instance')).optional(),
  hidden: intArg('--hidden').pipe(z.number().max(1024, '--hidden: at most 1024')).optional(),
  retry: z.string().optional(),
  db: z.string().optional(),
  json: z.boolean().optional(),
});

/** The progrm / prm settings from the flags; a reward flag with another kind (or the other reward kind) is refused by name. */
function rewardSettings(kind: JobKind, v: z.infer<typeof Values>): RewardBundleSettings {
  const given = (['source', 'perturbations', 'deviations', 'hidden'] as const).filter((f) => v[f] !== undefined);
  const allowed: readonly string[] = kind === 'progrm' ? ['source', 'perturbations', 'hidden'] : kind === 'prm' ? ['deviations', 'hidden'] : [];
  const wrong = given.find((f) => !allowed.includes(f));
  if (wrong) throw new UsageError(`--${wrong} is not a ${kind} setting${allowed.length ? ` (${kind} takes ${allowed.map((f) => `--${f}`).join(', ')})` : ''}`);
  if (!isRewardJobKind(kind)) return {};
  if (v.episodes || v.init) throw new UsageError(`--kind ${kind} collects its own episodes and starts from a fresh model: no --${v.episodes ? 'episodes' : 'init'}`);
  if (kind === 'progrm' && v.hidden === 0) throw new UsageError('--hidden: the progress head needs at least 1 hidden unit');
  return {
    ...(v.source ? { source: v.source } : {}),
    ...(v.perturbations !== undefined ? { perturbations: probabilityList('--perturbations', v.perturbations) } : {}),
    ...(v.deviations !== undefined ? { deviations: v.deviations } : {}),
    ...(v.hidden !== undefined ? { hidden: v.hidden } : {}),
  };
}

function readConfig(kind: JobKind, file: string | undefined): Record<string, unknown> {
  if (!file) return parseJobConfig(kind, {});
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new UsageError(`--config ${file}: ${(e as Error).message}`);
  }
  return parseJobConfig(kind, json);
}

/** `awb jobs submit`: build the bundle, upload it (resumable), submit (idempotent), optionally follow. */
export async function submitCommand(argv: string[], io: Io): Promise<number> {
  const { values: v } = parseFlags(argv, Flags, Values);
  if (v.retry) {
    return withRemoteJobs(v.db, async (jobs) => {
      const row = await jobs.resubmit(v.retry!);
      const again = String(row.id) !== v.retry && row.remoteId !== v.retry ? ` (job ${v.retry} submitted again)` : '';
      io.out(v.json ? JSON.stringify(row) : `job ${row.id}: ${row.trainer} ${row.remoteId} ${row.status}${again}`);
      return 0;
    });
  }
  if (!v.trainer || !v.kind) throw new UsageError(`awb jobs submit needs --trainer and --kind\n${SUBMIT_USAGE}`);
  if (v['from-split'] && v.episodes) throw new UsageError('give --from-split or --episodes, not both');
  const kind = v.kind as JobKind;
  const config = readConfig(kind, v.config);
  const rewards = rewardSettings(kind, v);
  const [splitName, partName] = (v['from-split'] ?? 'unseen-instance:train').split(':');
  const split = { split: parseSplit(splitName!), part: parsePart(partName ?? 'train') };
  if (isRewardJobKind(kind) && split.part === 'test') throw new UsageError(`--from-split ${splitName}:test: reward models are scored on the test part; fit on train (default) or adapt`);
  return withRemoteJobs(v.db, async (jobs) => {
    jobs.profiles.get(v.trainer!); // an unknown trainer is refused before any rollout work
    const dir = join(dataDir(), 'jobs', 'bundles');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `bundle-${process.pid}-${Date.now()}.tar`);
    try {
      io.err(`building the ${kind} bundle…`);
      let progress: ((done: number) => void) | undefined;
      const prepared = await prepareBundle({
        kind, file, createdAt: Date.now(), seed: v.seed,
        ...(v.episodes ? { episodes: { db: jobs.db, ids: v.episodes.split(',').map((s) => Number(s) as EpisodeId) } } : { split }),
        ...(v.limit !== undefined ? { limit: v.limit } : {}),
        ...(v.init ? { init: v.init } : {}),
        grpo: { groupSize: v['group-size'], temperature: v.temperature, maxSteps: v['max-steps'] },
        rewards,
        onInstance: (done, total) => (progress ??= progressLines(io, 'collect', total))(done),
      });
      const b = prepared.bundle;
      for (const note of prepared.notes) io.err(note);
      const what = isRewardJobKind(kind) ? `${b.manifest.counts.samples} samples` : `${b.manifest.counts.steps} steps`;
      io.err(`bundle ${b.sha256.slice(0, 12)}: ${b.size} bytes, ${prepared.holds ?? `${what} from ${prepared.instances} instances`}${prepared.skippedGroups ? ` (${prepared.skippedGroups} zero-signal groups left out)` : ''}`);
      let lastPct = -1;
      const { job, upload } = await jobs.submit({
        trainer: v.trainer!, kind, bundle: b, config, ...(v.name ? { name: v.name } : {}),
        onUpload: (sent, total) => {
          const pct = Math.floor((100 * sent) / total);
          if (pct !== lastPct && pct % 25 === 0) io.err(`upload ${pct}%`);
          lastPct = pct;
        },
      });
      io.err(`uploaded (${upload.resumedFrom ? `resumed at ${upload.resumedFrom} bytes, ` : ''}${upload.reconnects} reconnects)`);
      if (!v.follow) {
        io.out(v.json ? JSON.stringify(job) : `job ${job.id}: ${job.trainer} ${job.remoteId} ${job.status}`);
        return 0;
      }
      io.err(`job ${job.id}: ${job.trainer} ${job.remoteId}`);
      for await (const ev of jobs.follow(String(job.id), { onReconnect: (seq, reason) => io.err(`(stream dropped after event ${seq}: ${reason}; reconnecting)`) })) {
        io.out(v.json ? JSON.stringify(ev) : eventLine(ev));
      }
      return jobs.resolve(String(job.id)).status === 'succeeded' ? 0 : 1;
    } finally {
      rmSync(file, { force: true });
    }
  });
}
