import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../core/cli/main.js';
import type { Observation } from '../../core/device/observation.js';
import { OraclePolicy } from '../../core/episode/policies/oracle.js';
import type { RecordedMessage } from '../../core/episode/record.js';
import { runEpisode } from '../../core/episode/runner.js';
import { awUiElements } from '../../core/a11y/androidworld-elements.js';
import { parseReasonAction, pythonRepr, uiElementRepr } from '../../core/policy/vlm/agents/androidworld-text.js';
import { DEMONSTRATION_SUMMARY, VlmDemonstrator } from '../../core/policy/vlm/demonstrator.js';
import type { ChatMessage } from '../../core/policy/vlm/prompt.js';
import { VlmPolicySettings } from '../../core/policy/vlm/settings.js';
import { instantiate } from '../../core/tasks/instance.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { withPromptTemplate } from '../../core/workbench/prompt-templates.js';
import { SimDroid } from '../../emulators/simdroid/simdroid.js';
import { SELECTED, standInAgentFile as standIn } from '../helpers/androidworld-standin.js';
import { requirePython } from '../python-env.js';
import { tempDir } from '../store/helpers.js';

/**
 * AndroidWorld's T3A and M3A presets ask as the agents in AndroidWorld's checkout ask (issue 31). The expected requests
 * (vlm-presets/androidworld/*.json) were taken by hand from AndroidWorld's code, with how in each file's "how": the
 * element descriptions and the replies' reasons and actions there are the output of AndroidWorld's own functions, run
 * on the XML of the demonstrated episode's screens. The prompts come from stand-ins written here in the shape of
 * t3a.py and m3a.py (their text is not ours to copy): the workbench's reader reads them as it reads the real files, and
 * the expected prompts are made by the stand-ins' own Python functions, as AndroidWorld's fill theirs.
 */
interface Fixture {
  preset: 'androidworld-t3a' | 'androidworld-m3a';
  task: string;
  seed: number;
  step: number;
  params: Record<string, unknown>;
  messages: unknown[];
  summary: { step: number; messages: unknown[] };
  official: { elements: Record<string, string>; replies: Array<[string, string]> };
}
const FIXTURES = join(import.meta.dirname, 'vlm-presets', 'androidworld');
const fixtures = readdirSync(FIXTURES).filter((f) => f.endsWith('.json')).map((f) => JSON.parse(readFileSync(join(FIXTURES, f), 'utf8')) as Fixture);

let tmp: ReturnType<typeof tempDir>;
const checkout = () => join(tmp.dir, 'android_world_checkout');

