import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { observe, type Observation } from '../../core/device/observation.js';
import type { StepRecord } from '../../core/episode/record.js';
import { SimDroid } from '../../emulators/simdroid/simdroid.js';
import {
  EndpointProfiles, PromptTemplateError, PromptTemplateNotLoadedError, VlmPolicy, VlmPolicySettings, type ChatMessage, type Completion,
  type VlmPolicySettingsInput,
} from '../../core/policy/vlm/index.js';
import { vlmSettingsFromFlags } from '../../core/cli/policies.js';
import { UsageError } from '../../core/cli/args.js';
import { loadPromptTemplate, withPromptTemplate } from '../../core/workbench/prompt-templates.js';
import { tempDir } from '../store/helpers.js';
import { PYTHON, PythonEnvMissingError } from '../python-env.js';

/**
 * Prompt templates (issue 18): the prompt the model was trained on, loaded at run time from the
 * installed package (here the real ui-tars package, by the real Python) or from a user's file, is
 * what the request carries, its placeholders filled as Python's str.format fills them.
 */
const INSTRUCTION = 'Open Contacts and add "Ann O\'Neil" {not a placeholder}';
const TARS = { package: 'ui-tars', name: 'MOBILE_USE_DOUBAO', python: PYTHON } as const;
const base = (extra: Partial<VlmPolicySettingsInput> = {}): VlmPolicySettings => VlmPolicySettings.parse({
  endpoint: { baseUrl: 'http://127.0.0.1:9/v1', model: 'ui-tars' }, format: 'ui-tars', ...extra,
});

/** A policy whose endpoint is this test: it records each request's messages and answers press_home(). */
class Recording extends VlmPolicy {
  requests: ChatMessage[][] = [];
  protected override complete(messages: ChatMessage[]): Promise<Completion> {
    this.requests.push(messages);
    return Promise.resolve({ text: 'Thought: home\nAction: press_home()', attempts: 1, latencyMs: 0, queuedMs: 0 });
  }
}

let obs: Observation;
const dirs: Array<{ dir: string; cleanup(): void }> = [];
const temp = () => {
  const t = tempDir('awb-template-');
  dirs.push(t);
  return t.dir;
};
beforeAll(async () => {
  if (!existsSync(PYTHON)) throw new PythonEnvMissingError(PYTHON, 'no such file');
  obs = await observe(new SimDroid({ serial: 'simdroid-template-test' }), { screenshot: true, scale: 0.5 });
});
afterAll(() => dirs.forEach((d) => d.cleanup()));

