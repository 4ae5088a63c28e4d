// Teacher-forced agreement of the transformer policy with the oracle, head by head (EXPERIMENTS.md §7): on every step
// of the oracle's own episodes of a split part, the model's greedy choice against the oracle's. Run it on a train part
// and on a test part to see what generalises to new instances: the action type, the element, or the text.
//   npx tsx experiments/transformer-agreement.ts MODEL_DIR unseen-instance test 30
import { parseAction } from '../core/actions/schema.js';
import { openSimDroids } from '../core/devices/provider.js';
import { OraclePolicy } from '../core/episode/policies/oracle.js';
import type { Policy } from '../core/episode/policy.js';
import { runEpisode } from '../core/episode/runner.js';
import { actionChoice, chooseAction, sameChoice } from '../core/policy/transformer/actions.js';
import { buildStepInputs } from '../core/policy/transformer/inputs.js';
import { ACTION_TYPES } from '../core/policy/transformer/layout.js';
import { TransformerModel } from '../core/policy/transformer/model.js';
import { demonstrationInstances } from '../core/rl/train-sft.js';
import { PARTS, SPLITS } from '../core/tasks/splits.js';

const [dir, split, part, seedList] = process.argv.slice(2);
const regime = SPLITS.find((s) => s === split);
const splitPart = PARTS.find((p) => p === part);
if (!dir || !regime || !splitPart || !seedList) throw new Error(`usage: transformer-agreement.ts MODEL_DIR (${SPLITS.join('|')}) (${PARTS.join('|')}) SEEDS`);
const model = await TransformerModel.load(dir);
const instances = demonstrationInstances({ split: regime, part: splitPart, seeds: seedList.split(',').map(Number) });
const [device] = openSimDroids(1, 'agreement-');
const tally = { steps: [0, 0], type: [0, 0], element: [0, 0], text: [0, 0], episodes: [0, 0] };
const byType = new Map<string, [number, number]>();
for (const instance of instances) {
  const oracle = new OraclePolicy();
  let all = true;
  const spy: Policy = {
    name: 'oracle', start: (ctx) => oracle.start(ctx),
    async act(obs, ctx) {
      const decision = oracle.act(obs, ctx);
      const x = buildStepInputs(obs, ctx, model.tokenizer, model.layout);
      const want = actionChoice(parseAction(decision.action), x, obs, model.shape);
      if (!want) {
        all = false;
        return decision;
      }
      const got = chooseAction(await model.forward(x), model.shape, x.items, null);
      const ok = sameChoice(want, got);
      const typeOk = got.type === want.type;
      tally.steps[1]!++;
      tally.type[1]!++;
      if (ok) tally.steps[0]!++;
      if (typeOk) tally.type[0]!++;
      if (want.pointer !== undefined) {
        tally.element[1]!++;
        if (typeOk && got.pointer === want.pointer) tally.element[0]!++;
      }
      if (want.text) {
        tally.text[1]!++;
        if (typeOk && got.text && sameChoice({ type: 0, text: want.text }, { type: 0, text: got.text })) tally.text[0]!++;
      }
      const t = ACTION_TYPES[want.type]!;
      const row = byType.get(t) ?? [0, 0];
      byType.set(t, [row[0] + (ok ? 1 : 0), row[1] + 1]);
      if (!ok) all = false;
      return decision;
    },
  };
  await runEpisode({ device: device!, instance, policy: spy });
  tally.episodes[1]!++;
  if (all) tally.episodes[0]!++;
}
device!.close();
await model.close();
const pct = ([a, b]: number[]) => `${((100 * a!) / Math.max(1, b!)).toFixed(1)}% (${a}/${b})`;
console.log(`${regime} ${splitPart} seeds ${seedList}: steps ${pct(tally.steps)}; action type ${pct(tally.type)}; element ${pct(tally.element)}; `
  + `text ${pct(tally.text)}; episodes with every step agreed ${pct(tally.episodes)}`);
console.log([...byType].map(([t, r]) => `${t} ${pct(r)}`).join('; '));
