import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../core/cli/main.js';
import { appByPackage } from '../../core/device/app-catalog.js';
import { OraclePolicy } from '../../core/episode/policies/oracle.js';
import { runEpisode } from '../../core/episode/runner.js';
import type { RecordedMessage } from '../../core/episode/record.js';
import { VlmDemonstrator } from '../../core/policy/vlm/demonstrator.js';
import { mobileRlElementsText } from '../../core/policy/vlm/formats/mobilerl-elements.js';
import { modelFrame } from '../../core/policy/vlm/geometry.js';
import type { ChatMessage } from '../../core/policy/vlm/prompt.js';
import { VLM_PRESETS, VLM_PRESET_IDS, type VlmPresetId } from '../../core/policy/vlm/presets.js';
import type { VlmPolicySettingsInput } from '../../core/policy/vlm/settings.js';
import { instantiate } from '../../core/tasks/instance.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { withPromptTemplate } from '../../core/workbench/prompt-templates.js';
import { SimDroid } from '../../emulators/simdroid/simdroid.js';
import type { Observation } from '../../core/device/observation.js';
import { requirePython } from '../python-env.js';
import { tempDir } from '../store/helpers.js';

/**
 * Each preset's request equals its official agent's (issue 31). The expected requests (vlm-presets/*.json) were taken
 * by hand from the official code, which is named with how in each file's "how"; they hold no official prose: the
 * prompt comes from the installed package (ui-tars, filled by Python's str.format) or from the file the user points
 * at, here stand-ins written by this test in the official files' shape (a Python module with the constant, the
 * cookbook's tool class), read by the workbench's loader as it reads the real ones. The episode is the oracle's,
 * each reply written in the model's format (VlmDemonstrator), so the screens change as a real run's would.
 */
interface Fixture {
  preset: VlmPresetId;
  task: string;
  seed: number;
  step: number;
  screenshots?: 'half' | 'full';
  params: Record<string, unknown>;
  messages: unknown[];
}
const FIXTURES = join(import.meta.dirname, 'vlm-presets');
const fixtures = readdirSync(FIXTURES).filter((f) => f.endsWith('.json')).map((f) => JSON.parse(readFileSync(join(FIXTURES, f), 'utf8')) as Fixture);

let tmp: ReturnType<typeof tempDir>;
const files: Record<string, string> = {};

