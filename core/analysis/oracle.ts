import { openSimDroid } from '../devices/provider.js';
import type { Device } from '../device/device.js';
import { OraclePolicy } from '../episode/policies/oracle.js';
import { runEpisode } from '../episode/runner.js';
import { instantiate } from '../tasks/instance.js';
import { getTemplate } from '../tasks/registry.js';
import type { EpisodePath, PathStep } from './path.js';

/** The oracle's path on a task instance, run now on an in-process SimDroid (a fresh one unless `device` is given). */
export async function oraclePath(templateId: string, seed: number, device?: Device): Promise<{ path: EpisodePath | null; why: string }> {
  const own = device ? null : openSimDroid({ serial: 'simdroid-analysis' });
  const steps: PathStep[] = [];
  let finalXml: string | null = null;
  try {
    const r = await runEpisode({
      device: device ?? own!, instance: instantiate(getTemplate(templateId), seed), policy: new OraclePolicy(),
      recorder: {
        begin() {},
        step(s, before) {
          steps.push({
            index: s.index, foreground: s.foreground, xml: before.xml,
            ...(s.action ? { action: s.action } : {}), ...(s.description !== undefined ? { description: s.description } : {}),
            ...(s.error ? { error: s.error } : {}), ...(s.target ? { targetLabel: s.target.label } : {}),
          });
        },
        end(_r, final) { finalXml = final.xml; },
      },
    });
    if (r.status !== 'success') return { path: null, why: `${r.status}, ended by ${r.terminatedBy}` };
    return { path: { label: 'oracle', episodeId: null, seed, steps, finalXml }, why: '' };
  } finally {
    own?.close();
  }
}
