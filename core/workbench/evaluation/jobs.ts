import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { PolicySpec } from '../../policy/registry.js';
import { sha256Hex } from '../../policy/adapter-file.js';
import { evalDeltas } from '../../rl/eval.js';
import { evalTemplates } from '../../rl/eval-run.js';
import { SPLIT_DATA } from '../../tasks/splits.js';
import type { ReadableDB } from '../../store/index.js';
import { assertNever, WorkbenchError } from '../../util/errors.js';
import type { EvaluationEvent, EvaluationInfo, EvaluationStart, EvaluationState } from '../../api/evaluation-types.js';
import type { EvaluationWorkerData, FromEvaluationWorker } from './protocol.js';

/**
 * Evaluate in the workbench: one evaluation at a time, in a worker thread (worker.ts) so the API
 * host stays responsive, streamed as onEvaluation events with progress and ETA.
 */
export class EvaluationInputError extends WorkbenchError {
  override name = 'EvaluationInputError';
  constructor(readonly field: string, readonly value: unknown, reason: string) {
    super(`Evaluation ${field} ${JSON.stringify(value)}: ${reason}`);
  }
}

export class EvaluationBusyError extends WorkbenchError {
  override name = 'EvaluationBusyError';
  constructor(readonly id: string) {
    super(`Evaluation ${id} is still running: stop it or wait for it to end`);
  }
}

export class EvaluationNotFoundError extends WorkbenchError {
  override name = 'EvaluationNotFoundError';
  constructor(readonly id: string) {
    super(`No evaluation ${JSON.stringify(id)} in this workbench`);
  }
}

export interface EvaluationManagerOptions {
  db(): ReadableDB;
  /** The one policy resolver (core/workbench/policy-choices.ts). */
  resolve(policy: string): PolicySpec;
  log(message: string): void;
}

interface Entry {
  info: EvaluationInfo;
  control: Int32Array;
  worker: Worker;
  exited: Promise<void>;
}

const ENTRY = new URL('./worker-entry.mjs', import.meta.url);
const ENDED: readonly EvaluationState[] = ['finished', 'stopped', 'failed'];

/** What each run's config records about the policy: the choice, its kind, and its files by path and sha256 (as `awb eval`, so `awb eval compare` tells them apart). */
function policyConfig(choice: string, spec: PolicySpec): Record<string, unknown> {
  const file = (path: string) => ({ path, sha256: sha256Hex(readFileSync(path)) });
  switch (spec.name) {
    case 'builtin':
      return { policy: 'builtin', choice, checkpoint: file(spec.checkpoint) };
    case 'onnx':
      return { policy: 'onnx', choice, checkpoint: file(spec.model) };
    case 'transformer':
      return { policy: 'transformer', choice, checkpoint: file(join(spec.model, 'policy.onnx')) };
    case 'builtin-adapted':
      return { policy: choice, choice, checkpoint: file(spec.checkpoint), adapters: spec.adapters.map(file) };
    case 'vlm':
      return { policy: choice, choice, model: spec.settings.endpoint.model };
    case 'oracle':
    case 'random':
      return { policy: spec.name, choice };
    case 'manual':
    case 'replay':
    case 'builtin-sample':
    case 'builtin-adapted-sample':
    case 'transformer-sample':
    case 'vlm-replay':
      throw new EvaluationInputError('policy', choice, 'needs a person or recorded actions: choose oracle, random, a checkpoint, an ONNX export, an adapter or a VLM');
    default:
      return assertNever(spec, 'policy spec');
  }
}

export class EvaluationManager {
  private readonly entries = new Map<string, Entry>();
  private readonly listeners = new Set<(e: EvaluationEvent) => void>();
  private seq = 0;

  constructor(private readonly opts: EvaluationManagerOptions) {}

  active(): EvaluationInfo | null {
    for (const e of this.entries.values()) if (!ENDED.includes(e.info.state)) return e.info;
    return null;
  }

  list(): EvaluationInfo[] {
    return [...this.entries.values()].map((e) => structuredClone(e.info)).reverse();
  }

