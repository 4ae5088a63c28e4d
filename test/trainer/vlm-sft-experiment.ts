import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { Action } from '../../core/actions/schema.js';
import { hitTest } from '../../core/a11y/ui-tree.js';
import { openSimDroid } from '../../core/devices/provider.js';
import type { Observation } from '../../core/device/observation.js';
import type { ParseContext, VlmFormatId } from '../../core/policy/vlm/format.js';
import { vlmFormat } from '../../core/policy/vlm/formats/index.js';
import type { VlmPolicySettingsInput } from '../../core/policy/vlm/settings.js';
import { TrainerProfiles } from '../../core/remote-jobs/profiles.js';
import type { JobEvent } from '../../core/remote-jobs/protocol.js';
import { RemoteJobs } from '../../core/remote-jobs/remote.js';
import { readTar } from '../../core/util/tar.js';
import type { Bundle } from '../../core/remote-jobs/bundle.js';
import { recordVlmDemonstrations, vlmDemonstrationBundle, type VlmDemonstration } from '../../core/remote-jobs/vlm-demonstrations.js';
import { openStore } from '../../core/store/db.js';
import { createRun } from '../../core/store/runs.js';
import type { TaskInstance } from '../../core/tasks/instance.js';
import { TASKS } from '../../core/tasks/registry.js';
import { splitInstances, splitTemplates } from '../../core/tasks/splits.js';
import { TINY_VLM_PIXELS } from '../../scripts/tiny-vlm-corpus.js';
import { fastClient, TOKEN } from '../jobs/fixture.js';
import { startRealTrainer } from '../jobs/real-service.js';
import { PYTHON, TRAINER_ROOT } from '../python-env.js';
import { runEpisode } from '../../core/episode/runner.js';
import { VlmPolicy } from '../../core/policy/vlm/policy.js';
import { startServedVlm } from '../policy/served-vlm.js';

/**
 * vlm-sft of a VLM on SimDroid oracle demonstrations, measured on held-out steps (EXPERIMENTS.md, "VLM SFT"):
 * 1. the oracle's episodes on the train and held-out instances, run through VlmDemonstrator (each step prompted as
 *    VlmPolicy prompts a served model, answered with the oracle's action in the format) and recorded in a store;
 *    the successful ones exported as vlm-sft bundles;
 * 2. a vlm-sft job on the train bundle through the real trainer service (upload, submit, follow, download);
 * 3. greedy replies to every held-out step's chat, before (adapter disabled) and after (resources/trainer/tools/
 *    vlm_generate.py, Hugging Face generate);
 * 4. each reply parsed by the workbench's parser of the format against the step's screen, and compared with the
 *    oracle's action.
 */
export interface VlmSftExperimentOptions {
  workdir: string;
  model: string;
  train: readonly TaskInstance[];
  heldOut: readonly TaskInstance[];
  /** How the policy is prompted; default qwen-mobile-use with the tiny model's pixel bounds. */
  settings?: Omit<VlmPolicySettingsInput, 'endpoint'>;
  /** The job config besides model (lora, epochs, batchSize, learningRate, seed…); the settings' pixel bounds are added. */
  config: Record<string, unknown>;
  maxNewTokens?: number;
  /**
   * Also run each held-out instance as a whole episode with the trained model served by `transformers serve` (the
   * trainer writes the LoRA merged into a model folder: publish.server "transformers"), VlmPolicy prompting it as in
   * the demonstrations, greedy; the task's own check decides success.
   */
  episodes?: boolean;
  /** torch threads of the job and the generation (default 1: on a shared 2-core machine, 2 threads wait on each other). */
  threads?: number;
  log?: (line: string) => void;
}

/**
 * One reply, parsed. `match`: the same action as the oracle's, a click or long press on the same element. `prefix`:
 * the share of the target (the oracle's completion) the reply reproduces from its start, character by character — how
 * far into the format's frame (thought, call tag, tool name, action name, arguments) a reply gets before it departs.
 */
export interface Verdict {
  reply: string;
  prefix: number;
  action: Action | null;
  error: string | null;
  sameType: boolean;
  match: boolean;
}

export interface HeldOutStep {
  template: string;
  seed: number;
  step: number;
  target: Action;
  before: Verdict;
  after: Verdict;
}

export interface Rates {
  steps: number;
  /** The mean of the verdicts' `prefix`. */
  prefix: number;
  valid: number;
  sameType: number;
  match: number;
}

export interface VlmSftExperiment {
  /** longestTarget: the longest held-out target in tokens (what maxNewTokens must cover). */
  data: { trainEpisodes: number; trainSteps: number; heldOutEpisodes: number; heldOutSteps: number; longestTarget: number; dropped: string[] };
  job: { id: string; loss: { first: number; last: number } | null };
  before: Rates;
  after: Rates;
  steps: HeldOutStep[];
  /** With `episodes`: the held-out instances run whole against the served SFT model. */
  episodes?: EpisodeRates;
  seconds: { demonstrations: number; training: number; generation: number; episodes?: number; total: number };
}