function python(code: string, ...args: string[]): string {
  const r = spawnSync(requirePython(), ['-c', code, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout;
}

beforeAll(() => {
  tmp = tempDir('awb-vlm-presets-');
  // Stand-ins in the shape of the official files (their text is not ours to copy).
  files['ui-tars-7b'] = join(tmp.dir, 'ui-tars-v1-mobile.txt');
  writeFileSync(files['ui-tars-7b'], 'You are a GUI agent (stand-in prompt).\n\n## Action Space\nclick(start_box=\'<|box_start|>(x1,y1)<|box_end|>\')\n\n## User Instruction\n');
  files['mobilerl-9b'] = join(tmp.dir, 'android_screenshot_template.py');
  writeFileSync(files['mobilerl-9b'], "OTHER_PROMPT = '''not this one'''\n\nAW_SYSTEM_PROMPT_THINKING =  '''# Setup (stand-in)\nReply as <think>...</think><answer>do(...)</answer>; "
    + "JSON like {\"a\": 1} stays as it is.''' + '\\nREMEMBER: one line.'\n");
  const tool = join(tmp.dir, 'agent_function_call.py');
  writeFileSync(tool, [
    'from qwen_agent.tools.base import BaseTool, register_tool',
    '',
    '@register_tool("mobile_use")',
    'class MobileUse(BaseTool):',
    '    @property',
    '    def description(self):',
    '        return f"""',
    'Stand-in mobile tool. Screen: {self.display_width_px}x{self.display_height_px}. Ünïcode stays.',
    '""".strip()',
    '',
    '    parameters = {"properties": {"action": {"description": "what to do", "enum": ["click", "open"], "type": "string"},',
    '                  "coordinate": {"description": "(x, y)", "type": "array"}}, "required": ["action"], "type": "object"}',
    '',
    '    def __init__(self, cfg=None):',
    '        self.display_width_px = cfg["display_width_px"]',
    '        self.display_height_px = cfg["display_height_px"]',
    '        super().__init__(cfg)',
    '',
    '@register_tool("computer_use")',
    'class ComputerUse(BaseTool):',
    '    pass',
  ].join('\n'));
  files['qwen2.5-vl-3b'] = files['qwen2.5-vl-7b'] = tool;
});

afterAll(() => tmp?.cleanup());

function settingsOf(preset: VlmPresetId): Omit<VlmPolicySettingsInput, 'endpoint'> {
  return { preset, ...(files[preset] ? { promptTemplate: { file: files[preset] } } : {}) };
}

/** The demonstrated episode up to `step`: the request of each step as sent, as recorded, the replies and the screens. */
async function episode(f: Fixture) {
  const loaded = withPromptTemplate(await import('../../core/policy/vlm/settings.js').then((m) => m.VlmPolicySettings.parse({ ...settingsOf(f.preset), endpoint: { baseUrl: 'http://x.invalid/v1' } })));
  const { endpoint: _e, ...settings } = loaded;
  const sent: ChatMessage[][] = [];
  const replies: string[] = [];
  const screens: Observation[] = [];
  const demo = new VlmDemonstrator(new OraclePolicy(), settings, {
    onRequest: (_k, m) => sent.push(structuredClone(m as ChatMessage[])),
    onExchange: (x) => replies.push(x.completion),
  });
  const device = new SimDroid({ serial: `simdroid-preset-${f.preset}` });
  try {
    const result = await runEpisode({
      device, instance: instantiate(getTemplate(f.task), f.seed), policy: demo, screenshots: f.screenshots ?? 'half', maxSteps: f.step + 1,
      onStep: (_s, obs) => screens.push(obs),
    });
    return { demo, sent, replies, screens, result, instruction: result.instruction ?? instantiate(getTemplate(f.task), f.seed).instruction };
  } finally {
    device.close();
  }
}

/** The sent messages with each image as the recorded request names it (its step and sent size) plus the part's own extra fields. */
function withImageRefs(sent: readonly ChatMessage[], recorded: readonly RecordedMessage[]): unknown[] {
  return sent.map((m, i) => {
    if (typeof m.content === 'string') return { role: m.role, content: m.content };
    const rec = recorded[i]!.content as Exclude<RecordedMessage['content'], string>;
    return {
      role: m.role,
      content: m.content.map((p, j) => {
        if (p.type === 'text') return p;
        const { type: _t, image_url: _u, ...extra } = p as Record<string, unknown>;
        return { ...rec[j], ...extra };
      }),
    };
  });
}

describe('presets reproduce their official agents\' requests', () => {
  it('every preset has a fixture (AndroidWorld\'s agents\' in vlm-presets/androidworld, vlm-presets-androidworld.test.ts)', () => {
    const aw = readdirSync(join(FIXTURES, 'androidworld')).filter((f) => f.endsWith('.json')).map((f) => (JSON.parse(readFileSync(join(FIXTURES, 'androidworld', f), 'utf8')) as Fixture).preset);
    expect(new Set([...fixtures.map((f) => f.preset), ...aw])).toEqual(new Set(VLM_PRESET_IDS.filter((p) => p !== 'qwen2.5-vl-3b')));
  });

  for (const f of fixtures) {
    it(`${f.preset}: the request at step ${f.step} of ${f.task} equals the official one`, async () => {
      const e = await episode(f);
      const recorded = e.result.steps[f.step]?.request;
      expect(recorded, `step ${f.step} was not asked`).toBeDefined();
      const app = (k: number) => appByPackage(e.screens[k]!.foreground.package)?.name ?? e.screens[k]!.foreground.package;
      const geometry = e.demo.geometry(e.screens[f.step]!);
      const resolve = (v: unknown): unknown => {
        if (Array.isArray(v)) return v.map(resolve);
        if (!v || typeof v !== 'object') return v;
        const o = v as Record<string, unknown>;
        if ('$reply' in o) return e.replies[o.$reply as number];
        if ('$prompt' in o) return expectedPrompt(f.preset, e.instruction);
        if ('$text' in o || '$xmlText' in o) {
          const [kind, k] = (o.$text ?? o.$xmlText) as ['instruction' | 'screen', number];
          const text = `${kind === 'instruction' ? e.instruction : '** Screen Info **'}\n\n{"current_app": "${app(k)}"}`;
          if (!('$xmlText' in o)) return text;
          const frame = modelFrame(geometry);
          return `${text}\n${mobileRlElementsText(e.screens[f.step]!, { screen: e.screens[f.step]!.screen, coordinates: geometry.coordinates, frame, withScreenshot: true, withElements: true })}`;
        }
        if ('$toolBlock' in o) return `\n\n${qwenToolBlock(files[f.preset]!, modelFrame(geometry))}`;
        if ('$query' in o) {
          const calls = (o.$query as number[]).map((k, i) => `Step ${i + 1}: ${pythonCall(e.replies[k]!)}; `).join('');
          return `The user query:  ${e.instruction}\nTask progress (You have done the following operation on the current device): ${calls}`;
        }
        return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, resolve(x)]));
      };
      expect(withImageRefs(e.sent[f.step]!, recorded!.messages)).toEqual(resolve(f.messages));
      expect(e.demo.requestParams()).toMatchObject(f.params);
      // Every image's size: the step's screenshot as the agent sent it.
      for (const p of recorded!.messages.flatMap((m) => (typeof m.content === 'string' ? [] : m.content))) {
        if (p.type === 'image' && p.width === undefined) expect(e.screens[p.step]!.screenshot!.readUInt32BE(16)).toBe(f.screenshots === 'full' ? 1080 : 540);
      }
    }, 120_000);
  }

  it('qwen2.5-vl-3b asks as the 7B does (the same cookbook agent), for its own checkpoint', () => {
    const { model: m3, ...p3 } = VLM_PRESETS['qwen2.5-vl-3b'];
    const { model: m7, ...p7 } = VLM_PRESETS['qwen2.5-vl-7b'];
    expect(p3).toEqual(p7);
    expect([m3, m7]).toEqual(['Qwen/Qwen2.5-VL-3B-Instruct', 'Qwen/Qwen2.5-VL-7B-Instruct']);
  });
});

