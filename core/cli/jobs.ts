import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { TrainerProfiles, type TrainerProfile } from '../remote-jobs/profiles.js';
import { checkTrainerReachable } from '../remote-jobs/reach.js';
import type { RemoteJob } from '../store/remote-jobs.js';
import { intArg, parseFlags, UsageError } from './args.js';
import { dataDir } from '../util/data-dir.js';
import { table } from './format.js';
import { eventLine, withRemoteJobs } from './jobs-common.js';
import { registerCommand, REGISTER_USAGE } from './jobs-register.js';
import { grpoCommand, GRPO_USAGE } from './jobs-grpo.js';
import { submitCommand, SUBMIT_USAGE } from './jobs-submit.js';
import type { Io } from './main.js';

export const JOBS_USAGE = `awb jobs trainers add NAME --url URL (--token-file FILE | --token T | $AWB_TRAINER_TOKEN) [--save-anyway]
awb jobs trainers add NAME --ray --url http://HEAD:8265 --results SHARED_DIR [--gpus N] [--token-file FILE] [--save-anyway]
awb jobs trainers list [--json] | awb jobs trainers remove NAME
${SUBMIT_USAGE}
${GRPO_USAGE}
awb jobs list [--trainer NAME] [--json]
awb jobs status JOB [--json]                    JOB: the local id (awb jobs list) or the service's job id
awb jobs logs JOB [--follow] [--json]           events so far (--follow: live until the job ends)
awb jobs cancel JOB
awb jobs download JOB [--artifact NAME]... [--json]
${REGISTER_USAGE}`;

const Common = { db: { type: 'string' }, json: { type: 'boolean' } } as const;
const CommonValues = z.object({ db: z.string().optional(), json: z.boolean().optional() });

const time = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString().replace('T', ' ').slice(0, 19));

function jobLine(j: RemoteJob): string[] {
  return [String(j.id), j.trainer, j.remoteId ?? '-', j.kind, j.status, time(j.createdAt), j.policyPath ?? (j.artifacts.length ? `${j.artifacts.length} file(s)` : '-')];
}


/**
 * Validates the profile, checks that it answers (TrainerCheckError naming the URL, as the app's Jobs → Trainers
 * does) unless `saveAnyway` (a trainer that is off now), then saves it.
 */
async function addTrainer(profiles: TrainerProfiles, profile: TrainerProfile, saveAnyway: boolean): Promise<void> {
  const checked = TrainerProfiles.validate(profile);
  if (!saveAnyway) await checkTrainerReachable(checked, { then: 'or pass --save-anyway to keep a trainer that is off now' });
  profiles.put(checked);
}

function one(positionals: string[], usage: string): string {
  if (positionals.length !== 1) throw new UsageError(`Usage: ${usage}`);
  return positionals[0]!;
}

async function trainersCommand(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  const profiles = new TrainerProfiles(dataDir());
  switch (sub) {
    case 'add': {
      const { values, positionals } = parseFlags(rest, {
        url: { type: 'string' }, token: { type: 'string' }, 'token-file': { type: 'string' }, ray: { type: 'boolean' }, results: { type: 'string' }, gpus: { type: 'string' },
        'save-anyway': { type: 'boolean' },
      }, z.object({
        url: z.string(), token: z.string().optional(), 'token-file': z.string().optional(), ray: z.boolean().optional(), results: z.string().optional(),
        gpus: intArg('--gpus').pipe(z.number().min(0)).optional(), 'save-anyway': z.boolean().optional(),
      }));
      const saveAnyway = values['save-anyway'] === true;
      const name = one(positionals, 'awb jobs trainers add NAME --url URL --token-file FILE');
      const token = values['token-file'] ? readFileSync(values['token-file'], 'utf8').trim() : values.token ?? process.env.AWB_TRAINER_TOKEN;
      if (values.ray) {
        // A Ray cluster: its dashboard's Jobs API, and the shared folder finished jobs are published to.
        if (!values.results) throw new UsageError('awb jobs trainers add --ray: give --results DIR, the shared folder the cluster publishes finished jobs to');
        await addTrainer(profiles, {
          name, kind: 'ray', baseUrl: values.url, resultsDir: resolve(values.results), ...(token ? { token } : {}), ...(values.gpus !== undefined ? { gpus: values.gpus } : {}),
        }, saveAnyway);
        io.out(`Ray cluster ${name} → ${values.url}, results in ${resolve(values.results)} (saved in ${profiles.path})`);
        return 0;
      }
      if (values.results !== undefined || values.gpus !== undefined) throw new UsageError('awb jobs trainers add: --results and --gpus go with --ray');
      if (!token) throw new UsageError('awb jobs trainers add: give the token with --token-file FILE, --token T or $AWB_TRAINER_TOKEN');
      await addTrainer(profiles, { name, baseUrl: values.url, token }, saveAnyway);
      io.out(`trainer ${name} → ${values.url} (saved in ${profiles.path})`);
      return 0;
    }
    case 'list': {
      const { values } = parseFlags(rest, { json: { type: 'boolean' } }, z.object({ json: z.boolean().optional() }));
      const list = profiles.list();
      if (values.json) io.out(JSON.stringify(list));
      else io.out(list.length ? table([['NAME', 'URL', 'KIND'], ...list.map((p) => [p.name, p.baseUrl, p.kind === 'ray' ? `ray → ${p.resultsDir}` : 'trainer'])]) : 'no trainers (awb jobs trainers add NAME --url URL --token-file FILE)');
      return 0;
    }
    case 'remove': {
      const { positionals } = parseFlags(rest, {}, z.object({}));
      const name = one(positionals, 'awb jobs trainers remove NAME');
      if (!profiles.remove(name)) throw new UsageError(`No trainer ${JSON.stringify(name)}`);
      io.out(`removed trainer ${name}`);
      return 0;
    }
    default:
      throw new UsageError(`Usage:\n${JOBS_USAGE}`);
  }
}