  start(input: EvaluationStart): EvaluationInfo {
    const busy = this.active();
    if (busy) throw new EvaluationBusyError(busy.id);
    const splits = input.splits ?? ['unseen-instance'];
    const part = input.part ?? 'test';
    const seeds = input.seeds ?? [...SPLIT_DATA.seeds.test];
    const templates = evalTemplates(splits, part, input.limit);
    if (templates.length === 0) throw new EvaluationInputError('split', `${splits.join(',')}/${part}`, 'has no templates');
    const names = input.before !== undefined ? [input.before, input.policy] : [input.policy];
    // Resolved (and hashed) here: a bad name is refused now, not by a worker later.
    const policies = names.map((name) => {
      const spec = this.opts.resolve(name);
      return { name, spec, config: policyConfig(name, spec) };
    });
    const dbPath = this.opts.db().name;
    const id = `eval-${++this.seq}`;
    const control = new SharedArrayBuffer(4);
    const data: EvaluationWorkerData = { dbPath, evaluation: id, policies, splits: [...splits], part, seeds: [...seeds], ...(input.limit ? { limit: input.limit } : {}), control };
    const worker = new Worker(ENTRY, { workerData: data });
    const info: EvaluationInfo = {
      id, state: 'running', policies: names, splits: [...splits], part, seeds: [...seeds], templates: templates.length,
      done: 0, total: names.length * seeds.length * templates.length, current: null, etaSeconds: null,
      startedAt: Date.now(), endedAt: null, error: null, results: [], deltas: null,
    };
    let exited!: () => void;
    const entry: Entry = { info, control: new Int32Array(control), worker, exited: new Promise<void>((res) => (exited = res)) };
    this.entries.set(id, entry);
    worker.on('message', (m: FromEvaluationWorker) => this.onWorker(entry, m));
    worker.on('error', (e) => this.end(entry, 'failed', { name: e.name, message: e.message }));
    worker.on('exit', (code) => {
      if (!ENDED.includes(entry.info.state)) this.end(entry, 'failed', { name: 'EvaluationWorkerExit', message: `the evaluation worker exited (code ${code}) before the evaluation ended` });
      exited();
    });
    this.opts.log(`evaluation ${id}: ${names.join(' → ')} on ${splits.join(',')}/${part}, seeds ${seeds.join(',')}`);
    this.emit('state', entry);
    return structuredClone(info);
  }

  /** Stops after the current episode; the runs end 'interrupted' and the report covers what ran. */
  stop(id: string): EvaluationInfo {
    const e = this.entries.get(id);
    if (!e) throw new EvaluationNotFoundError(id);
    if (e.info.state === 'running') {
      Atomics.store(e.control, 0, 1);
      e.info.state = 'stopping';
      this.emit('state', e);
    }
    return structuredClone(e.info);
  }

  subscribe(listener: (e: EvaluationEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(timeoutMs = 5000): Promise<void> {
    const waits: Array<Promise<unknown>> = [];
    for (const e of this.entries.values()) {
      if (ENDED.includes(e.info.state)) continue;
      Atomics.store(e.control, 0, 1);
      waits.push(Promise.race([e.exited, new Promise((res) => setTimeout(res, timeoutMs).unref())]).then(() => e.worker.terminate()));
    }
    await Promise.all(waits);
    this.listeners.clear();
  }

  private onWorker(e: Entry, m: FromEvaluationWorker): void {
    const info = e.info;
    switch (m.type) {
      case 'episode': {
        info.done += 1;
        info.current = `${info.policies[m.policy]}: ${m.key}`;
        const perEpisode = (Date.now() - info.startedAt) / 1000 / info.done;
        info.etaSeconds = Math.round(perEpisode * (info.total - info.done));
        this.emit('progress', e);
        return;
      }
      case 'result': {
        info.results.push({ policy: info.policies[m.policy]!, runs: m.runs, report: m.report, stopped: m.stopped });
        if (info.results.length === 2) info.deltas = evalDeltas(info.results[0]!.report, info.results[1]!.report);
        this.emit('result', e);
        return;
      }
      case 'done':
        this.end(e, m.stopped ? 'stopped' : 'finished', null);
        return;
      case 'failed':
        this.end(e, 'failed', m.error);
        return;
      default:
        assertNever(m, 'evaluation worker message');
    }
  }

  private end(e: Entry, state: 'finished' | 'stopped' | 'failed', error: EvaluationInfo['error']): void {
    if (ENDED.includes(e.info.state)) return;
    if (error) this.opts.log(`evaluation ${e.info.id} failed: ${error.name}: ${error.message}`);
    Object.assign(e.info, { state, error, endedAt: Date.now(), etaSeconds: state === 'finished' ? 0 : null });
    this.emit('state', e);
  }

  private emit(kind: EvaluationEvent['kind'], e: Entry): void {
    const evaluation = structuredClone(e.info);
    for (const l of this.listeners) l({ kind, evaluation });
  }
}
