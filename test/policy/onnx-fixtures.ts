import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { PYTHON, requirePython } from '../python-env.js';
import { SimDroid } from '../../emulators/simdroid/simdroid.js';
import type { Observation } from '../../core/device/observation.js';
import { OraclePolicy } from '../../core/episode/policies/oracle.js';
import type { Policy, PolicyContext } from '../../core/episode/policy.js';
import { runEpisode } from '../../core/episode/runner.js';
import { createModel, stepInputs, type PolicyModel } from '../../core/policy/builtin.js';
import { instantiate } from '../../core/tasks/instance.js';
import { TASKS } from '../../core/tasks/registry.js';
import { createRng } from '../../core/util/rng.js';

/** Shared by the ONNX tests: a trained-ish model, feature matrices of real SimDroid screens, and the Python side. */

export { PYTHON } from '../python-env.js';
export const TRAINER_DIR = resolve(import.meta.dirname, '../../resources/trainer');

/** A seeded init with every parameter moved by U(±0.3), so b1 and wl are non-zero and scores spread as after training. */
export function trainedIshModel(seed: string): PolicyModel {
  const model = createModel(createRng(seed));
  const rng = createRng(`${seed}/perturb`);
  const p = model.net.params;
  for (let i = 0; i < p.length; i++) p[i] = p[i]! + 0.3 * (2 * rng.next() - 1);
  return model;
}

export interface Screen {
  obs: Observation;
  ctx: PolicyContext;
}

/** Every screen the oracle sees on the first instance of every `every`-th template (what the policy would score). */
export async function oracleScreens(every: number): Promise<Screen[]> {
  const d = new SimDroid();
  const screens: Screen[] = [];
  try {
    for (const t of TASKS.filter((_, i) => i % every === 0)) {
      const oracle = new OraclePolicy();
      const spy: Policy = {
        name: 'spy',
        start: (c) => oracle.start(c),
        act: (obs, ctx) => {
          screens.push({ obs, ctx: { ...ctx, history: [...ctx.history] } });
          return oracle.act(obs, ctx);
        },
      };
      await runEpisode({ device: d, instance: instantiate(t, 0), policy: spy });
    }
  } finally {
    d.close();
  }
  return screens;
}

export interface FeatureCase {
  n: number;
  features: Float32Array;
}

export function featureCases(model: PolicyModel, screens: readonly Screen[]): FeatureCase[] {
  return screens.map(({ obs, ctx }) => {
    const { candidates, features } = stepInputs(model, obs, ctx);
    return { n: candidates.length, features };
  });
}

export function float32Base64(x: Float32Array): string {
  return Buffer.from(x.buffer, x.byteOffset, x.byteLength).toString('base64');
}

/**
 * Why the PyTorch side cannot run here, or null when the trainer's venv has torch and numpy (throws without the venv).
 * Installed, not imported (a torch import is ~3 s of CPU): a broken torch fails the PyTorch runs themselves.
 */
export function torchMissing(): string | null {
  requirePython();
  if (!existsSync(PYTHON)) return `${PYTHON} not found`;
  const r = spawnSync(PYTHON, ['-c', 'import importlib.util, sys; sys.exit(0 if all(importlib.util.find_spec(m) for m in ("torch", "numpy")) else "torch or numpy is not installed")'], { encoding: 'utf8' });
  return r.status === 0 ? null : `${PYTHON}: ${(r.stderr || r.error?.message || '').trim().split('\n').pop()}`;
}

/** python3 -m awb_trainer.policy ARGS with the trainer on PYTHONPATH; throws with stderr on a non-zero exit. */
export function runTrainerPolicy(args: readonly string[]): string {
  const r = spawnSync(PYTHON, ['-m', 'awb_trainer.policy', ...args], {
    encoding: 'utf8', env: { ...process.env, PYTHONPATH: TRAINER_DIR }, maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`awb_trainer.policy ${args.join(' ')} exited ${r.status}: ${r.stderr || r.error?.message}`);
  return r.stdout;
}

export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Infinity;
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i]! - b[i]!));
  return d;
}
