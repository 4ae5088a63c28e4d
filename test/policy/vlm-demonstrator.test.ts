import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimDroid } from '../../emulators/simdroid/simdroid.js';
import { vlmFormat } from '../../core/policy/vlm/formats/index.js';
import { readTar } from '../../core/util/tar.js';
import { recordVlmDemonstrations, vlmDemonstrationBundle, type VlmDemonstration } from '../../core/remote-jobs/vlm-demonstrations.js';
import { openStore, type WritableDB } from '../../core/store/db.js';
import { createRun } from '../../core/store/runs.js';
import { instantiate } from '../../core/tasks/instance.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { scratch } from '../helpers/scratch.js';

/**
 * VlmDemonstrator on SimDroid: the oracle's episodes answered in qwen-mobile-use (no element indices: typing goes to
 * the focused field), recorded, and exported as the vlm-sft bundle the trainer reads.
 */
const tmp = scratch('awb-vlm-demo-');
const device = new SimDroid({ serial: 'simdroid-vlm-demo' });
const format = vlmFormat('qwen-mobile-use');
let db: WritableDB;
let demos: VlmDemonstration[];
let lines: Array<{ template: string; steps: Array<Record<string, unknown>> }>;
let tar: Map<string, Buffer>;

beforeAll(async () => {
  db = openStore(':memory:');
  const run = createRun(db, { kind: 'training', name: 'demonstrations' });
  // Typing a contact's name (by index for the oracle), and editing a number (the oracle clears the field first: a
  // qwen-mobile-use "type" cannot, so that demonstration fails and stays out of the bundle).
  const instances = [instantiate(getTemplate('ContactsAddContact'), 1), instantiate(getTemplate('ContactsEditNumber'), 1)];
  demos = await recordVlmDemonstrations({ db, run: run.id, device, instances, settings: { format: 'qwen-mobile-use', minPixels: 3136, maxPixels: 12544 } });
  const { bundle } = vlmDemonstrationBundle(db, demos, { file: join(tmp.dir(), 'demos.tar'), createdAt: 0 });
  tar = readTar(readFileSync(bundle.file));
  lines = tar.get('episodes.jsonl')!.toString('utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as (typeof lines)[number]);
});
afterAll(() => {
  db.close();
  device.close();
  tmp.cleanup();
});

describe('VlmDemonstrator', () => {
  it('reaches success writing the oracle in the format: a field typed by index is tapped first, then typed into', () => {
    const [add, edit] = demos;
    expect(add!.result.status, JSON.stringify(add!.result.steps.map((s) => [s.raw, s.error?.message]))).toBe('success');
    expect(add!.result.policy).toBe('vlm-demo:oracle');
    const steps = add!.result.steps;
    const typed = steps.findIndex((s) => s.action?.action_type === 'input_text');
    expect(typed).toBeGreaterThan(0);
    expect(steps[typed - 1]!.action?.action_type).toBe('click');
    expect(steps.every((s) => !s.error && typeof s.thought === 'string' && s.thought.includes('<tool_call>'))).toBe(true);
    expect(edit!.result.status).toBe('failure');
  });

  it('bundles the successful episodes only, each step with the chat VlmPolicy sends and the completion as raw', () => {
    expect(lines.map((l) => l.template)).toEqual(['ContactsAddContact']);
    const steps = lines[0]!.steps;
    expect(steps.length).toBe(demos[0]!.result.steps.length);
    for (const s of steps) {
      expect(s.raw).toBe(s.thought);
      const messages = s.messages as Array<{ role: string; content: unknown }>;
      expect(messages.map((m) => m.role)).toEqual(['system', 'user']);
      expect(messages[0]!.content).toBe(format.systemPrompt({
        screen: { width: 1080, height: 2400 }, coordinates: 'smart-resize', frame: { width: 56, height: 140 }, withScreenshot: true, withElements: false,
      }));
      // The image names the step whose screenshot it is (this one's).
      expect(messages[1]!.content).toEqual([{ type: 'text', text: expect.stringContaining('Task: ') }, { type: 'image', step: s.index }]);
      expect(tar.has(s.screenshot as string)).toBe(true);
    }
    // The completion parses back to the action the step recorded (the format's own coordinates, 56x140 here).
    const last = steps.at(-1)!;
    expect(format.parse(last.raw as string, { screen: { width: 1080, height: 2400 }, coordinates: 'smart-resize', image: { width: 540, height: 1200 }, minPixels: 3136, maxPixels: 12544, expectsAnswer: false }).action).toEqual(last.action);
  });
});