export interface EpisodeRates {
  episodes: number;
  success: number;
  /** Steps taken, and the share of them whose reply parsed to a valid action. */
  steps: number;
  validSteps: number;
  /** Per instance: the outcome, how it ended and the steps taken. */
  runs: Array<{ template: string; seed: number; status: string; terminatedBy: string; steps: number; error?: string }>;
}

/**
 * Unseen-instance data: every `every`-th template of the split (in registry order), its instances on the first
 * `trainSeeds` training seeds for training and on the first `heldOutSeeds` test seeds held out (the split's seeds
 * are disjoint and its train instances never equal a test one).
 */
export function unseenInstanceData(every: number, trainSeeds: number, heldOutSeeds: number): { train: TaskInstance[]; heldOut: TaskInstance[] } {
  const templates = new Set(splitTemplates(TASKS, 'unseen-instance', 'train').filter((_, i) => i % every === 0).map((t) => t.id));
  const pick = (list: TaskInstance[], n: number) => {
    const perTemplate = new Map<string, number>();
    return list.filter((i) => {
      if (!templates.has(i.template.id)) return false;
      const k = perTemplate.get(i.template.id) ?? 0;
      perTemplate.set(i.template.id, k + 1);
      return k < n;
    });
  };
  return { train: pick(splitInstances(TASKS, 'unseen-instance', 'train'), trainSeeds), heldOut: pick(splitInstances(TASKS, 'unseen-instance', 'test'), heldOutSeeds) };
}

const DEFAULT_SETTINGS = { format: 'qwen-mobile-use', ...TINY_VLM_PIXELS } as const;

export interface Seen {
  obs: Observation;
  ctx: ParseContext;
}

const key = (template: string, seed: number, step: number) => `${template}/${seed}/${step}`;

export interface VlmSftData {
  /** The bundles (train.tar, held-out.tar in the workdir). */
  trainBundle: Pick<Bundle, 'file' | 'sha256' | 'size'>;
  heldOutBundle: string;
  counts: Omit<VlmSftExperiment['data'], 'longestTarget'>;
  /** Each held-out step's screen and parse context, by template/seed/step. */
  seen: Map<string, Seen>;
  /** The store the demonstrations are recorded in (the job is recorded there too); the caller closes it. */
  db: ReturnType<typeof openStore>;
}

/** Step 1: the oracle's demonstrations on the train and held-out instances, exported as vlm-sft bundles. */
export async function vlmSftData(o: Pick<VlmSftExperimentOptions, 'workdir' | 'train' | 'heldOut' | 'settings'>): Promise<VlmSftData> {
  const settings = o.settings ?? DEFAULT_SETTINGS;
  const db = openStore(':memory:');
  const device = openSimDroid({ serial: 'simdroid-vlm-sft' });
  const seen = new Map<string, Seen>();
  let train: VlmDemonstration[];
  let held: VlmDemonstration[];
  try {
    const run = createRun(db, { kind: 'training', name: 'vlm-sft demonstrations' });
    train = await recordVlmDemonstrations({ db, run: run.id, device, instances: o.train, settings });
    held = await recordVlmDemonstrations({
      db, run: run.id, device, instances: o.heldOut, settings,
      onStep: (instance, step, obs, policy) => {
        const expectsAnswer = instance.template.kind === 'information_retrieval';
        seen.set(key(instance.template.id, instance.seed, step.index), { obs, ctx: { ...policy.geometry(obs), obs, expectsAnswer } });
      },
    });
  } finally {
    device.close();
  }
  const trainBundle = vlmDemonstrationBundle(db, train, { file: join(o.workdir, 'train.tar'), createdAt: 0 });
  const heldBundle = vlmDemonstrationBundle(db, held, { file: join(o.workdir, 'held-out.tar'), createdAt: 0 });
  const dropped = [...train, ...held].filter((d) => d.result.status !== 'success').map((d) => `${d.instance.template.id}/${d.instance.seed}: ${d.result.terminatedBy}`);
  const count = (ds: readonly VlmDemonstration[]) => ds.reduce((n, d) => n + d.result.steps.length, 0);
  const counts = {
    trainEpisodes: trainBundle.used.length, trainSteps: count(trainBundle.used),
    heldOutEpisodes: heldBundle.used.length, heldOutSteps: count(heldBundle.used), dropped,
  };
  return { trainBundle: trainBundle.bundle, heldOutBundle: heldBundle.bundle.file, counts, seen, db };
}

