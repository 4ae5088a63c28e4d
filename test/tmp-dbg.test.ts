import { it } from 'vitest';
import { instantiate } from '../core/tasks/instance.js';
import { runEpisode } from '../core/episode/runner.js';
import { OraclePolicy } from '../core/episode/policies/oracle.js';
import { getTemplate } from '../core/tasks/registry.js';
import { device } from './helpers/simdroid.js';
it('dbg', async () => {
  const d = device();
  const t = getTemplate(process.env.T!);
  const inst = instantiate(t, Number(process.env.S ?? 0));
  const r = await runEpisode({ device: d, instance: inst, policy: new OraclePolicy() });
  console.log(inst.instruction, r.success, r.error?.message);
  console.log(JSON.stringify((await t.check(d, inst.params, { actions: [], answer: (r as any).answer })).conditions.filter((c) => !c.ok), null, 1));
  d.close();
});