/** The official prompt: MOBILE_USE_DOUBAO filled by Python's str.format (ui-tars-1.5-7b), the file's text otherwise. */
function expectedPrompt(preset: VlmPresetId, instruction: string): string {
  switch (preset) {
    case 'ui-tars-1.5-7b':
      return JSON.parse(python('import json, sys\nfrom ui_tars.prompt import MOBILE_USE_DOUBAO\nprint(json.dumps(MOBILE_USE_DOUBAO.format(instruction=sys.argv[1], language="English")))', instruction)) as string;
    case 'ui-tars-7b':
      return readFileSync(files[preset]!, 'utf8') + instruction; // README_v1's example: prompt + instruction
    case 'mobilerl-9b':
      return JSON.parse(python(`import json, runpy\nprint(json.dumps(runpy.run_path(${JSON.stringify(files[preset])})["AW_SYSTEM_PROMPT_THINKING"]))`)) as string;
    default:
      throw new Error(`no prompt for ${preset}`);
  }
}

/**
 * qwen-agent's tool block for the tool file, the tool's JSON made by running the file's class with the screen size
 * (a stub qwen_agent module stands in for the package, which is not installed) and json.dumps as qwen-agent calls it.
 */
function qwenToolBlock(file: string, frame: { width: number; height: number }): string {
  const descs = python([
    'import json, sys, types',
    'base = types.ModuleType("qwen_agent.tools.base")',
    'class BaseTool:',
    '    def __init__(self, cfg=None): self.cfg = cfg',
    'base.BaseTool = BaseTool',
    'base.register_tool = lambda name: (lambda cls: setattr(cls, "name", name) or cls)',
    'for m in ("qwen_agent", "qwen_agent.tools"): sys.modules[m] = types.ModuleType(m)',
    'sys.modules["qwen_agent.tools.base"] = base',
    'import runpy',
    'ns = runpy.run_path(sys.argv[1])',
    'tool = ns["MobileUse"](cfg={"display_width_px": int(sys.argv[2]), "display_height_px": int(sys.argv[3])})',
    'f = {"name": tool.name, "description": tool.description, "parameters": tool.parameters}',
    'sys.stdout.write(json.dumps({"type": "function", "function": f}, ensure_ascii=False))',
  ].join('\n'), file, String(frame.width), String(frame.height));
  return `# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>\n${descs}\n</tools>\n\n`
    + 'For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>';
}

/** A reply's tool call as Python's json.dumps writes it (the cookbook's history). */
function pythonCall(reply: string): string {
  const inner = reply.split('<tool_call>')[1]!.split('</tool_call>')[0]!.trim();
  return python('import json, sys\nsys.stdout.write(json.dumps(json.loads(sys.argv[1])))', inner);
}