function python(code: string, ...args: string[]): string {
  const r = spawnSync(requirePython(), ['-c', code, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout;
}

beforeAll(() => {
  tmp = tempDir('awb-vlm-presets-aw-');
  mkdirSync(join(checkout(), 'android_world', 'agents'), { recursive: true });
  for (const kind of ['t3a', 'm3a'] as const) writeFileSync(join(checkout(), 'android_world', 'agents', `${kind}.py`), standIn(kind));
});
afterAll(() => tmp?.cleanup());

/** A stand-in function called by Python with JSON arguments. */
function standInCall(kind: 't3a' | 'm3a', fn: string, ...args: unknown[]): string {
  const file = join(checkout(), 'android_world', 'agents', `${kind}.py`);
  return JSON.parse(python(`import json, runpy, sys\nns = runpy.run_path(sys.argv[1])\nprint(json.dumps(ns[sys.argv[2]](*json.loads(sys.argv[3]))))`, file, fn, JSON.stringify(args))) as string;
}

async function episode(f: Fixture) {
  // The checkout's folder, as a person points at it: the reader finds android_world/agents/<agent>.py there.
  const { endpoint: _e, ...settings } = withPromptTemplate(VlmPolicySettings.parse({ preset: f.preset, promptTemplate: { file: checkout() }, endpoint: { baseUrl: 'http://x.invalid/v1' } }));
  const sent: ChatMessage[][] = [];
  const screens: Observation[] = [];
  const demo = new VlmDemonstrator(new OraclePolicy(), settings, { onRequest: (_k, m) => sent.push(structuredClone(m as ChatMessage[])) });
  const device = new SimDroid({ serial: `simdroid-preset-${f.preset}` });
  try {
    const instance = instantiate(getTemplate(f.task), f.seed);
    const result = await runEpisode({ device, instance, policy: demo, screenshots: 'half', maxSteps: f.step + 1, onStep: (_s, obs) => screens.push(obs) });
    return { demo, sent, screens, result, goal: instance.instruction };
  } finally {
    device.close();
  }
}

/** The sent messages with each image as the recorded request names it. */
function withImageRefs(sent: readonly ChatMessage[], recorded: readonly RecordedMessage[]): unknown[] {
  return sent.map((m, i) => ({
    role: m.role,
    content: typeof m.content === 'string' ? m.content : m.content.map((p, j) => (p.type === 'text' ? p : (recorded[i]!.content as unknown[])[j])),
  }));
}

describe("AndroidWorld's agents' presets reproduce their requests", () => {
  for (const f of fixtures) {
    const kind = f.preset === 'androidworld-t3a' ? 't3a' : 'm3a';
    it(`${f.preset}: the summary call and the action request at step ${f.step} of ${f.task} equal AndroidWorld's`, async () => {
      const e = await episode(f);
      const recorded = e.result.steps[f.step]?.request;
      expect(recorded, `step ${f.step} was not asked`).toBeDefined();
      const o = f.official;
      const history = (ks: number[]) => ks.map((k, i) => `Step ${i + 1}${kind === 't3a' ? ': ' : '- '}${SELECTED(o.replies[k]![1], DEMONSTRATION_SUMMARY)}`);
      const resolve = (v: unknown): unknown => {
        if (Array.isArray(v)) return v.map(resolve);
        if (!v || typeof v !== 'object') return v;
        const x = v as Record<string, unknown>;
        if ('$awAction' in x) {
          const a = x.$awAction as { elements: number; history: number[] };
          return standInCall(kind, '_action_selection_prompt', e.goal, history(a.history), o.elements[String(a.elements)], null);
        }
        if ('$awSummary' in x) {
          const s = x.$awSummary as { reply: number; before: number; after: number };
          const [reason, action] = o.replies[s.reply]!;
          const [before, after] = [o.elements[String(s.before)], o.elements[String(s.after)]];
          return kind === 't3a'
            ? standInCall(kind, '_summarize_prompt', e.goal, action, reason, before, after)
            : standInCall(kind, '_summarize_prompt', action, reason, e.goal, before, after);
        }
        return Object.fromEntries(Object.entries(x).map(([k, y]) => [k, resolve(y)]));
      };
      expect(recorded!.summary).toEqual({ ...(resolve(f.summary) as object), reply: DEMONSTRATION_SUMMARY });
      expect(withImageRefs(e.sent[f.step]!, recorded!.messages)).toEqual(resolve(f.messages));
      expect(e.demo.requestParams()).toMatchObject(f.params);
      // The replies read as AndroidWorld read them (the fixture's are its own parse_reason_action_output's).
      expect(e.result.steps.slice(0, f.step).map((s) => { const r = parseReasonAction(s.thought!); return [r.reason, r.action]; })).toEqual(o.replies);
      if (kind === 'm3a') {
        // The set-of-marks copy: the last listed element whose box lies inside the screen, under no later mark; at this
        // half-size screenshot (scale 0.5) its bottom side is one row of green pixels (OpenCV's thickness int(2·√0.5) =
        // 1), the rows either side untouched.
        const [raw, marked] = await Promise.all((e.sent[f.step]![0]!.content as Array<{ image_url?: { url: string } }>).slice(1).map(async (p) => {
          const { loadImage, createCanvas } = await import('@napi-rs/canvas');
          const img = await loadImage(Buffer.from(p.image_url!.url.split(',')[1]!, 'base64'));
          const c = createCanvas(img.width, img.height);
          c.getContext('2d').drawImage(img, 0, 0);
          const data = c.getContext('2d').getImageData(0, 0, img.width, img.height).data;
          return (x: number, y: number) => [...data.slice((y * img.width + x) * 4, (y * img.width + x) * 4 + 3)];
        }));
        const els = awUiElements(e.screens[f.step]!.elements).map((x) => x.bbox_pixels);
        const clear = (b: (typeof els)[number], k: number) => els.slice(k + 1).every((x) => x.y_max < b.y_max - 4 || x.y_min > b.y_max + 4 || x.x_min > b.x_max || x.x_max < b.x_min);
        const k = els.findLastIndex((x, i) => x.x_max < 1080 && x.y_max < 2400 && x.y_max - x.y_min > 40 && x.x_min > 0 && clear(x, i));
        expect(k).toBeGreaterThanOrEqual(0);
        const b = els[k]!;
        const [x0, x1, y1] = [Math.trunc(b.x_min * 0.5), Math.trunc(b.x_max * 0.5), Math.trunc(b.y_max * 0.5)];
        for (let x = x0 + 1; x < x1; x++) {
          expect(marked!(x, y1), `(${x}, ${y1})`).toEqual([0, 255, 0]);
          expect(marked!(x, y1 + 1)).toEqual(raw!(x, y1 + 1));
          expect(marked!(x, y1 - 1)).toEqual(raw!(x, y1 - 1));
        }
      }
    }, 120_000);
  }

  it("T3A's element text is Python's repr of the UIElement (quotes and escapes as Python writes them)", () => {
    for (const s of ["plain", "it's", 'say "hi"', `both ' and "`, 'tab\tnew\nline\\', '\u0007bell\u007f', 'ünï 中文 😀', '\u200bzero-width\u00a0nbsp\u2028ls']) {
      expect(pythonRepr(s), s).toBe(JSON.parse(python('import json, sys\nprint(json.dumps(repr(sys.argv[1])))', s)) as string);
    }
    const el = awUiElements([{ ordinal: 0, depth: 0, parent: null, node: { text: "Bob's", contentDesc: '', className: 'android.widget.TextView', bounds: { left: 1, top: 2, right: 3, bottom: 4 }, checked: false, checkable: false, clickable: true, enabled: true, focused: false, focusable: true, longClickable: false, scrollable: false, selected: false, packageName: 'p', resourceId: 'r', password: false, index: 0, children: [] } as never }]);
    expect(uiElementRepr(el[0]!)).toBe(JSON.parse(python([
      'import dataclasses, json, typing',
      '@dataclasses.dataclass',
      'class BoundingBox:',
      '  x_min: int; x_max: int; y_min: int; y_max: int',
      '@dataclasses.dataclass',
      'class UIElement:',
      ...['text', 'content_description', 'class_name', 'bbox', 'bbox_pixels', 'hint_text', 'is_checked', 'is_checkable', 'is_clickable', 'is_editable',
        'is_enabled', 'is_focused', 'is_focusable', 'is_long_clickable', 'is_scrollable', 'is_selected', 'is_visible', 'package_name', 'resource_name',
        'tooltip', 'resource_id', 'metadata'].map((k) => `  ${k}: typing.Any = None`),
      'b = BoundingBox(1, 3, 2, 4)',
      "e = UIElement(text=\"Bob's\", content_description='', class_name='android.widget.TextView', bbox=b, bbox_pixels=b, is_checked=False, is_checkable=False,",
      "  is_clickable=True, is_enabled=True, is_focused=False, is_focusable=True, is_long_clickable=False, is_scrollable=False, is_selected=False,",
      "  package_name='p', resource_id='r', is_visible=True)",
      'print(json.dumps(str(e)))',
    ].join('\n'))) as string);
  });
});

describe('awb vlm request --preset androidworld-*', () => {
  async function request(...argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(['vlm', 'request', ...argv], { out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, err, json: () => JSON.parse(out.join('\n')) };
  }

  it('prints the action request and the summary call made before it (M3A: two images each, the marked ones named)', async () => {
    const r = await request('--preset', 'androidworld-m3a', '--task', 'AudioRecorderRecordAudio', '--seed', '1', '--step', '2', '--prompt-template', checkout());
    expect(r.code, r.err.join('\n')).toBe(0);
    const j = r.json();
    expect(j.request).toMatchObject({ model: 'gpt-4-turbo-2024-04-09', temperature: 0, max_tokens: 1000 });
    expect(j.request.messages).toHaveLength(1);
    expect(j.request.messages[0].content.map((p: { type: string }) => p.type)).toEqual(['text', 'image_url', 'image_url']);
    expect(j.request.messages[0].content[0].text).toMatch(/^Stand-in m3a prompt\./);
    expect(j.images).toHaveLength(2);
    expect(j.summary.step).toBe(1);
    expect(j.summary.messages[0].content.slice(1)).toEqual([{ type: 'image', step: 1, marks: 'set-of-marks' }, { type: 'image', step: 2, marks: 'set-of-marks+after' }]);
  }, 120_000);

  it('refuses to run without AndroidWorld\'s file, and names a file that is not an agent file', async () => {
    const none = await request('--preset', 'androidworld-t3a', '--task', 'AudioRecorderRecordAudio');
    expect(none.code).not.toBe(0);
    expect(none.err.join('\n')).toMatch(/give promptTemplate \(--prompt-template FILE\)/);
    const other = join(tmp.dir, 'other.py');
    writeFileSync(other, "X = 'not an agent'\n");
    const bad = await request('--preset', 'androidworld-t3a', '--task', 'AudioRecorderRecordAudio', '--prompt-template', other);
    expect(bad.code).not.toBe(0);
    expect(bad.err.join('\n')).toMatch(/other\.py has no class T3A with a step\(\) \(is it AndroidWorld's t3a\.py\?\)/);
  }, 60_000);
});
