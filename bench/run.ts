/**
 * Benchmark entry point: `npm run bench -- <name>` (or all). Prints figures and writes
 * bench/results/<name>.json; BENCHMARKS.md quotes them with the command and the machine.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { benchSimdroid } from './simdroid.js';
import { benchStore } from './store.js';
import { benchParallel } from './parallel.js';
import { benchAdb } from './adb.js';
import { benchUi } from './ui.js';
import { benchPolicy } from './policy.js';
import { benchGrpo } from './grpo.js';
import { benchRolloutStore } from './rollout-store.js';
import { benchTrain } from './train.js';
import { benchEval } from './eval.js';
import { benchAdapt } from './adapt.js';
import { benchProgrm } from './progrm.js';
import { benchRewards } from './rewards.js';
import { benchMinilm } from './minilm.js';
import { benchShepherd } from './shepherd.js';
import { benchOnnx } from './onnx.js';
import { benchJobs } from './jobs.js';
import { benchRay } from './ray.js';
import { benchRayRollouts } from './ray-rollouts.js';
import { benchOnline } from './online.js';
import { benchServedVlm } from './served-vlm.js';
import { benchTinyVlm } from './tiny-vlm.js';
import { benchVlmSft } from './vlm-sft.js';
import { benchGrpc } from './grpc.js';
import { benchLiveGrpc } from './live-grpc.js';
import { benchSuiteAdb } from './suite-adb.js';
import { benchEnv } from './env.js';
import { benchTar } from './tar.js';
import { benchTransformer } from './transformer.js';
import { benchTransformerWorkers } from './transformer-workers.js';
import { benchTransformerSft } from './transformer-sft.js';

const BENCHES: Record<string, () => Promise<Record<string, unknown>>> = { simdroid: benchSimdroid, parallel: benchParallel, adb: benchAdb, store: benchStore, ui: benchUi, grpo: benchGrpo, 'rollout-store': benchRolloutStore, policy: benchPolicy, eval: benchEval, train: benchTrain, adapt: benchAdapt, rewards: benchRewards, minilm: benchMinilm, progrm: benchProgrm, shepherd: benchShepherd, onnx: benchOnnx, jobs: benchJobs, ray: benchRay, 'ray-rollouts': benchRayRollouts, online: benchOnline, 'served-vlm': benchServedVlm, 'tiny-vlm': benchTinyVlm, 'vlm-sft': benchVlmSft, grpc: benchGrpc, 'live-grpc': benchLiveGrpc, 'suite-adb': benchSuiteAdb, env: benchEnv, tar: benchTar, transformer: benchTransformer, 'transformer-workers': benchTransformerWorkers, 'transformer-sft': benchTransformerSft };

const wanted = process.argv.slice(2);
const names = wanted.length ? wanted : Object.keys(BENCHES);
const machine = { cpus: cpus().length, cpuModel: cpus()[0]?.model, memGiB: Math.round(totalmem() / 2 ** 30), node: process.version };
console.log(`machine: ${JSON.stringify(machine)}`);
for (const name of names) {
  const bench = BENCHES[name];
  if (!bench) {
    console.error(`Unknown benchmark ${name}; known: ${Object.keys(BENCHES).join(', ')}`);
    process.exit(2);
  }
  console.log(`\n== ${name}`);
  const results = await bench();
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  writeFileSync(new URL(`./results/${name}.json`, import.meta.url), JSON.stringify({ machine, date: new Date().toISOString(), results }, null, 2));
}
