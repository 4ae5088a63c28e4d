// Where does the transformer policy go wrong first? The model acts greedily on a split part's instances; on every screen
// it reaches the oracle says what it would do (OracleTeacher, re-planning after steps that were not its own). For each
// failed episode, the first step where the two differ: a different action type, the right type on another element,
// another text, an oracle step the policy cannot form at all, or a screen the oracle cannot go on from (EXPERIMENTS.md §7).
// It also counts the episodes whose whole oracle solution the policy's action space can form (the ceiling of cloning).
//   npx tsx experiments/transformer-first-error.ts MODEL_DIR unseen-instance test 30 [--verbose]
import { parseAction, type Action } from '../core/actions/schema.js';
import { openSimDroids } from '../core/devices/provider.js';
import { OraclePolicy } from '../core/episode/policies/oracle.js';
import { OracleTeacher } from '../core/episode/policies/oracle-teacher.js';
import type { Policy } from '../core/episode/policy.js';
import { runEpisode } from '../core/episode/runner.js';
import { actionChoice, choiceAction, chooseAction, describeChoice, sameChoice } from '../core/policy/transformer/actions.js';
import { buildStepInputs } from '../core/policy/transformer/inputs.js';
import { ACTION_TYPES } from '../core/policy/transformer/layout.js';
import { TransformerModel } from '../core/policy/transformer/model.js';
import { demonstrationInstances } from '../core/rl/train-sft.js';
import { PARTS, SPLITS } from '../core/tasks/splits.js';

const [dir, split, part, seedList, verbose] = process.argv.slice(2);
const regime = SPLITS.find((s) => s === split);
const splitPart = PARTS.find((p) => p === part);
if (!dir || !regime || !splitPart || !seedList) {
  throw new Error(`usage: transformer-first-error.ts MODEL_DIR (${SPLITS.join('|')}) (${PARTS.join('|')}) SEEDS [--verbose]`);
}
const model = await TransformerModel.load(dir);
const instances = demonstrationInstances({ split: regime, part: splitPart, seeds: seedList.split(',').map(Number) });
const [device] = openSimDroids(1, 'first-error-');
const count = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
const firstErrors = new Map<string, number>();
let solved = 0;
let solvedDespite = 0;
for (const instance of instances) {
  const teacher = new OracleTeacher();
  let first: string | null = null;
  const learner: Policy = {
    name: 'transformer',
    start: (ctx) => teacher.start(ctx),
    async act(obs, ctx) {
      const label: Action | null = teacher.label(obs, ctx);
      const x = buildStepInputs(obs, ctx, model.tokenizer, model.layout);
      const mine = chooseAction(await model.forward(x), model.shape, x.items, null);
      const want = label && actionChoice(label, x, obs, model.shape);
      if (first === null && !(want && sameChoice(want, mine))) {
        if (!label) first = 'the oracle cannot go on from this screen';
        else if (!want) {
          first = `unformable ${label.action_type}`;
          if (verbose) console.log(`${instance.template.id} step ${ctx.step}: oracle ${JSON.stringify(label)} cannot be formed`);
        }
        else {
          const [w, g] = [ACTION_TYPES[want.type]!, ACTION_TYPES[mine.type]!];
          first = w !== g ? `type ${w} → ${g}` : want.pointer !== mine.pointer ? `element of ${w}` : `text of ${w}`;
          if (verbose) console.log(`${instance.template.id} step ${ctx.step}: oracle ${describeChoice(want, x)} | model ${describeChoice(mine, x)}`);
        }
      }
      // The model's choice of the oracle's step is carried out as the oracle wrote it, so the oracle knows it was taken.
      return { action: want && label && sameChoice(want, mine) ? label : choiceAction(mine, x) };
    },
  };
  const r = await runEpisode({ device: device!, instance, policy: learner });
  if (r.success) {
    solved++;
    if (first) solvedDespite++;
  } else count(firstErrors, first ?? 'none (the oracle agreed with every step)');
}
// The ceiling: episodes whose every oracle step the policy's action space can form.
let formable = 0;
for (const instance of instances) {
  const oracle = new OraclePolicy();
  let all = true;
  const spy: Policy = {
    name: 'oracle', start: (ctx) => oracle.start(ctx),
    act(obs, ctx) {
      const decision = oracle.act(obs, ctx);
      const x = buildStepInputs(obs, ctx, model.tokenizer, model.layout);
      if (!actionChoice(parseAction(decision.action), x, obs, model.shape)) all = false;
      return decision;
    },
  };
  await runEpisode({ device: device!, instance, policy: spy });
  if (all) formable++;
}
device!.close();
await model.close();
console.log(`${regime} ${splitPart} seeds ${seedList}: solved ${solved} of ${instances.length} (${solvedDespite} of them despite a step the oracle would not take)`);
console.log('first disagreement in the failures:');
for (const [k, v] of [...firstErrors].sort((a, b) => b[1] - a[1])) console.log(`  ${v}  ${k}`);
console.log(`episodes whose whole oracle solution the policy can form: ${formable} of ${instances.length}`);
