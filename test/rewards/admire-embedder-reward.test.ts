import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkRewardValues, type RewardEpisode } from '../../core/rewards/component.js';
import { computeRewards } from '../../core/rewards/compose.js';
import {
  admireWeight, AdmireReward, ConsensusDistiller, createEmbedder, DEFAULT_ADMIRE_CONFIG, EmbeddingModelNotFoundError,
  MemoryMilestoneStore, MilestoneMemory, rewardModule, TransformersEmbedder,
} from '../../core/rewards/admire/index.js';
import { writeTinyModel } from '../helpers/tiny-onnx.js';

const fg = { package: 'com.android.contacts', activity: 'Main' };
const episode = (name: string, descriptions: Array<string | undefined>, success: boolean | null): RewardEpisode => ({
  templateId: 'ContactsStarContact', seed: 0, instruction: `Star ${name}`, params: { person: { name } }, success,
  steps: descriptions.map((d, index) => (d === undefined ? { index, foreground: fg } : { index, foreground: fg, description: d })),
});
const path = (name: string) => ['Open Contacts', `Tap "${name}" in Contacts`, 'Tap "Add to favourites" in Contacts', 'Declare the task complete'];

const root = mkdtempSync(join(tmpdir(), 'awb-emb-reward-'));
writeTinyModel(join(root, 'models', 'tiny'), { dim: 32 });
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('ADMIRE with the transformers embedder', () => {
  it('the option picks the model under the data folder; the builtin stays the default', () => {
    const o = rewardModule.options.parse({ embedder: { kind: 'transformers', path: 'models/tiny' } });
    expect(o.embedder).toEqual({ kind: 'transformers', path: 'models/tiny', dtype: 'fp32', batchSize: 32, maxLength: 128, threads: 1 });
    const c = rewardModule.create(o, { dataDir: root }) as AdmireReward;
    expect(c.embedder).toBeInstanceOf(TransformersEmbedder);
    expect((c.embedder as TransformersEmbedder).path).toBe(join(root, 'models', 'tiny'));
    expect((rewardModule.create(rewardModule.options.parse({}), {}) as AdmireReward).embedder.id).toBe('hashed-ngram/256/3');
    expect(createEmbedder({ kind: 'builtin', dim: 64, charN: 0 }).id).toBe('hashed-ngram/64/0');
    expect(() => rewardModule.options.parse({ embedder: { kind: 'transformers' } })).toThrow();
    expect(() => rewardModule.options.parse({ embedder: { kind: 'builtin', model: 'x' } })).toThrow();
  });

  it('a relative path not under the data folder is EmbeddingModelNotFoundError naming where it looked', () => {
    const o = rewardModule.options.parse({ embedder: { kind: 'transformers', path: 'models/tiny' } });
    const elsewhere = join(root, 'other');
    expect(() => rewardModule.create(o, { dataDir: elsewhere })).toThrow(EmbeddingModelNotFoundError);
    expect(() => rewardModule.create(o, { dataDir: elsewhere })).toThrow(resolve(elsewhere, 'models/tiny'));
  });

  it('scores an episode end to end: hits on the milestones, credit as with the builtin, the id in the detail', async () => {
    const embedder = createEmbedder({ kind: 'transformers', path: 'models/tiny', dtype: 'fp32', batchSize: 4, maxLength: 64, threads: 1 }, root) as TransformersEmbedder;
    const c = new AdmireReward({ memory: new MilestoneMemory(new MemoryMilestoneStore(), new ConsensusDistiller()), embedder, epoch: 1 });
    try {
      await c.observe([episode('Grace Bauer', path('Grace Bauer'), true), episode('Omar Haddad', path('Omar Haddad'), true)]);
      expect(embedder.dim).toBeNull(); // nothing scored yet: the model has not loaded
      const lambda = admireWeight(DEFAULT_ADMIRE_CONFIG, 1);

      const win = episode('Zoe Ito', ['Open Contacts', 'Scroll down in Contacts', 'Tap "Zoe Ito" in Contacts', 'Tap "Add to favourites" in Contacts', 'Declare the task complete'], true);
      const v = await c.compute(win);
      checkRewardValues('admire', win, v);
      expect(embedder.dim).toBe(32);
      expect(v.map((x) => (x.value === 0 ? 0 : +(x.value! / lambda).toFixed(4)))).toEqual([1, 0, 1, 1, 0]);
      expect(v[1]!.explanation).toMatch(/^no hit m2\/3 "Tap \\"Zoe Ito\\" in Contacts" \(cos 0\.\d\d ≤ δ 0\.75\)/);
      expect(v[2]!.explanation).toMatch(/^hit m2\/3 "Tap \\"Zoe Ito\\" in Contacts" \(cos 1\.00 > δ 0\.75\)/);
      expect(c.detail(win)).toMatchObject({ embedderId: 'transformers/tiny/fp32/mean', milestones: [{ hitStep: 0 }, { hitStep: 2 }, { hitStep: 3 }] });

      // the wrong contact does not hit milestone 2 (its name's word pieces differ), so a failure gets 1/3 on from step 0
      const lose = episode('Zoe Ito', ['Open Contacts', 'Tap "Grace Bauer" in Contacts', undefined], false);
      const l = await c.compute(lose);
      expect(l[0]!.value).toBeCloseTo(lambda * (1 / 3 + 0.5), 5);
      expect(l[1]!.value).toBeCloseTo(lambda / 3, 9);
      expect(l[2]!.explanation).toContain('no description to match');
    } finally {
      await embedder.dispose();
    }
  });

  it('through the registry and computeRewards with the data folder in the context', async () => {
    const ep = episode('Zoe Ito', path('Zoe Ito'), true);
    const r = await computeRewards(ep, { components: [{ kind: 'admire', weight: 1, options: { embedder: { kind: 'transformers', path: 'models/tiny' } } }] }, { dataDir: root });
    // no milestones yet in this fresh component: zeros with the reason, and no model inference needed
    expect(r.byKind.admire!.map((x) => x.value)).toEqual([0, 0, 0, 0]);
    expect(r.byKind.admire![0]!.explanation).toContain('no milestones for ContactsStarContact');
  });
});

