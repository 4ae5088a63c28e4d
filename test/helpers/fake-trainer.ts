import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readTar } from '../../core/util/tar.js';
import { deserializeCheckpoint, serializeCheckpoint } from '../../core/policy/checkpoint.js';
import { Adam } from '../../core/policy/network.js';

/**
 * An in-test trainer service implementing docs/trainer-protocol.md in TypeScript, standing in for
 * resources/trainer (Python) where torch is absent. Jobs really train: builtin-sft minimises
 * −log π(chosen) and builtin-grpo ascends A·log π (a plain policy gradient, enough to move the
 * weights) over the bundle's steps.jsonl, starting from init/policy.json, with the workbench's own
 * network code; the artifact is the resulting checkpoint. `epochDelayMs` paces jobs so tests can
 * cancel or cut streams while they run.
 */

interface FakeJob {
  id: string;
  kind: string;
  name: string | null;
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  error: { code: string; message: string } | null;
  artifacts: { name: string; size: number; sha256: string }[];
  lastSeq: number;
  // not on the wire
  body: string;
  key: string;
  dataset: string;
  config: Record<string, unknown>;
  events: Record<string, unknown>[];
  files: Map<string, Buffer>;
  cancelRequested: boolean;
}

export interface FakeTrainerOptions {
  token: string;
  epochDelayMs?: number;
  kinds?: string[];
}

export interface FakeTrainer {
  url: string;
  port: number;
  jobs: Map<string, FakeJob>;
  uploads: Map<string, { bytes: Buffer[]; size: number; complete: boolean }>;
  /** Requests seen per "METHOD /path-pattern" (e.g. "POST /v1/jobs"), and tokens refused. */
  counts: Map<string, number>;
  close(): Promise<void>;
}

const wire = (j: FakeJob) => ({
  id: j.id, kind: j.kind, name: j.name, status: j.status, createdAt: j.createdAt, startedAt: j.startedAt, finishedAt: j.finishedAt,
  error: j.error, artifacts: j.artifacts, lastSeq: j.lastSeq,
});

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

