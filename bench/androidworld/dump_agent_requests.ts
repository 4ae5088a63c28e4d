/**
 * Requests of the androidworld-t3a and androidworld-m3a presets, for checking them against AndroidWorld's own T3A and
 * M3A prompt functions (docs/policy-vlm.md "Presets"): the oracle's episode of each of the first N templates (seed 1,
 * full-size screenshots), demonstrated in the androidworld format; per step the screen's XML and size, the reply, the
 * action prompt sent, and the summary call's prompt and reply made at that step; for M3A, each step's screenshot and
 * its set-of-marks as sent, and the summary's "after" picture, as PNG files beside the JSON.
 *   node --import tsx bench/androidworld/dump_agent_requests.ts ANDROID_WORLD_CHECKOUT OUT_DIR [N]
 *   python bench/androidworld/agent_requests.py --aw ANDROID_WORLD_CHECKOUT OUT_DIR   (with opencv-python for M3A's marks)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serializeUiTree } from '../../core/a11y/ui-tree.js';
import { openSimDroid } from '../../core/devices/provider.js';
import { OraclePolicy } from '../../core/episode/policies/oracle.js';
import { runEpisode } from '../../core/episode/runner.js';
import { drawSetOfMarks } from '../../core/policy/vlm/agents/set-of-marks.js';
import { VlmDemonstrator } from '../../core/policy/vlm/demonstrator.js';
import type { ChatMessage } from '../../core/policy/vlm/prompt.js';
import { VlmPolicySettings } from '../../core/policy/vlm/settings.js';
import { instantiate } from '../../core/tasks/instance.js';
import { TASKS } from '../../core/tasks/registry.js';
import { withPromptTemplate } from '../../core/workbench/prompt-templates.js';

const [aw, out, n = '20'] = process.argv.slice(2);
if (!aw || !out) throw new Error('usage: dump_agent_requests.ts ANDROID_WORLD_CHECKOUT OUT_DIR [N]');
mkdirSync(out, { recursive: true });
const device = openSimDroid({ serial: 'simdroid-aw-agents' });
const png = (url: string) => Buffer.from(url.split(',', 2)[1]!, 'base64');
const episodes: unknown[] = [];
for (const preset of ['androidworld-t3a', 'androidworld-m3a'] as const) {
  const { endpoint: _e, ...settings } = withPromptTemplate(VlmPolicySettings.parse({ preset, promptTemplate: { file: aw }, endpoint: { baseUrl: 'http://x.invalid/v1' } }));
  for (const t of TASKS.slice(0, Number(n))) {
    const sent: ChatMessage[][] = [];
    const steps: Array<Record<string, unknown>> = [];
    const demo = new VlmDemonstrator(new OraclePolicy(), settings, { onRequest: (_k, m) => sent.push(m as ChatMessage[]) });
    const instance = instantiate(t, 1);
    const result = await runEpisode({
      device, instance, policy: demo, screenshots: 'full',
      onStep: (s, obs) => void steps.push({ xml: serializeUiTree(obs.tree), screen: obs.screen, reply: s.thought, summary: s.request?.summary ?? null, shot: obs.screenshot }),
    });
    for (const [k, s] of steps.entries()) {
      const content = sent[k]![0]!.content as Array<{ type: string; text?: string; image_url?: { url: string } }>;
      s.prompt = content[0]!.text;
      const shot = s.shot as Buffer | undefined;
      delete s.shot;
      if (preset === 'androidworld-m3a' && shot) {
        const base = `${t.id}-${k}`;
        writeFileSync(join(out, `${base}-raw.png`), png(content[1]!.image_url!.url));
        writeFileSync(join(out, `${base}-som.png`), png(content[2]!.image_url!.url));
        const after = await drawSetOfMarks(shot, [], { screen: s.screen as { width: number; height: number }, afterLabel: true });
        writeFileSync(join(out, `${base}-label.png`), after);
        s.images = base;
      }
    }
    episodes.push({ preset, template: t.id, goal: instance.instruction, terminatedBy: result.terminatedBy, steps });
  }
}
device.close();
writeFileSync(join(out, 'episodes.json'), JSON.stringify(episodes));
console.log(`${episodes.length} episodes → ${out}`);