describe('the library is imported only when a transformers embedder loads', () => {
  it('with @huggingface/transformers unresolvable, the builtin reward still works and the model load fails by name', () => {
    const dir = mkdtempSync(join(tmpdir(), 'awb-emb-lazy-'));
    try {
      writeFileSync(join(dir, 'hooks.mjs'), [
        'export async function resolve(specifier, context, next) {',
        "  if (specifier === '@huggingface/transformers' || specifier.startsWith('onnxruntime')) throw new Error(`blocked ${specifier}`);",
        '  return next(specifier, context);',
        '}',
      ].join('\n'));
      writeFileSync(join(dir, 'register.mjs'), "import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n");
      const admire = resolve('core/rewards/admire/index.ts');
      writeFileSync(join(dir, 'main.mts'), `
        const m = await import(${JSON.stringify(admire)});
        const ep = { templateId: 'T', seed: 0, instruction: 'x', params: {}, success: true, steps: [{ index: 0, foreground: { package: 'p', activity: 'a' }, description: 'Open Contacts' }] };
        const c = m.rewardModule.create(m.rewardModule.options.parse({}), {});
        await c.observe([ep]);
        const builtin = (await c.compute(ep))[0].value;
        let load = '';
        try { await m.TransformersEmbedder.load({ path: ${JSON.stringify(join(root, 'models', 'tiny'))} }); } catch (e) { load = e.name + ': ' + e.message; }
        console.log(JSON.stringify({ builtin, load }));
      `);
      const out = execFileSync(process.execPath, ['--import', 'tsx', '--import', join(dir, 'register.mjs'), join(dir, 'main.mts')], { cwd: process.cwd(), encoding: 'utf8' });
      const r = JSON.parse(out.trim().split('\n').pop()!) as { builtin: number; load: string };
      expect(r.builtin).toBeCloseTo(admireWeight(DEFAULT_ADMIRE_CONFIG, 1), 9);
      expect(r.load).toMatch(/^EmbeddingModelLoadError: .* @huggingface\/transformers could not be imported \(.*blocked @huggingface\/transformers/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
