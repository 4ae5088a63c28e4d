/**
 * ProgRM (issue 7, digest 001).
 *   npm run bench -- progrm
 * The paper's Table 3 on SimDroid: oracle and perturbed-oracle episodes of five templates (train
 * seeds 0–5 at perturbation 0 / 0.2 / 0.4; held-out seeds 100–103 at 0 / 0.15 / 0.3), labelled by
 * LCS self-annotation, by ground-truth subgoals (ProgRM_Env) and by outcome (ORM), one progress
 * model each, scored by held-out key-step progress error. Three model seeds. Then the speed of each
 * piece: soft LCS, annotation, the reward per step, training per epoch.
 */
import { SimDroid } from '../emulators/simdroid/simdroid.js';
import { instantiate } from '../core/tasks/instance.js';
import { getTemplate } from '../core/tasks/registry.js';
import { createRng } from '../core/util/rng.js';
import { annotateEpisodes, DEFAULT_ANNOTATE, progActions } from '../core/rewards/progrm/annotate.js';
import { collectEpisodes } from '../core/rewards/progrm/collect.js';
import { softLcs, softMatch } from '../core/rewards/progrm/lcs.js';
import { createProgressModel } from '../core/rewards/progrm/model.js';
import { ProgRmReward } from '../core/rewards/progrm/reward.js';
import { formatStudy, runProgRmStudy } from '../core/rewards/progrm/study.js';
import { parseProgressTrainConfig, progressSamples, trainProgressModel } from '../core/rewards/progrm/train.js';
import { fmt, stats, time } from './stats.js';

const TEMPLATES = ['SystemWifiTurnOn', 'SystemBluetoothTurnOff', 'ClockStopwatchRun', 'TasksAddTask', 'ContactsDeleteContact'];

export async function benchProgrm(): Promise<Record<string, unknown>> {
  const results: Record<string, unknown> = {};
  const device = new SimDroid();
  try {
    const train = TEMPLATES.flatMap((id) => [0, 1, 2, 3, 4, 5].map((s) => instantiate(getTemplate(id), s)));
    const test = TEMPLATES.flatMap((id) => [100, 101, 102, 103].map((s) => instantiate(getTemplate(id), s)));
    const config = parseProgressTrainConfig({ epochs: 40 });

    // key-step progress error, three seeds (collection and model initialisation both vary)
    const runs = [];
    for (const seed of [0, 1, 2]) {
      const r = await runProgRmStudy({ device, train, test, trainPerturbations: [0, 0.2, 0.4], testPerturbations: [0, 0.15, 0.3], config, seed });
      console.log(`-- seed ${seed}\n${formatStudy(r)}`);
      runs.push({
        seed, trainEpisodes: r.trainEpisodes, testEpisodes: r.testEpisodes, collectMs: r.collectMs, annotateMs: r.annotateMs,
        lcsLabelError: r.lcsLabelError.keyStepError, halfBaseline: r.halfBaseline.keyStepError,
        rows: r.rows.map(({ model: _model, ...row }) => row),
      });
    }
    results.study = runs;
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const sd = (xs: number[]) => Math.sqrt(mean(xs.map((x) => (x - mean(xs)) ** 2)));
    const summary: Record<string, { keyStepError: [number, number]; finalSuccess: number; finalFailure: number }> = {};
    for (const source of ['lcs', 'env', 'outcome'] as const) {
      const rows = runs.map((r) => r.rows.find((x) => x.source === source)!);
      const errs = rows.map((x) => x.heldOut.keyStepError);
      summary[source] = {
        keyStepError: [mean(errs), sd(errs)],
        finalSuccess: mean(rows.map((x) => x.heldOut.finalScore.success)),
        finalFailure: mean(rows.map((x) => x.heldOut.finalScore.failure)),
      };
      console.log(`${source.padEnd(8)} key-step error ${mean(errs).toFixed(3)} ± ${sd(errs).toFixed(3)} (3 seeds)`);
    }
    results.summary = { ...summary, lcsLabels: mean(runs.map((r) => r.lcsLabelError)), half: mean(runs.map((r) => r.halfBaseline)) };

    // speed
    const eps = await collectEpisodes(device, train, { perturbations: [0, 0.4], rng: createRng('bench/progrm') });
    const steps = eps.reduce((s, e) => s + e.steps.length, 0);
    const model = createProgressModel(createRng('bench/progrm/model'));
    const opts = { ...DEFAULT_ANNOTATE, encoder: model.encoder };
    const f = (x: Parameters<typeof softMatch>[0], y: Parameters<typeof softMatch>[1]) => softMatch(x, y, opts);
    const long = eps.map(progActions).filter((a) => a.length >= 20);
    const short = eps.map(progActions).filter((a) => a.length <= 8);
    const lcsLong = Array.from({ length: 300 }, (_, i) => time(() => softLcs(long[i % long.length]!, long[(i + 1) % long.length]!, f)));
    const lcsShort = Array.from({ length: 2000 }, (_, i) => time(() => softLcs(short[i % short.length]!, short[(i + 1) % short.length]!, f)));
    const annotate = Array.from({ length: 5 }, () => time(() => annotateEpisodes(eps, 'lcs', opts)));
    const reward = new ProgRmReward(model);
    // cold: the encoder has never seen these texts (its memo is empty); warm: the same episodes again,
    // as in a GRPO group whose rollouts repeat most actions and screens
    const perStepOf = async () => {
      const out: number[] = [];
      for (const ep of eps) {
        const t = performance.now();
        await reward.compute(ep);
        out.push((performance.now() - t) / Math.max(1, ep.steps.length));
      }
      return out;
    };
    const cold = await perStepOf();
    const perStep = [...(await perStepOf()), ...(await perStepOf())];
    const samples = progressSamples(model, annotateEpisodes(eps, 'lcs', opts));
    const epoch = Array.from({ length: 5 }, () => time(() => trainProgressModel(model, samples, { ...config, epochs: 1 })));
    results.speed = {
      episodes: eps.length, steps, lcs20x20: stats(lcsLong), lcsShort: stats(lcsShort), annotateAll: stats(annotate),
      rewardPerStepCold: stats(cold), rewardPerStep: stats(perStep), trainEpochPer1000States: stats(epoch.map((ms) => (ms * 1000) / samples.length)),
    };
    console.log(`soft LCS, two ≥20-step episodes:   ${fmt(stats(lcsLong))}`);
    console.log(`soft LCS, two ≤8-step episodes:    ${fmt(stats(lcsShort))}`);
    console.log(`annotate ${eps.length} episodes (${steps} steps): ${fmt(stats(annotate))}`);
    console.log(`ProgRM reward per step (features + MLP), new texts:      ${fmt(stats(cold))}`);
    console.log(`ProgRM reward per step (features + MLP), repeated texts: ${fmt(stats(perStep))}`);
    console.log(`training, one epoch per 1000 states: ${fmt(stats(epoch.map((ms) => (ms * 1000) / samples.length)))}`);
  } finally {
    device.close();
  }
  return results;
}
