import { parseUiTree, flattenUiTree } from '../../core/a11y/ui-tree.js';
import type { Observation } from '../../core/device/observation.js';
import { OraclePolicy } from '../../core/episode/policies/oracle.js';
import type { StepRecord } from '../../core/episode/record.js';
import { serve, type RunningServer } from '../../core/api/ws/server.js';
import { EnvClient } from '../../core/env/client.js';
import { instantiate } from '../../core/tasks/instance.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { createWorkbench, type Workbench } from '../../core/workbench/index.js';
import { scratch } from '../helpers/scratch.js';

/** A workbench (no adb, no default device) with its environment endpoint served on loopback. */
export async function envServer(opts: { envDevices?: number } = {}): Promise<{ workbench: Workbench; server: RunningServer; close(): Promise<void> }> {
  const tmp = scratch('awb-env-');
  const dir = tmp.dir();
  const workbench = await createWorkbench({ dataDir: dir, adb: false, embeddedDevice: false, ...opts });
  const server = await serve({ api: workbench, env: workbench.env, port: 0, staticDir: dir });
  return {
    workbench, server,
    close: async () => {
      await server.close();
      await workbench.close();
      tmp.cleanup();
    },
  };
}

export function connect(server: RunningServer, client = 'test'): Promise<EnvClient> {
  return EnvClient.connect(server.envUrl, client);
}

/** The observation an agent got, as the workbench's own policies read one (for the oracle as an outside agent). */
export function observationOf(o: { tree: string; foreground: { package: string; activity: string }; screen: { width: number; height: number; density: number } }): Observation {
  const tree = parseUiTree(o.tree);
  return { screen: o.screen, tree, elements: flattenUiTree(tree), foreground: o.foreground };
}

/**
 * Plays the template's oracle as an outside agent over the protocol: each result's XML read back into an observation,
 * the oracle's action sent as the workbench's action. Returns every result, the last one ending the episode.
 */
export async function playOracle(c: EnvClient, session: string, templateId: string, seed: number, first: any): Promise<any[]> {
  const oracle = new OraclePolicy();
  const instance = instantiate(getTemplate(templateId), seed);
  oracle.start({ instance });
  const history: StepRecord[] = [];
  const results: any[] = [];
  let obs = first.observation;
  for (let step = 0; step < 60; step++) {
    const decision = oracle.act(observationOf(obs), { instruction: instance.instruction, step, history, instance });
    const r = await c.request('step', { session, action: decision.action });
    results.push(r);
    const record: StepRecord = { index: step, raw: decision.action, foreground: obs.foreground, timings: { observeMs: 0, policyMs: 0, actMs: 0, settleMs: 0 }, startedAt: 0 };
    if (r.info.action) record.action = r.info.action;
    history.push(record);
    if (r.terminated || r.truncated) return results;
    obs = r.observation;
  }
  throw new Error(`${templateId} #${seed}: the oracle did not finish in 60 steps`);
}
