/**
 * The trainer's Hugging Face path on the tiny random Qwen2.5-VL (issue 17): optimizer-step time of vlm-sft and
 * vlm-grpo with LoRA on CPU, from the jobs' own metric events (one per optimizer step).
 *   npm run bench -- tiny-vlm
 * Each job: 8 one-step episodes with a 540×1200 screenshot (SimDroid's half size) resized within the tiny model's
 * pixel bounds (16 image tokens), minibatch 2, 2 epochs → 8 optimizer steps; vlm-grpo starts from the SFT adapter
 * with a KL term (π_old and π_ref scored first, which is included in its first step's time). Needs the trainer's venv.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { requirePython, tinyVlm, TRAINER_ROOT } from '../test/python-env.js';

const SCRIPT = String.raw`
import json, os, statistics, sys, time
sys.path.insert(0, os.environ["TRAINER_ROOT"])
from tests import helpers
from awb_trainer import jobdir
from awb_trainer.run import run_job

model, out = os.environ["AWB_TINY_VLM"], {}
eps = [helpers.vlm_episode(f"e{i}", [json.dumps({"name": "mobile_use", "arguments": {"action": "click", "coordinate": [40 + i, 300]}})],
                           advantage=1.0 if i % 2 else -1.0) for i in range(8)]
root = helpers.scratch_dir()
lora = {"r": 8, "alpha": 16.0, "dropout": 0.0, "targetModules": ["q_proj", "k_proj", "v_proj", "o_proj"]}
for kind, extra, job_id in (("vlm-sft", {}, "000001-sft"), ("vlm-grpo", {"resumeFrom": "000001-sft", "klBeta": 0.05}, "000002-grpo")):
    cfg = {"model": model, "lora": lora, "epochs": 2, "batchSize": 2, "learningRate": 0.001, **extra}
    d = helpers.make_job_dir(root, kind, cfg, helpers.vlm_bundle(kind, eps, helpers.png(540, 1200)), job_id=job_id)
    t0 = time.perf_counter()
    run_job(d, "file")
    wall = time.perf_counter() - t0
    rec = jobdir.read_job(d)
    assert rec["status"] == "succeeded", rec["error"]
    with open(os.path.join(d, "events.jsonl")) as f:
        events = [json.loads(l) for l in f]
    start = next(e["time"] for e in events if e.get("type") == "status" and e.get("status") == "running")
    times = [start] + [e["time"] for e in events if e.get("type") == "metric"]
    steps = [b - a for a, b in zip(times, times[1:])]
    out[kind] = {"steps": len(steps), "medianStepMs": statistics.median(steps), "firstStepMs": steps[0],
                 "laterMedianMs": statistics.median(steps[1:]), "jobWallS": round(wall, 2)}
print(json.dumps(out))
`;

export async function benchTinyVlm(): Promise<Record<string, unknown>> {
  const python = requirePython();
  const model = tinyVlm();
  const threads = process.env.OMP_NUM_THREADS ?? '2';
  const r = spawnSync(python, ['-c', SCRIPT], {
    encoding: 'utf8', timeout: 600_000,
    env: { ...process.env, TRAINER_ROOT, AWB_TINY_VLM: model, OMP_NUM_THREADS: threads, PYTHONPATH: TRAINER_ROOT, HF_HUB_OFFLINE: '1' },
  });
  if (r.status !== 0) throw new Error(`tiny-vlm bench failed: ${r.error?.message ?? r.stderr.trim().split('\n').slice(-5).join(' | ')}`);
  const result = JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, { medianStepMs: number; firstStepMs: number; laterMedianMs: number; jobWallS: number }>;
  for (const [kind, s] of Object.entries(result)) {
    console.log(`${kind}: first optimizer step ${s.firstStepMs} ms (includes model load${kind === 'vlm-grpo' ? ', π_old/π_ref scoring' : ''}), later steps median ${s.laterMedianMs} ms, job ${s.jobWallS} s`);
  }
  return { model: join('~/.cache/awb', model.split('/').pop()!), threads: Number(threads), ...result };
}
