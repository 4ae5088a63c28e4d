import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimDroid } from '../../emulators/simdroid/simdroid.js';
import { runEpisode } from '../../core/episode/runner.js';
import { instantiate } from '../../core/tasks/instance.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { createPolicy, PolicySpecSchema, taskOf } from '../../core/policy/registry.js';
import { parseReplies, readRepliesFile, RepliesFileError } from '../../core/policy/vlm/replay.js';
import { bridgedWorkbench, type BridgedWorkbench } from '../helpers/bridged-workbench.js';

/**
 * A recorded qwen-mobile-use trace of ContactsAddContact seed 0 (what Qwen2.5-VL writes: absolute
 * pixels of the smart-resized half-scale screenshot, 532x1204), with one truncated tool call at
 * step 4 that the model then repeats whole.
 */
const TRACE = new URL('../fixtures/vlm-traces/contacts-add-qwen-mobile-use.json', import.meta.url);
const instance = instantiate(getTemplate('ContactsAddContact'), 0);
/** What each step should do on the live screen: the runner's description of the executed action (a tap names the element it hit). */
const INTENT = [
  'Open Contacts', 'Tap "Create contact" in Contacts', 'Tap "First name" in Contacts', 'Type "Grace" into "first name" in Contacts',
  null, 'Tap "Last name" in Contacts', 'Type "Bauer" into "last name" in Contacts', 'Tap "Phone" in Contacts',
  'Type "846-987-9346" into "phone 0" in Contacts', 'Tap "Save" in Contacts', 'Declare the task complete',
];

let replies: string[];
let device: SimDroid;
beforeAll(() => {
  replies = readRepliesFile(TRACE.pathname);
  device = new SimDroid({ serial: 'simdroid-vlm-replay' });
});
afterAll(() => device.close());

const spec = (r: string[]) => PolicySpecSchema.parse({ name: 'vlm-replay', replies: r, format: 'qwen-mobile-use' });

describe('replaying recorded VLM replies on SimDroid', () => {
  it('re-executes a corpus trace through the format parser: the taps land on their elements, the format error is recorded, the task succeeds', async () => {
    const policy = createPolicy(spec(replies), { task: taskOf(instance) });
    const result = await runEpisode({ device, instance, policy, screenshots: 'half', onMalformed: 'continue' });
    expect(result.policy).toBe('vlm-replay:qwen-mobile-use');
    expect(result.steps.map((s) => s.description ?? null)).toEqual(INTENT);
    // The task's own check on the device, not the trace's say-so.
    expect(result).toMatchObject({ success: true, status: 'success', terminatedBy: 'status' });
    expect(result.steps[1]!.action).toEqual({ action_type: 'click', x: Math.round((475 * 1080) / 532), y: Math.round((1009 * 2400) / 1204) });
    // The truncated call is the step's format error, recorded as VlmPolicy records one: the runner's ActionParseError
    // leading with the VlmFormatError, `raw` holding the format and the output, `thought` the reply verbatim.
    const bad = result.steps[4]!;
    expect(bad.action).toBeUndefined();
    expect(bad.error?.name).toBe('ActionParseError');
    const truncated = 'VlmFormatError: the tool call is truncated (its {...} never closes)';
    expect(bad.error?.message).toContain(truncated);
    expect(bad.raw).toEqual({ vlm_format_error: expect.stringMatching(/^VlmFormatError: the tool call is truncated \(its \{\.\.\.\} never closes\): "\{\\"name\\"/), format: 'qwen-mobile-use', output: replies[4] });
    expect(result.steps.map((s) => s.thought)).toEqual(replies);
  });

  it('ends the episode with RepliesExhaustedError when the trace runs out first (a policy error: no verdict on the task)', async () => {
    const policy = createPolicy(spec(replies.slice(0, 2)), { task: taskOf(instance) });
    const result = await runEpisode({ device, instance, policy, screenshots: 'half' });
    expect(result.steps.map((s) => s.description)).toEqual(INTENT.slice(0, 2));
    expect(result).toMatchObject({ status: 'error', terminatedBy: 'policy_error', error: { name: 'RepliesExhaustedError' } });
    expect(result.error!.message).toBe('Step 2: the recorded replies ran out (2 replies, for steps 0 to 1)');
  });

  it('reads replies one per line or as a JSON array, and names what is wrong with a file', () => {
    expect(parseReplies('click(start_box=\'(1,2)\')\n\n  \nwait()\n', 'x')).toEqual(["click(start_box='(1,2)')", 'wait()']);
    expect(parseReplies('\uFEFF["a\\nb", ""]', 'x')).toEqual(['a\nb', '']);
    const bad = (text: string) => {
      try {
        parseReplies(text, 'f.txt');
      } catch (e) {
        expect(e).toBeInstanceOf(RepliesFileError);
        return (e as Error).message;
      }
      return 'no error';
    };
    expect(bad('\n \n')).toBe('Replies from f.txt: no replies (one per line, or a JSON array of strings)');
    expect(bad('["a", 3]')).toBe('Replies from f.txt: item 1 is 3, not a string');
    expect(bad('[oops')).toMatch(/^Replies from f\.txt: starts with "\[" but is not a JSON array: /);
    expect(() => readRepliesFile('/nonexistent/replies.txt')).toThrow('Replies from /nonexistent/replies.txt: cannot read it (ENOENT)');
  });
});

describe('a vlm-replay session in the Agent view (renderer store → bridge → workbench)', () => {
  let wb: BridgedWorkbench;
  beforeAll(async () => {
    wb = await bridgedWorkbench('awb-vlm-replay-', { embeddedDevice: true });
  });
  afterAll(async () => wb.close());

  it('is offered, refuses to start without replies, and runs the trace to the same success', async () => {
    const s = wb.store;
    await s.getState().loadAgent();
    expect(s.getState().agentPolicies.map((p) => p.name)).toContain('vlm-replay');
    // The API's own schema pairs the policy with its replies (a page cannot start one without).
    const serial = s.getState().agentDevices[0]!.serial;
    await expect(wb.store.api.startSession({ serial, templateId: instance.template.id, seed: 0, policy: 'vlm-replay' }))
      .rejects.toMatchObject({ name: 'ApiInputError', message: expect.stringContaining('replies') });
    s.getState().setAgentForm({ templateId: instance.template.id, seed: '0', policy: 'vlm-replay', repliesFormat: 'qwen-mobile-use', repliesText: readFileSync(TRACE, 'utf8') });
    await s.getState().startAgentSession();
    const id = s.getState().sessionId!;
    expect(id).toBeTruthy();
    await wb.workbench.controlSession({ sessionId: id, command: 'run' });
    const end = Date.now() + 20_000;
    while ((await wb.workbench.getSession({ sessionId: id })).result === null && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    const info = await wb.workbench.getSession({ sessionId: id });
    expect(info.policy).toBe('vlm-replay:qwen-mobile-use');
    // The session goes on past the format error, as the recorded run did.
    expect(info.steps.map((st) => st.description)).toEqual(INTENT);
    expect(info.result).toMatchObject({ status: 'success', terminatedBy: 'status' });
  });
});