const fail = (res: ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}) =>
  sendJson(res, status, { error: { code, message } }, headers);

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export async function startFakeTrainer(opts: FakeTrainerOptions): Promise<FakeTrainer> {
  const jobs = new Map<string, FakeJob>();
  const byKey = new Map<string, FakeJob>();
  const uploads: FakeTrainer['uploads'] = new Map();
  const counts = new Map<string, number>();
  const listeners = new Map<string, Set<() => void>>();
  const queue: FakeJob[] = [];
  let running = false;
  let closed = false;
  const kinds = opts.kinds ?? ['builtin-sft', 'builtin-grpo'];
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  const emit = (job: FakeJob, ev: Record<string, unknown>) => {
    job.lastSeq++;
    job.events.push({ seq: job.lastSeq, time: Date.now(), ...ev });
    for (const l of listeners.get(job.id) ?? []) l();
  };
  const setStatus = (job: FakeJob, status: FakeJob['status'], error: FakeJob['error'] = null) => {
    job.status = status;
    if (status === 'running') job.startedAt = Date.now();
    if (status !== 'running' && status !== 'queued') job.finishedAt = Date.now();
    job.error = error;
    emit(job, { type: 'status', status, ...(error ? { error } : {}) });
  };

  const train = async (job: FakeJob) => {
    const files = readTar(Buffer.concat(uploads.get(job.dataset)!.bytes));
    const init = files.get('init/policy.json');
    const stepsText = files.get('steps.jsonl');
    if (!init || !stepsText) throw new Error('bundle lacks init/policy.json or steps.jsonl');
    const { model } = deserializeCheckpoint(init.toString('utf8'), 'init/policy.json');
    const steps = stepsText.toString('utf8').split('\n').filter(Boolean).map((l) => {
      const s = JSON.parse(l) as { features: string; n: number; chosen: number; temperature: number; advantage: number | null };
      const b = Buffer.from(s.features, 'base64');
      const f = new Float32Array(b.length / 4);
      for (let i = 0; i < f.length; i++) f[i] = b.readFloatLE(i * 4);
      return { ...s, f };
    });
    const epochs = Number(job.config.epochs ?? 1);
    const adam = new Adam(model.net.params.length, { lr: Number(job.config.learningRate ?? 1e-2), beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0, maxGradNorm: 1 });
    const metrics: string[] = [];
    emit(job, { type: 'log', level: 'info', message: `training ${job.kind} on ${steps.length} steps for ${epochs} epochs` });
    for (let epoch = 1; epoch <= epochs; epoch++) {
      if (job.cancelRequested) return 'cancelled';
      model.net.zeroGrad();
      let loss = 0;
      for (const s of steps) {
        const weight = job.kind === 'builtin-sft' ? 1 : (s.advantage ?? 0);
        loss -= weight * model.net.accumulateLogProb(s.f, s.n, s.chosen, -weight / steps.length, s.temperature) / steps.length;
      }
      adam.step(model.net.params, model.net.grads);
      const m = { 'loss/policy': loss, epoch };
      metrics.push(JSON.stringify({ step: epoch, metrics: m }));
      emit(job, { type: 'metric', step: epoch, metrics: m });
      emit(job, { type: 'log', level: 'info', message: `epoch ${epoch}/${epochs} loss ${loss.toFixed(4)}` });
      await sleep(opts.epochDelayMs ?? 0);
    }
    const put = (name: string, data: Buffer) => {
      job.files.set(name, data);
      job.artifacts.push({ name, size: data.length, sha256: createHash('sha256').update(data).digest('hex') });
    };
    put('policy.json', Buffer.from(serializeCheckpoint(model, { trainer: 'fake', job: job.id, epochs })));
    put('metrics.jsonl', Buffer.from(`${metrics.join('\n')}\n`));
    return 'succeeded';
  };

  const pump = async () => {
    if (running) return;
    running = true;
    while (queue.length && !closed) {
      const job = queue.shift()!;
      if (job.status !== 'queued') continue;
      setStatus(job, 'running');
      try {
        const end = await train(job);
        setStatus(job, end);
      } catch (e) {
        setStatus(job, 'failed', { code: 'internal', message: (e as Error).message });
      }
    }
    running = false;
  };

  const count = (k: string) => counts.set(k, (counts.get(k) ?? 0) + 1);
  const authorized = (req: IncomingMessage) => {
    const got = Buffer.from(req.headers.authorization ?? '');
    const want = Buffer.from(`Bearer ${opts.token}`);
    return got.length === want.length && timingSafeEqual(got, want);
  };

  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
      if (!authorized(req)) {
        count('unauthorized');
        return fail(res, 401, 'unauthorized', 'missing or wrong token');
      }
      if (parts[0] !== 'v1') return fail(res, 404, 'not_found', url.pathname);
      const [, what, id, sub, ...rest] = parts;
      if (what === 'health' && req.method === 'GET') {
        count('GET /v1/health');
        return sendJson(res, 200, { service: 'awb-trainer', version: '1', torch: null, cuda: false, devices: ['cpu'], kinds });
      }
      if (what === 'uploads' && id && /^[0-9a-f]{64}$/.test(id)) {
        const up = uploads.get(id);
        const offset = up ? up.bytes.reduce((n, b) => n + b.length, 0) : 0;
        if (req.method === 'HEAD') {
          count('HEAD /v1/uploads');
          res.writeHead(200, { 'upload-offset': String(offset), 'upload-complete': up?.complete ? '?1' : '?0' });
          return res.end();
        }
        if (req.method === 'PUT') {
          count('PUT /v1/uploads');
          const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(req.headers['content-range'] ?? '');
          if (!m) return fail(res, 400, 'bad_request', 'Content-Range required');
          const [start, , total] = [Number(m[1]), Number(m[2]), Number(m[3])];
          if (up?.complete || start !== offset) return fail(res, 409, 'conflict', `offset is ${offset}`, { 'upload-offset': String(offset) });
          const u = up ?? { bytes: [], size: total, complete: false };
          uploads.set(id, u);
          // Append as bytes arrive: a cut connection keeps what came (the protocol's resume contract).
          req.on('data', (c: Buffer) => u.bytes.push(c));
          await new Promise<void>((resolve) => { req.on('end', resolve); req.on('close', resolve); });
          if (!req.complete) return;
          const have = Buffer.concat(u.bytes);
          if (have.length < total) {
            res.writeHead(204, { 'upload-offset': String(have.length), 'upload-complete': '?0' });
            return res.end();
          }
          if (createHash('sha256').update(have).digest('hex') !== id) {
            uploads.delete(id);
            return fail(res, 422, 'checksum_mismatch', 'sha256 of the upload differs');
          }
          u.complete = true;
          res.writeHead(201, { 'upload-offset': String(have.length), 'upload-complete': '?1' });
          return res.end();
        }
      }
      if (what === 'jobs' && !id && req.method === 'GET') return sendJson(res, 200, { jobs: [...jobs.values()].reverse().map(wire) });
      if (what === 'jobs' && !id && req.method === 'POST') {
        count('POST /v1/jobs');
        const text = (await readAll(req)).toString('utf8');
        const body = JSON.parse(text) as { idempotencyKey: string; kind: string; dataset: string; config: Record<string, unknown>; name?: string };
        const existing = byKey.get(body.idempotencyKey);
        if (existing) return existing.body === text ? sendJson(res, 200, wire(existing)) : fail(res, 409, 'conflict', 'idempotency key reused with a different body');
        if (!kinds.includes(body.kind)) return fail(res, 422, 'unsupported_kind', `kind ${body.kind} is not installed here`);
        if (!uploads.get(body.dataset)?.complete) return fail(res, 409, 'conflict', `dataset ${body.dataset} is not a complete upload`);
        const job: FakeJob = {
          id: randomUUID().slice(0, 12), kind: body.kind, name: body.name ?? null, status: 'queued', createdAt: Date.now(), startedAt: null, finishedAt: null,
          error: null, artifacts: [], lastSeq: 0, body: text, key: body.idempotencyKey, dataset: body.dataset, config: body.config, events: [], files: new Map(),
          cancelRequested: false,
        };
        jobs.set(job.id, job);
        byKey.set(job.key, job);
        emit(job, { type: 'status', status: 'queued' });
        queue.push(job);
        sendJson(res, 201, wire(job));
        setImmediate(() => void pump());
        return;
      }
      const job = id ? jobs.get(id) : undefined;
      if (what === 'jobs' && id && !job) return fail(res, 404, 'not_found', `no job ${id}`);
      if (job && !sub && req.method === 'GET') return sendJson(res, 200, wire(job));
      if (job && sub === 'cancel' && req.method === 'POST') {
        count('POST /v1/jobs/cancel');
        if (job.status === 'queued') setStatus(job, 'cancelled');
        else if (job.status === 'running') job.cancelRequested = true;
        return sendJson(res, 200, wire(job));
      }
      if (job && sub === 'events' && req.method === 'GET') {
        count('GET /v1/jobs/events');
        let next = Number(url.searchParams.get('after') ?? '0');
        res.writeHead(200, { 'content-type': 'application/x-ndjson' });
        const flush = () => {
          for (const ev of job.events.filter((e) => (e.seq as number) > next)) {
            res.write(`${JSON.stringify(ev)}\n`);
            next = ev.seq as number;
            if (ev.type === 'status' && ['succeeded', 'failed', 'cancelled'].includes(ev.status as string)) {
              res.end();
              listeners.get(job.id)?.delete(flush);
              return;
            }
          }
        };
        if (!listeners.has(job.id)) listeners.set(job.id, new Set());
        listeners.get(job.id)!.add(flush);
        res.on('close', () => listeners.get(job.id)?.delete(flush));
        flush();
        return;
      }
      if (job && sub === 'artifacts' && req.method === 'GET') {
        count('GET /v1/jobs/artifacts');
        const data = job.files.get(rest.join('/'));
        if (!data) return fail(res, 404, 'not_found', `no artifact ${rest.join('/')}`);
        const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
        const from = m ? Number(m[1]) : 0;
        res.writeHead(m ? 206 : 200, { 'content-type': 'application/octet-stream', 'content-length': data.length - from, ...(m ? { 'content-range': `bytes ${from}-${data.length - 1}/${data.length}` } : {}) });
        return res.end(data.subarray(from));
      }
      return fail(res, 404, 'not_found', `${req.method} ${url.pathname}`);
    })().catch((e: unknown) => {
      if (!res.headersSent) fail(res, 500, 'internal', (e as Error).message);
      else res.destroy();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`, port, jobs, uploads, counts,
    close: async () => {
      closed = true;
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