/** `awb jobs …`: trainer profiles and jobs on remote trainer services (docs/jobs.md). */
export async function jobsCommand(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'trainers':
      return trainersCommand(rest, io);
    case 'submit':
      return submitCommand(rest, io);
    case 'grpo':
      return grpoCommand(rest, io);
    case 'list': {
      const { values } = parseFlags(rest, { ...Common, trainer: { type: 'string' } }, CommonValues.extend({ trainer: z.string().optional() }));
      return withRemoteJobs(values.db, async (jobs) => {
        const list = jobs.list(values.trainer);
        if (values.json) io.out(JSON.stringify(list));
        else io.out(table([['ID', 'TRAINER', 'REMOTE', 'KIND', 'STATUS', 'CREATED', 'RESULT'], ...list.map(jobLine)]));
        return 0;
      });
    }
    case 'status': {
      const { values, positionals } = parseFlags(rest, Common, CommonValues);
      const ref = one(positionals, 'awb jobs status JOB');
      return withRemoteJobs(values.db, async (jobs) => {
        const { row, job } = await jobs.refresh(ref);
        if (values.json) io.out(JSON.stringify({ local: row, remote: job }));
        else {
          io.out(`job ${row.id} (${row.trainer} ${job.id}) ${job.kind}: ${job.status}${job.error ? ` — ${job.error.code}: ${job.error.message}` : ''}`);
          io.out(`created ${time(job.createdAt)}, started ${time(job.startedAt)}, finished ${time(job.finishedAt)}`);
          for (const a of job.artifacts) io.out(`  ${a.name}  ${a.size} bytes  ${a.sha256.slice(0, 12)}`);
        }
        return 0;
      });
    }
    case 'logs': {
      const { values, positionals } = parseFlags(rest, { ...Common, follow: { type: 'boolean' } }, CommonValues.extend({ follow: z.boolean().optional() }));
      const ref = one(positionals, 'awb jobs logs JOB [--follow]');
      return withRemoteJobs(values.db, async (jobs) => {
        // Without --follow: the events up to the job's current last seq, then stop.
        const until = values.follow ? Infinity : (await jobs.refresh(ref)).job.lastSeq;
        if (until === 0) return 0;
        const onReconnect = (seq: number, reason: string) => io.err(`(stream dropped after event ${seq}: ${reason}; reconnecting)`);
        for await (const ev of jobs.follow(ref, { onReconnect })) {
          io.out(values.json ? JSON.stringify(ev) : eventLine(ev));
          if (ev.seq >= until) break;
        }
        return 0;
      });
    }
    case 'cancel': {
      const { values, positionals } = parseFlags(rest, Common, CommonValues);
      const ref = one(positionals, 'awb jobs cancel JOB');
      return withRemoteJobs(values.db, async (jobs) => {
        const row = await jobs.cancel(ref);
        io.out(values.json ? JSON.stringify(row) : `job ${row.id}: ${row.status}${row.status === 'running' ? ' (cancels at the next step boundary)' : ''}`);
        return 0;
      });
    }
    case 'download': {
      const { values, positionals } = parseFlags(rest, { ...Common, artifact: { type: 'string', multiple: true } }, CommonValues.extend({ artifact: z.array(z.string()).optional() }));
      const ref = one(positionals, 'awb jobs download JOB [--artifact NAME]');
      return withRemoteJobs(values.db, async (jobs) => {
        const row = await jobs.download(ref, values.artifact ? { names: values.artifact } : {});
        if (values.json) io.out(JSON.stringify(row.artifacts));
        else for (const a of row.artifacts) io.out(`${a.name} → ${a.path} (${a.size} bytes, sha256 verified)`);
        return 0;
      });
    }
    case 'register':
      return registerCommand(rest, io);
    default:
      throw new UsageError(`Usage:\n${JOBS_USAGE}`);
  }
}