export async function runVlmSftExperiment(o: VlmSftExperimentOptions): Promise<VlmSftExperiment> {
  const log = o.log ?? (() => {});
  const t0 = performance.now();
  const settings = o.settings ?? DEFAULT_SETTINGS;
  const threads = String(o.threads ?? 1);
  const { trainBundle, heldOutBundle, counts, seen, db } = await vlmSftData(o);
  log(`demonstrations: ${JSON.stringify(counts)}`);
  const tDemos = performance.now();

  const pixels = { minPixels: settings.minPixels, maxPixels: settings.maxPixels };
  const service = await startRealTrainer(o.workdir, TOKEN, 60_000, [], { OMP_NUM_THREADS: threads, MKL_NUM_THREADS: threads });
  let adapter: string;
  let jobId: string;
  let loss: { first: number; last: number } | null = null;
  let servedPath: string | undefined;
  try {
    const profiles = new TrainerProfiles(o.workdir);
    profiles.put({ name: 'local', baseUrl: service.url, token: TOKEN });
    const jobs = new RemoteJobs({ db, dataDir: o.workdir, profiles, clientFor: (p) => fastClient(p.baseUrl, { timeoutMs: 60_000 }) });
    // The merged folder transformers serve loads (the trainer writes it; baseUrl is recorded, not called, for this server).
    const publish = o.episodes ? { publish: { server: 'transformers', baseUrl: 'http://127.0.0.1:1/v1', name: 'sft' } } : {};
    const { job } = await jobs.submit({ trainer: 'local', kind: 'vlm-sft', bundle: trainBundle, config: { model: o.model, ...pixels, ...o.config, ...publish }, name: 'vlm-sft experiment' });
    jobId = String(job.id);
    const events: JobEvent[] = [];
    for await (const ev of jobs.follow(jobId)) {
      events.push(ev);
      if (ev.type === 'log') log(`job: ${ev.message}`);
    }
    const last = events.at(-1);
    if (last?.type !== 'status' || last.status !== 'succeeded') throw new Error(`vlm-sft job did not succeed: ${JSON.stringify(events.filter((e) => e.type !== 'metric').slice(-5))}`);
    const losses = events.flatMap((e) => (e.type === 'metric' && e.metrics['loss/sft'] !== undefined ? [e.metrics['loss/sft']] : []));
    if (losses.length) loss = { first: losses[0]!, last: losses.at(-1)! };
    const row = await jobs.download(jobId, { names: ['adapter/adapter_config.json', 'adapter/adapter_model.safetensors', ...(o.episodes ? ['published.json'] : [])] });
    adapter = dirname(row.artifacts.find((a) => a.name === 'adapter/adapter_config.json')!.path);
    if (o.episodes) servedPath = (JSON.parse(readFileSync(row.artifacts.find((a) => a.name === 'published.json')!.path, 'utf8')) as { servedPath: string }).servedPath;
  } finally {
    await service.stop();
    db.close();
  }
  const tTrain = performance.now();

  const out = join(o.workdir, 'replies.json');
  await python([
    join(TRAINER_ROOT, 'tools', 'vlm_generate.py'), '--model', o.model, '--bundle', heldOutBundle, '--adapter', adapter,
    ...(pixels.minPixels ? ['--min-pixels', String(pixels.minPixels)] : []), ...(pixels.maxPixels ? ['--max-pixels', String(pixels.maxPixels)] : []),
    '--max-new-tokens', String(o.maxNewTokens ?? 64), '--threads', threads, '--out', out,
  ], threads);
  const tGen = performance.now();

  const judged = judgeReplies(out, heldOutBundle, seen, settings.format ?? 'androidworld');
  const data = { ...counts, longestTarget: judged.longestTarget };
  const { steps } = judged;
  const episodes = servedPath ? await servedEpisodes(servedPath, o.heldOut, settings, o.maxNewTokens ?? 64, log) : undefined;
  const t1 = performance.now();
  return {
    data, job: { id: jobId, loss }, before: judged.before, after: judged.after, steps, ...(episodes ? { episodes } : {}),
    seconds: {
      demonstrations: (tDemos - t0) / 1000, training: (tTrain - tDemos) / 1000, generation: (tGen - tTrain) / 1000,
      ...(episodes ? { episodes: (t1 - tGen) / 1000 } : {}), total: (t1 - t0) / 1000,
    },
  };
}

/**
 * Steps 3–4: each reply of resources/trainer/tools/vlm_generate.py's output (before: adapter off, after: on) parsed by
 * the format's parser against its held-out step's screen and compared with the oracle's action.
 */