const textOf = (m: ChatMessage) => (typeof m.content === 'string' ? m.content : m.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n'));
const images = (m: ChatMessage) => (typeof m.content === 'string' ? 0 : m.content.filter((p) => p.type === 'image_url').length);

describe('prompt templates', () => {
  it('the request carries the installed ui-tars template, its {instruction} and {language} filled as Python fills them', async () => {
    const expected = JSON.parse(execFileSync(PYTHON, ['-c', [
      'import json, sys', 'from ui_tars.prompt import MOBILE_USE_DOUBAO',
      'print(json.dumps(MOBILE_USE_DOUBAO.format(instruction=sys.argv[1], language="English")))',
    ].join('\n'), INSTRUCTION], { encoding: 'utf8' })) as string;
    expect(expected).toContain(INSTRUCTION);

    const policy = new Recording(withPromptTemplate(base({ promptTemplate: TARS, historyStyle: 'turns', historySteps: 2 })));
    const decided = await policy.act(obs, { instruction: INSTRUCTION, step: 0, history: [] });
    expect(decided.action).toEqual({ action_type: 'navigate_home' });
    const [first] = policy.requests;
    // No system turn of ours: the template is the first user turn, then the screenshot.
    expect(first!.map((m) => m.role)).toEqual(['user', 'user']);
    expect(textOf(first![0]!)).toBe(expected);
    expect(images(first![1]!)).toBe(1);

    const step0 = { index: 0, action: { action_type: 'navigate_home' }, description: 'Go home' } as unknown as StepRecord;
    await policy.act(obs, { instruction: INSTRUCTION, step: 1, history: [step0] });
    const second = policy.requests[1]!;
    expect(textOf(second[0]!)).toBe(expected);
    expect(second.map((m) => m.role)).toEqual(['user', 'user', 'assistant', 'user']);
    expect(second[2]!.content).toBe('Thought: home\nAction: press_home()');
  });

  it('a user template file: every documented placeholder filled, {{ }} are braces; history goes in {history}', async () => {
    const file = join(temp(), 'prompt.txt');
    writeFileSync(file, 'Task: {instruction} ({language})\nApp: {app}\nScreen {screen_width}x{screen_height}, answer in {frame_width}x{frame_height}\nDone:\n{history}\nJSON: {{"a": 1}}');
    const policy = new Recording(withPromptTemplate(base({ promptTemplate: { file }, promptLanguage: 'Deutsch', coordinates: 'relative-1000' })));
    const step0 = { index: 0, action: { action_type: 'navigate_home' }, description: 'Go home' } as unknown as StepRecord;
    await policy.act(obs, { instruction: 'Find the clock', step: 1, history: [step0] });
    const [msgs] = policy.requests;
    expect(msgs!.length).toBe(1);
    expect(textOf(msgs![0]!)).toBe(`Task: Find the clock (Deutsch)\nApp: ${obs.foreground.package}\nScreen 1080x2400, answer in 1000x1000\nDone:\nStep 1: Go home\nJSON: {"a": 1}`);
    expect(images(msgs![0]!)).toBe(1);
  });

  it('what does not load is a named error naming the template and the fault', () => {
    const dir = temp();
    const bad = join(dir, 'bad.txt');
    writeFileSync(bad, 'Do {instructions} now');
    const err = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        expect(e).toBeInstanceOf(PromptTemplateError);
        return (e as Error).message;
      }
      throw new Error('loaded');
    };
    expect(err(() => loadPromptTemplate({ file: bad }))).toMatch(/bad\.txt: unknown placeholder "\{instructions\}"/);
    expect(err(() => loadPromptTemplate({ file: join(dir, 'none.txt') }))).toMatch(/none\.txt: cannot read the file \(ENOENT\)/);
    expect(err(() => loadPromptTemplate({ ...TARS, name: 'MOBILE_USE_NOPE' }))).toMatch(/ui-tars:MOBILE_USE_NOPE: ui_tars\.prompt has no template MOBILE_USE_NOPE \(its templates: .*MOBILE_USE_DOUBAO/);
    expect(err(() => loadPromptTemplate({ ...TARS, python: join(dir, 'no-python') }))).toMatch(/cannot run .*no-python/);
    // The settings refuse a package template for another format, and a policy refuses an unloaded template.
    expect(VlmPolicySettings.safeParse({ ...base(), format: 'androidworld', promptTemplate: TARS }).error?.issues[0]?.path).toEqual(['promptTemplate']);
    expect(() => new VlmPolicy(base({ promptTemplate: TARS }))).toThrow(PromptTemplateNotLoadedError);
  });

  it('the ui-tars package loads after the standard setup without AWB_PYTHON: the repository\'s .venv is the default Python', () => {
    // python3 on PATH has no ui_tars here; the .venv (./scripts/setup) does.
    const text = loadPromptTemplate({ package: 'ui-tars', name: 'MOBILE_USE_DOUBAO' }, { env: { PATH: process.env.PATH } });
    expect(text).toContain('{instruction}');
  });

  it('awb run --help names --preset and --prompt-template', async () => {
    const { main } = await import('../../core/cli/main.js');
    const out: string[] = [];
    expect(await main(['run', '--help'], { out: (l) => out.push(l), err: (l) => out.push(l) })).toBe(0);
    expect(out.join('\n')).toMatch(/--prompt-template ui-tars:NAME\|FILE/);
    expect(out.join('\n')).toMatch(/--preset ui-tars-1\.5-7b\|ui-tars-7b\|qwen2\.5-vl-3b\|qwen2\.5-vl-7b\|mobilerl-9b\|androidworld-t3a\|androidworld-m3a/);
  });

  it('--prompt-template ui-tars:NAME loads at the CLI; a profile keeps the reference, never the text', () => {
    const dir = temp();
    const before = process.env.AWB_PYTHON;
    process.env.AWB_PYTHON = PYTHON;
    try {
      const profiles = EndpointProfiles.inDataDir(dir);
      const flags = { 'base-url': 'http://127.0.0.1:9/v1', model: 'm', format: 'ui-tars' as const, 'prompt-template': 'ui-tars:MOBILE_USE_DOUBAO' };
      const s = vlmSettingsFromFlags(flags, profiles);
      expect(s.promptTemplate).toEqual({ package: 'ui-tars', name: 'MOBILE_USE_DOUBAO' });
      expect(s.promptTemplateText).toMatch(/\{instruction\}/);
      profiles.save('tars', s);
      const stored = readFileSync(join(dir, 'endpoints.json'), 'utf8');
      expect(JSON.parse(stored).profiles.tars.promptTemplate).toEqual({ package: 'ui-tars', name: 'MOBILE_USE_DOUBAO' });
      expect(stored).not.toContain('promptTemplateText');
      expect(() => vlmSettingsFromFlags({ ...flags, 'prompt-template': join(dir, 'missing.txt') }, profiles)).toThrow(UsageError);
    } finally {
      if (before === undefined) delete process.env.AWB_PYTHON;
      else process.env.AWB_PYTHON = before;
    }
  });
});
