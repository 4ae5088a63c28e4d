import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { PYTHON, requirePython, tinyVlm } from '../python-env.js';
import { freePort } from '../emulators/adb/helpers.js';

/**
 * A real OpenAI-compatible server for tests: `transformers serve` (the pinned transformers in .venv)
 * on a free loopback port, serving the tiny random Qwen2.5-VL (test/python-env.ts tinyVlm()) on CPU.
 *
 * Models load on demand, named by the request's `model` (a local folder here): no FORCE_MODEL, so a
 * request naming another folder gets the server's own answer (a missing folder is its HTTP 500), and
 * a new weights folder can be served by naming it. start() loads the model through POST /load_model
 * before it resolves, so the first test's request does not pay the load. One per test file (beforeAll).
 */
export interface ServedVlm {
  /** http://127.0.0.1:PORT */
  url: string;
  /** `${url}/v1`, the workbench's endpoint baseUrl. */
  baseUrl: string;
  port: number;
  /** The loaded model's folder (the request's `model`). */
  model: string;
  /** Milliseconds from spawn to /health answering, and for the model load. */
  startup: { healthMs: number; loadMs: number };
  /** The server's output so far (stdout and stderr; with --log-level warning it logs each request's model). */
  log(): string;
  /** Kills the server's whole process group (SIGKILL) and waits for it to exit: a server that goes away. */
  kill(): Promise<void>;
  /** Stops it: SIGTERM to the group, SIGKILL if it is still there after 5 s. */
  stop(): Promise<void>;
}

export class ServedVlmStartError extends Error {
  override name = 'ServedVlmStartError';
  constructor(readonly reason: string, readonly log: string) {
    super(`transformers serve did not start: ${reason}\n${log.split('\n').slice(-15).join('\n')}`);
  }
}


/** The environment for the server: offline (no hub, no update check), one torch thread (2 shared cores). */
function serveEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env, HF_HUB_OFFLINE: '1', HF_HUB_DISABLE_UPDATE_CHECK: '1', HF_HUB_DISABLE_TELEMETRY: '1',
    OMP_NUM_THREADS: '1', MKL_NUM_THREADS: '1', TOKENIZERS_PARALLELISM: 'false', PYTHONUNBUFFERED: '1',
  };
}

export async function startServedVlm(opts: { model?: string; port?: number; startTimeoutMs?: number } = {}): Promise<ServedVlm> {
  requirePython();
  const model = opts.model ?? tinyVlm();
  const port = opts.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  // --model-timeout -1: never unload the idle model in the middle of a test file.
  const child = spawn(join(dirname(PYTHON), 'transformers'), [
    'serve', '--host', '127.0.0.1', '--port', String(port), '--device', 'cpu', '--model-timeout', '-1', '--log-level', 'warning',
  ], { env: serveEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // already gone
    }
  };
  const onExit = () => killGroup('SIGKILL');
  process.once('exit', onExit);
  const stop = async (grace: number) => {
    process.removeListener('exit', onExit);
    if (child.exitCode !== null || child.signalCode !== null) return;
    killGroup(grace > 0 ? 'SIGTERM' : 'SIGKILL');
    const t = setTimeout(() => killGroup('SIGKILL'), grace);
    await exited;
    clearTimeout(t);
    killGroup('SIGKILL'); // any child it left behind in its group
  };
  try {
    const deadline = Date.now() + (opts.startTimeoutMs ?? 120_000);
    await waitHealthy(url, child, deadline);
    const healthMs = performance.now() - t0;
    const t1 = performance.now();
    await loadModel(url, model, deadline);
    const loadMs = performance.now() - t1;
    return {
      url, baseUrl: `${url}/v1`, port, model, startup: { healthMs, loadMs },
      log: () => output,
      kill: () => stop(0),
      stop: () => stop(5000),
    };
  } catch (e) {
    await stop(0);
    throw e instanceof ServedVlmStartError ? e : new ServedVlmStartError((e as Error).message, output);
  }
}

async function waitHealthy(url: string, child: ChildProcess, deadline: number): Promise<void> {
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`it exited (${child.exitCode ?? child.signalCode})`);
    try {
      const r = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) });
      if (r.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('no answer on /health in time');
    // Python and torch take seconds to import; ask again shortly.
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** POST /load_model streams its progress as server-sent events; the last says ready or error. */
async function loadModel(url: string, model: string, deadline: number): Promise<void> {
  const r = await fetch(`${url}/load_model`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model }),
    signal: AbortSignal.timeout(Math.max(1000, deadline - Date.now())),
  });
  const text = await r.text();
  const events = text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)) as { status: string; message?: string });
  const last = events.at(-1);
  if (!r.ok || last?.status !== 'ready') throw new Error(`loading ${model}: ${last?.message ?? `HTTP ${r.status} ${text.slice(0, 200)}`}`);
}

/**
 * Token ids of `texts` (no special tokens added) and the end-of-turn and padding ids, from a model folder's own
 * tokenizer.json and tokenizer_config.json read by `tokenizers` (the library transformers' fast tokenizer runs on; the
 * same ids as AutoTokenizer): a transformers import would cost ~8 s of CPU for a few ids.
 */
export function tokenIds(folder: string, texts: readonly string[]): { ids: number[][]; eos: number; pad: number } {
  const code = 'import json, sys\nfrom tokenizers import Tokenizer\n'
    + 't = Tokenizer.from_file(sys.argv[1] + "/tokenizer.json")\nc = json.load(open(sys.argv[1] + "/tokenizer_config.json"))\n'
    + 'print(json.dumps({"ids": [t.encode(x, add_special_tokens=False).ids for x in sys.argv[2:]], "eos": t.token_to_id(c["eos_token"]), "pad": t.token_to_id(c["pad_token"])}))';
  const r = spawnSync(requirePython(), ['-c', code, folder, ...texts], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tokenizing with ${folder}/tokenizer.json failed: ${r.stderr}`);
  const out = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { ids: number[][]; eos: number | null; pad: number | null };
  if (out.eos === null || out.pad === null) throw new Error(`${folder}: the end-of-turn or padding token is not in tokenizer.json`);
  return { ids: out.ids, eos: out.eos, pad: out.pad };
}