export function judgeReplies(repliesFile: string, heldOutBundle: string, seen: ReadonlyMap<string, Seen>, formatId: VlmFormatId): { steps: HeldOutStep[]; before: Rates; after: Rates; longestTarget: number } {
  const format = vlmFormat(formatId);
  const out = repliesFile;
  // The bundle's episodes in order: the replies name their episode by uid.
  const lines = readTar(readFileSync(heldOutBundle)).get('episodes.jsonl')!.toString('utf8').split('\n').filter(Boolean);
  const episodes = new Map(lines.map((l) => {
    const e = JSON.parse(l) as { uid: string; template: string; seed: number };
    return [e.uid, e];
  }));
  const replies = (JSON.parse(readFileSync(out, 'utf8')) as { samples: Array<{ episode: string; k: number; target: string; targetTokens: number; base: string | null; adapter: string }> }).samples;
  const steps = replies.map((r) => {
    const ep = episodes.get(r.episode)!;
    const s = seen.get(key(ep.template, ep.seed, r.k));
    if (!s) throw new Error(`reply for ${ep.template}/${ep.seed} step ${r.k}: no such held-out step`);
    const target = format.parse(r.target, s.ctx).action;
    return { template: ep.template, seed: ep.seed, step: r.k, target, before: judge(r.base ?? '', r.target, target, s), after: judge(r.adapter, r.target, target, s) };
  });
  const rates = (pick: (s: HeldOutStep) => Verdict): Rates => ({
    steps: steps.length,
    prefix: steps.reduce((n, s) => n + pick(s).prefix, 0) / steps.length,
    valid: steps.filter((s) => pick(s).action).length / steps.length,
    sameType: steps.filter((s) => pick(s).sameType).length / steps.length,
    match: steps.filter((s) => pick(s).match).length / steps.length,
  });
  return { steps, before: rates((s) => s.before), after: rates((s) => s.after), longestTarget: Math.max(...replies.map((r) => r.targetTokens)) };

  function judge(reply: string, completion: string, target: Action, s: Seen): Verdict {
    const prefix = commonPrefix(reply, completion) / completion.length;
    let action: Action;
    try {
      action = format.parse(reply, s.ctx).action;
    } catch (e) {
      return { reply, prefix, action: null, error: e instanceof Error ? `${e.name}: ${e.message}` : String(e), sameType: false, match: false };
    }
    const sameType = action.action_type === target.action_type;
    return { reply, prefix, action, error: null, sameType, match: sameType && sameStep(action, target, s.obs) };
  }
}

/** Every held-out instance as a whole episode with the served model (one server, one SimDroid, greedy). */
async function servedEpisodes(model: string, instances: readonly TaskInstance[], settings: Omit<VlmPolicySettingsInput, 'endpoint'>, maxTokens: number, log: (l: string) => void): Promise<EpisodeRates> {
  const served = await startServedVlm({ model });
  const device = openSimDroid({ serial: 'simdroid-vlm-sft-episodes' });
  const out: EpisodeRates = { episodes: 0, success: 0, steps: 0, validSteps: 0, runs: [] };
  try {
    for (const instance of instances) {
      const policy = new VlmPolicy({ ...settings, endpoint: { baseUrl: served.baseUrl, model, server: 'transformers', retries: 0, timeoutMs: 120_000 }, maxTokens, temperature: 0 });
      const r = await runEpisode({ device, instance, policy, screenshots: 'half', onMalformed: 'continue' });
      out.episodes++;
      if (r.status === 'success') out.success++;
      out.steps += r.steps.length;
      out.validSteps += r.steps.filter((s) => !s.error).length;
      out.runs.push({ template: instance.template.id, seed: instance.seed, status: r.status, terminatedBy: r.terminatedBy, steps: r.steps.length, ...(r.error ? { error: `${r.error.name}: ${r.error.message}`.slice(0, 300) } : {}) });
      log(`episode ${instance.template.id}/${instance.seed}: ${r.status} (${r.terminatedBy}) after ${r.steps.length} steps${r.error ? `: ${r.error.name}: ${r.error.message.slice(0, 200)}` : ''}`);
    }
  } finally {
    device.close();
    await served.stop();
  }
  return out;
}

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/** The same step: a click or long press on the element the oracle's lands on, anything else equal field by field. */
function sameStep(a: Action, target: Action, obs: Observation): boolean {
  if ((a.action_type === 'click' || a.action_type === 'long_press') && a.action_type === target.action_type
    && a.x !== undefined && a.y !== undefined && target.x !== undefined && target.y !== undefined) {
    const hit = hitTest(obs.elements, a.x, a.y);
    return hit !== undefined && hit === hitTest(obs.elements, target.x, target.y);
  }
  return isDeepStrictEqual(a, target);
}

function python(args: string[], threads: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, args, {
      cwd: TRAINER_ROOT, stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, OMP_NUM_THREADS: threads, MKL_NUM_THREADS: threads, PYTHONDONTWRITEBYTECODE: '1' },
    });
    let err = '';
    child.stderr!.on('data', (c: Buffer) => { err += c.toString(); });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${args[0]} exited with ${code}: ${err.trim().split('\n').slice(-5).join(' | ')}`))));
  });
}
