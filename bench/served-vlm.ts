/**
 * A served VLM's step through the workbench against the same request sent directly (issue 17).
 *   npm run bench -- served-vlm
 * `transformers serve` with the tiny random Qwen2.5-VL on loopback (test/policy/served-vlm.ts). On one fixed SimDroid
 * screen: (a) VlmPolicy.act — prompt and history, the screenshot as a data URL, the request through the endpoint's
 * semaphore and the chat client, reading the reply and parsing it in the format; (b) the identical request body sent
 * with fetch and its JSON read. Alternating a/b, after warm-up; greedy, so the server does the same work each time.
 * The ratio of medians is the workbench's overhead on a step (target ≤ 1.10); the step's time outside the client's
 * request (prompt, data URL, parse) is measured too. Needs .venv (prints why and skips otherwise).
 */
import { SimDroid } from '../emulators/simdroid/simdroid.js';
import { observe } from '../core/device/observation.js';
import { resetForTask } from '../core/episode/runner.js';
import { instantiate } from '../core/tasks/instance.js';
import { getTemplate } from '../core/tasks/registry.js';
import { VlmPolicy, type ChatMessage } from '../core/policy/vlm/index.js';
import { startServedVlm } from '../test/policy/served-vlm.js';
import { PythonEnvMissingError } from '../test/python-env.js';
import { stats, type Stats } from './stats.js';

const ROUNDS = 30;
const WARMUP = 3;

export async function benchServedVlm(): Promise<Record<string, unknown>> {
  let served;
  try {
    served = await startServedVlm();
  } catch (e) {
    if (!(e instanceof PythonEnvMissingError)) throw e;
    console.log(`skipped: ${e.message}`);
    return { skipped: e.message };
  }
  const device = new SimDroid({ serial: 'simdroid-bench-served-vlm' });
  try {
    console.log(`  transformers serve: /health after ${(served.startup.healthMs / 1000).toFixed(1)} s, model loaded in ${(served.startup.loadMs / 1000).toFixed(1)} s`);
    const instance = instantiate(getTemplate('ClockStopwatchRun'), 0);
    await resetForTask(device, instance);
    const obs = await observe(device, { screenshot: true, scale: 0.5 });
    let sent: ChatMessage[] = [];
    const policy = new VlmPolicy({
      endpoint: { baseUrl: served.baseUrl, model: served.model, server: 'transformers', retries: 0 }, format: 'qwen-mobile-use', maxTokens: 16,
    }, { onRequest: (_k, m) => (sent = [...m]) });
    policy.start({ instruction: instance.instruction, instance });
    const ctx = { instruction: instance.instruction, step: 0, history: [], instance };
    await policy.act(obs, ctx);
    const body = JSON.stringify({ model: served.model, messages: sent, ...policy.requestParams() });
    const direct = async () => {
      const r = await fetch(`${served.baseUrl}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      return (await r.json()) as { usage: { prompt_tokens: number; completion_tokens: number } };
    };
    const workbench: number[] = [];
    const fetched: number[] = [];
    const own: number[] = [];
    let usage = { prompt_tokens: 0, completion_tokens: 0 };
    for (let i = 0; i < WARMUP + ROUNDS; i++) {
      let t = performance.now();
      await policy.act(obs, ctx);
      const a = performance.now() - t;
      const x = policy.takeExchanges().at(-1)!;
      t = performance.now();
      usage = (await direct()).usage;
      const b = performance.now() - t;
      if (i >= WARMUP) {
        workbench.push(a);
        fetched.push(b);
        // Outside the client's request (which itself includes writing the body and reading the reply): prompt, data URL, parse.
        own.push(a - x.latencyMs - x.queuedMs);
      }
    }
    const w = stats(workbench);
    const f = stats(fetched);
    const o = stats(own);
    const ratio = w.median / f.median;
    const line = (name: string, s: Stats) => `  ${name.padEnd(38)} median ${s.median.toFixed(1)} ms, p95 ${s.p95.toFixed(1)} ms (n=${s.n})`;
    console.log(`  request: ${body.length} bytes, ${usage.prompt_tokens} prompt tokens, ${usage.completion_tokens} completion tokens`);
    console.log(line('workbench step (VlmPolicy.act)', w));
    console.log(line('the same request with fetch', f));
    console.log(line('of the step, outside the request', o));
    console.log(`  overhead: ${((ratio - 1) * 100).toFixed(1)}% (ratio of medians ${ratio.toFixed(3)}, median difference ${(w.median - f.median).toFixed(1)} ms)`);
    return { startup: served.startup, requestBytes: body.length, usage, workbenchMs: w, fetchMs: f, outsideRequestMs: o, ratio };
  } finally {
    device.close();
    await served.stop();
  }
}
