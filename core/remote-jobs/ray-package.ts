import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RayPackageError } from './errors.js';
import { zipStored, type ZipEntry } from './zip.js';

/**
 * The Ray job package and entrypoint, as resources/trainer/awb_trainer/ray_submit.py describes them (one layout for
 * both sides, checked against each other by test/jobs/ray-jobs.test.ts):
 *   awb_trainer/**  job/job.json  job/dataset.tar   → gcs://_ray_pkg_<sha256[:32]>.zip, runtime_env.working_dir
 *   python3 -m awb_trainer run --job job --events stdout --results RESULTS   (the Ray job's entrypoint)
 *   submission id awb-<job id>; the finished job published to RESULTS/<job id>/ (job.json + artifacts/)
 */
export const SUBMISSION_PREFIX = 'awb-';
export const JOB_FOLDER = 'job';

/** The trainer's Python package shipped beside the workbench (AWB_TRAINER_PACKAGE overrides it). */
export function trainerPackageDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.AWB_TRAINER_PACKAGE ?? fileURLToPath(new URL('../../resources/trainer/awb_trainer', import.meta.url));
}

export const submissionId = (jobId: string): string => `${SUBMISSION_PREFIX}${jobId}`;

/** The job id inside a submission id (the results folder's name); null for a Ray job awb did not submit. */
export const jobIdOf = (submission: string): string | null => (submission.startsWith(SUBMISSION_PREFIX) ? submission.slice(SUBMISSION_PREFIX.length) : null);

export const packageName = (pkg: Buffer): string => `_ray_pkg_${createHash('sha256').update(pkg).digest('hex').slice(0, 32)}.zip`;

/** Python's shlex.quote: the entrypoint is a shell command line, and the same one on both sides. */
export function shellQuote(s: string): string {
  if (s === '') return "''";
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'"'"'`)}'`;
}

export function rayEntrypoint(gpus: number, results: string): string {
  const run = ['-m', 'awb_trainer', 'run', '--job', JOB_FOLDER, '--events', 'stdout', '--results', results];
  const argv = gpus > 1 ? ['python3', '-m', 'awb_trainer.torchrun', '--standalone', '--nnodes', '1', '--nproc_per_node', String(gpus), ...run] : ['python3', ...run];
  return argv.map(shellQuote).join(' ');
}

/** job.json as the service's JobStore writes it (awb_trainer/store.py): `run --job` reads id, kind and config. */
export interface RayJobRecord {
  id: string;
  kind: string;
  name: string;
  config: Record<string, unknown>;
  /** The bundle's sha256. */
  dataset: string;
  createdAt: number;
  gpus: number;
}

function jobJson(r: RayJobRecord): string {
  return JSON.stringify({
    id: r.id, kind: r.kind, name: r.name, status: 'queued', createdAt: r.createdAt, startedAt: null, finishedAt: null, error: null,
    artifacts: [], lastSeq: 0, config: r.config, dataset: r.dataset, gpus: r.gpus,
  }, null, 1);
}

/** awb_trainer/** (no __pycache__, no .pyc), as ray_submit.build_package walks it. */
function packageFiles(dir: string, prefix = 'awb_trainer'): Array<{ name: string; path: string }> {
  const out: Array<{ name: string; path: string }> = [];
  for (const d of readdirSync(dir, { withFileTypes: true })) {
    if (d.isDirectory()) {
      if (d.name !== '__pycache__') out.push(...packageFiles(join(dir, d.name), `${prefix}/${d.name}`));
    } else if (d.isFile() && !d.name.endsWith('.pyc')) {
      out.push({ name: `${prefix}/${d.name}`, path: join(dir, d.name) });
    }
  }
  return out;
}

/** The package's bytes and its content-addressed name; entries sorted by name (ray_submit.py sorts the same way). */
export function buildRayPackage(o: { record: RayJobRecord; datasetFile: string; trainerDir?: string }): { bytes: Buffer; name: string } {
  const dir = o.trainerDir ?? trainerPackageDir();
  if (!existsSync(join(dir, '__main__.py'))) throw new RayPackageError('awb_trainer', `${dir} is not the trainer package (no __main__.py; set AWB_TRAINER_PACKAGE)`);
  if (!existsSync(o.datasetFile)) throw new RayPackageError('job/dataset.tar', `the bundle ${o.datasetFile} is gone`);
  const entries: ZipEntry[] = [
    ...packageFiles(dir).map((f) => ({ name: f.name, data: readFileSync(f.path) })),
    { name: `${JOB_FOLDER}/dataset.tar`, data: readFileSync(o.datasetFile) },
    { name: `${JOB_FOLDER}/job.json`, data: Buffer.from(jobJson(o.record)) },
  ];
  // Byte order, as Python sorts str (code points; the names are ASCII).
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const bytes = zipStored(entries);
  return { bytes, name: packageName(bytes) };
}
