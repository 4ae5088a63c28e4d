// Does the transformer policy read the app the goal names? On each test instance of a regime (evaluation seeds 30, 7,
// 1234) whose oracle opens an app first and whose goal names that app, the model's greedy first action on the home
// screen: its action type, and the app its open_app pointer picks (EXPERIMENTS.md §7).
//   npx tsx experiments/transformer-home-probe.ts MODEL_DIR unseen-template [--verbose]
import { parseAction, type Action } from '../core/actions/schema.js';
import type { Observation } from '../core/device/observation.js';
import { openSimDroids } from '../core/devices/provider.js';
import { OraclePolicy } from '../core/episode/policies/oracle.js';
import type { Policy, PolicyContext } from '../core/episode/policy.js';
import { runEpisode } from '../core/episode/runner.js';
import { buildStepInputs } from '../core/policy/transformer/inputs.js';
import { ACTION_TYPES, POINTER_TYPES } from '../core/policy/transformer/layout.js';
import { TransformerModel } from '../core/policy/transformer/model.js';
import { TASKS } from '../core/tasks/registry.js';
import { SPLITS, splitInstances } from '../core/tasks/splits.js';

const [dir, split, verbose] = process.argv.slice(2);
const regime = SPLITS.find((s) => s === split);
if (!dir || !regime) throw new Error(`usage: transformer-home-probe.ts MODEL_DIR (${SPLITS.join('|')}) [--verbose]; got ${dir} ${split}`);
const model = await TransformerModel.load(dir);
const [device] = openSimDroids(1, 'probe-');
const openApp = ACTION_TYPES.indexOf('open_app');
const row = POINTER_TYPES.indexOf('open_app');
const argmax = (xs: ArrayLike<number>) => Array.from(xs).reduce((b, v, i, a) => (v > a[b]! ? i : b), 0);
let episodes = 0, opensApp = 0, picksNamedApp = 0;
for (const inst of splitInstances(TASKS, regime, 'test').filter((i) => [30, 7, 1234].includes(i.seed))) {
  const oracle = new OraclePolicy();
  let first: { obs: Observation; ctx: PolicyContext; action: Action } | undefined;
  const spy: Policy = {
    name: 'oracle', start: (c) => oracle.start(c),
    act(obs, ctx) { const d = oracle.act(obs, ctx); first ??= { obs, ctx, action: parseAction(d.action) }; return d; },
  };
  await runEpisode({ device: device!, instance: inst, policy: spy, maxSteps: 1 });
  if (first?.action.action_type !== 'open_app') continue;
  const want = first.action.app_name;
  if (!inst.instruction.toLowerCase().includes(want.toLowerCase())) continue;
  const x = buildStepInputs(first.obs, first.ctx, model.tokenizer, model.layout);
  const lp = await model.forward(x);
  const type = argmax(lp.type);
  const picked = x.decode.items[argmax(lp.pointer.subarray(row * x.items, (row + 1) * x.items))]?.app;
  episodes++;
  if (type === openApp) opensApp++;
  if (type === openApp && picked === want) picksNamedApp++;
  if (verbose) console.log(`${inst.template.id} seed ${inst.seed}: wants ${want}, ${ACTION_TYPES[type]} ${picked ?? ''}`);
}
console.log(JSON.stringify({ model: dir, split: regime, episodes, firstActionOpenApp: opensApp, opensTheNamedApp: picksNamedApp }));
device!.close();
await model.close();
