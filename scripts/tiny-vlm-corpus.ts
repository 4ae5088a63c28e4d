/**
 * The text the tiny Qwen2.5-VL's tokenizer is trained on (resources/trainer/tools/make_tiny_vlm.py reads it):
 *
 *   node --import tsx scripts/tiny-vlm-corpus.ts     # rewrites resources/trainer/tools/tiny_vlm_corpus.jsonl
 *
 * Deterministic: SimDroid's seed data (core/seed-data), every task template's instruction on the first training
 * seeds, every VLM format's system prompts and samples, and for one oracle episode per template (first training
 * seed) what the VLM policy is shown and answers: the qwen-mobile-use user turns, the screen's element list (the
 * apps' labels), the history lines and the step's action written in every format. test/trainer/tiny-vlm-corpus.test.ts checks the committed file is what this writes.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAction } from '../core/actions/schema.js';
import { openSimDroid } from '../core/devices/provider.js';
import { OraclePolicy } from '../core/episode/policies/oracle.js';
import { runEpisode, type StepRecord } from '../core/episode/runner.js';
import type { ActionFormat } from '../core/policy/vlm/format.js';
import { VLM_FORMATS } from '../core/policy/vlm/formats/index.js';
import { modelFrame, type GeometryContext } from '../core/policy/vlm/geometry.js';
import { VlmDemonstrator } from '../core/policy/vlm/demonstrator.js';
import { buildMessages, elementsText, type ChatMessage } from '../core/policy/vlm/prompt.js';
import * as companies from '../core/seed-data/companies.js';
import * as dates from '../core/seed-data/dates.js';
import * as events from '../core/seed-data/events.js';
import * as expenses from '../core/seed-data/expenses.js';
import * as fileNames from '../core/seed-data/file-names.js';
import * as messages from '../core/seed-data/messages.js';
import * as notes from '../core/seed-data/notes.js';
import * as people from '../core/seed-data/people.js';
import * as recipes from '../core/seed-data/recipes.js';
import * as text from '../core/seed-data/text.js';
import * as todos from '../core/seed-data/todos.js';
import * as worldCities from '../core/seed-data/world-cities.js';
import { instantiate } from '../core/tasks/instance.js';
import { TASKS } from '../core/tasks/registry.js';
import { SPLIT_DATA } from '../core/tasks/splits.js';

export const CORPUS_FILE = fileURLToPath(new URL('../resources/trainer/tools/tiny_vlm_corpus.jsonl', import.meta.url));

/** The tiny model's image processor bounds (make_tiny_vlm.py): the frame its smart-resize coordinates live in. */
export const TINY_VLM_PIXELS = { minPixels: 56 * 56, maxPixels: 28 * 28 * 16 } as const;

const SEED_DATA = [companies, dates, events, expenses, fileNames, messages, notes, people, recipes, text, todos, worldCities];
const SCREEN = { width: 1080, height: 2400 };
/** Screenshots are recorded at half scale ('half'), as the demonstrations are. */
const IMAGE = { width: 540, height: 1200 };

/** Every string in an exported constant (arrays, records), depth first, keys in sorted order. */
function strings(v: unknown, out: string[]): void {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) strings(x, out);
  else if (v && typeof v === 'object') for (const k of Object.keys(v).sort()) strings((v as Record<string, unknown>)[k], out);
}

function contentText(m: ChatMessage): string {
  return typeof m.content === 'string' ? m.content : m.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
}

/**
 * The corpus as JSON lines, one text per line: texts keep their own newlines (BPE learns "\n\n" where the chat has
 * it). A text is kept once, and once per shape of its numbers: digits are pre-tokenized one by one (Qwen's rule), so
 * texts that differ only in numbers (bounds, ordinals, step numbers, coordinates) teach the tokenizer nothing new.
 */
export async function tinyVlmCorpus(): Promise<string> {
  const seen = new Set<string>();
  const texts: string[] = [];
  const add = (s: string) => {
    const t = s.trim();
    const key = t.replace(/\d+/g, '0');
    if (t && !seen.has(key)) {
      seen.add(key);
      texts.push(t);
    }
  };
  for (const mod of SEED_DATA) for (const k of Object.keys(mod).sort()) {
    const found: string[] = [];
    strings((mod as Record<string, unknown>)[k], found);
    found.forEach(add);
  }
  for (const t of TASKS) for (const seed of SPLIT_DATA.seeds.train.slice(0, 3)) add(instantiate(t, seed).instruction);

  const geometry = (f: ActionFormat): GeometryContext => ({ screen: SCREEN, image: IMAGE, coordinates: f.defaultCoordinates, ...TINY_VLM_PIXELS });
  for (const f of Object.values(VLM_FORMATS)) {
    for (const withElements of [f.defaultElements, !f.defaultElements]) {
      const g = geometry(f);
      add(f.systemPrompt({ screen: SCREEN, coordinates: g.coordinates, frame: modelFrame(g), withScreenshot: true, withElements }));
    }
    for (const s of f.samples) add(s.output);
  }

  const device = openSimDroid({ serial: 'simdroid-corpus' });
  try {
    const qwen = VLM_FORMATS['qwen-mobile-use'];
    const g = geometry(qwen);
    const prompt = { screen: SCREEN, coordinates: g.coordinates, frame: modelFrame(g), withScreenshot: true, withElements: false };
    const options = { withScreenshot: true, withElements: false, historySteps: 4, historyStyle: 'summary', historyImages: 0 } as const;
    for (const t of TASKS) {
      const instance = instantiate(t, SPLIT_DATA.seeds.train[0]!);
      const history: StepRecord[] = [];
      // Run without screenshots (rendering them is most of the time): the user turn's text is the one VlmPolicy
      // sends with one, built here by the same buildMessages.
      const policy = new VlmDemonstrator(new OraclePolicy(), { format: qwen.id, screenshot: false, ...TINY_VLM_PIXELS });
      await runEpisode({
        device, instance, policy, screenshots: 'none',
        onStep: (step, obs) => {
          // The user turns of the first two steps (later ones repeat them with more history lines), what the apps
          // show (the element list's lines), what was done (history lines) and the answer in every format.
          if (step.index < 2) add(contentText(buildMessages(qwen, prompt, obs, { instruction: instance.instruction, step: step.index, history }, options)[1]!));
          history.push(step);
          elementsText(obs).split('\n').forEach(add);
          if (step.description) add(step.description);
          if (typeof step.thought === 'string') add(step.thought);
          if (!step.action) return;
          const action = parseAction(step.action);
          for (const f of Object.values(VLM_FORMATS)) {
            if (f === qwen) continue;
            try {
              add(f.render(action, { ...geometry(f), obs }));
            } catch {
              // An action a format cannot say (an index-free format and an off-screen element): nothing to learn from.
            }
          }
        },
      });
    }
  } finally {
    device.close();
  }
  return texts.map((t) => `${JSON.stringify(t)}\n`).join('');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const corpus = await tinyVlmCorpus();
  writeFileSync(CORPUS_FILE, corpus);
  console.log(`${CORPUS_FILE}: ${corpus.split('\n').length - 1} texts, ${Buffer.byteLength(corpus)} bytes`);
}