describe('awb vlm request --preset', () => {
  async function request(...argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(['vlm', 'request', ...argv], { out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, err, json: () => JSON.parse(out.join('\n')) };
  }

  it('prints the preset\'s request: ui-tars-1.5-7b with its package prompt, its model and sampling', async () => {
    const r = await request('--preset', 'ui-tars-1.5-7b', '--task', 'ContactsAddContact', '--seed', '3', '--step', '2');
    expect(r.code, r.err.join('\n')).toBe(0);
    const j = r.json();
    expect(j.request).toMatchObject({ model: 'ByteDance-Seed/UI-TARS-1.5-7B', temperature: 0, max_tokens: 1000, top_p: 0.9, frequency_penalty: 1 });
    // Two earlier replies, each after its screenshot (the last four keep theirs), then the current screenshot.
    expect(j.request.messages.map((m: { role: string }) => m.role)).toEqual(['system', 'user', 'user', 'assistant', 'user', 'assistant', 'user']);
    expect(j.request.messages[1].content[0].text).toBe(expectedPrompt('ui-tars-1.5-7b', j.task.instruction));
    expect(j.geometry).toMatchObject({ coordinates: 'smart-resize', frame: { width: 532, height: 1204 } });
  }, 120_000);

  it('a preset whose prompt is in a file the user points at refuses to run without it, and names the file', async () => {
    const r = await request('--preset', 'mobilerl-9b', '--task', 'ContactsAddContact');
    expect(r.code).not.toBe(0);
    expect(r.err.join('\n')).toMatch(/promptTemplate: this agent reads its prompt from a file of its official code: give promptTemplate \(--prompt-template FILE\)/);
    const ok = await request('--preset', 'mobilerl-9b', '--task', 'ContactsAddContact', '--prompt-template', files['mobilerl-9b']!);
    expect(ok.code, ok.err.join('\n')).toBe(0);
    expect(ok.json().request.messages[0].content).toMatch(/^# Setup \(stand-in\)/);
  }, 120_000);

  it('a format other than the preset agent\'s is refused, naming the field', async () => {
    const r = await request('--preset', 'ui-tars-1.5-7b', '--format', 'qwen-mobile-use', '--task', 'ContactsAddContact');
    expect(r.code).not.toBe(0);
    expect(r.err.join('\n')).toMatch(/format: the agent's model answers in another format: leave format to the preset/);
  });

  it('an unknown preset is one line naming it and the known ones', async () => {
    const r = await request('--preset', 'gpt-9', '--task', 'ContactsAddContact');
    expect(r.code).not.toBe(0);
    expect(r.err.join('\n')).toMatch(/--preset must be one of ui-tars-1.5-7b, ui-tars-7b, qwen2.5-vl-3b, qwen2.5-vl-7b, mobilerl-9b, androidworld-t3a, androidworld-m3a, got "gpt-9"/);
  });
});

describe("the docs' vLLM image limit fits the requests they configure", () => {
  it.each(['policy-vlm.md'])('%s', async (doc) => {
    const { VlmPolicySettings } = await import('../../core/policy/vlm/settings.js');
    const { imagesPerRequest } = await import('../../core/policy/vlm/agents/index.js');
    const text = readFileSync(join(import.meta.dirname, '..', '..', 'docs', doc), 'utf8');
    const limits = [...text.matchAll(/--limit-mm-per-prompt '(\{[^']*\})'/g)].map((m) => (JSON.parse(m[1]!) as { image: number }).image);
    const limit = Math.min(...limits);
    const commands = text.split('\n').filter((l) => /\bnpx awb (run|endpoints add|vlm request|suite run)\b/.test(l) && /--(preset|format|history-images)\b/.test(l));
    expect(commands.length).toBeGreaterThan(0);
    for (const c of commands) {
      const flag = (name: string) => new RegExp(`--${name} (\\S+)`).exec(c)?.[1];
      const preset = flag('preset');
      const s = VlmPolicySettings.parse({
        endpoint: { baseUrl: 'http://x.invalid/v1', model: 'm' }, ...(preset ? { preset, promptTemplate: { file: 'x' } } : {}),
        ...(flag('format') ? { format: flag('format') } : {}), ...(flag('history-style') ? { historyStyle: flag('history-style') } : {}),
        ...(flag('history-images') ? { historyImages: Number(flag('history-images')) } : {}),
      });
      if (limits.length) expect(imagesPerRequest(s), `${doc}: ${c.trim()} sends more images than --limit-mm-per-prompt allows`).toBeLessThanOrEqual(limit);
    }
  });
});
