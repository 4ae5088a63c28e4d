import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { trainSftCommand } from '../../core/cli/train-sft.js';
import { main } from '../../core/cli/main.js';
import { loadCheckpoint } from '../../core/policy/checkpoint.js';
import { scratch } from '../helpers/scratch.js';

const tmp = scratch('awb-sft-');
afterAll(tmp.cleanup);

const capture = () => {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) } };
};

describe('awb train sft', () => {
  it('trains on a tiny config, writes a checkpoint that loads, and awb eval runs it', async () => {
    const dir = tmp.dir();
    const cfg = join(dir, 'sft.json');
    writeFileSync(cfg, JSON.stringify({ templates: ['AudioRecorderRecordAudio', 'CalendarAddEvent'], seeds: [1, 2], sft: { epochs: 2 } }));
    const c = capture();
    expect(await trainSftCommand(['--config', cfg, '--out', join(dir, 'ckpt')], c.io)).toBe(0);
    const epochs = c.out.filter((l) => l.startsWith('epoch '));
    expect(epochs).toHaveLength(2);
    expect(epochs[0]).toMatch(/^epoch 1\/2 {2}loss\/nll \d+\.\d{4}/);
    const file = join(dir, 'ckpt', 'policy.json');
    expect(c.out.at(-1)).toBe(`Checkpoint: ${file}`);
    const { meta } = loadCheckpoint(file);
    expect(meta).toMatchObject({ trainer: 'sft', config: { seeds: [1, 2], sft: { epochs: 2 } }, demonstrations: { templates: 2, episodes: 4 } });

    const e = capture();
    expect(await main(['eval', '--policy', file, '--limit', '3', '--seeds', '1,2', '--db', join(dir, 't.db')], e.io)).toBe(0);
    expect(e.out[0]).toMatch(/^Eval of builtin .*policy\.json \(sha256 [0-9a-f]{12}\) on unseen-instance\/test: 3 templates × 2 seeds/);
    expect(e.out.join('\n')).toMatch(/GROUP +EPISODES +SEED 1 +SEED 2 +MEAN ± STD\noverall +6 /);
  }, 60_000);

  it('rejects a bad config file with exit code 2 and every problem', async () => {
    const dir = tmp.dir();
    const cfg = join(dir, 'bad.json');
    writeFileSync(cfg, JSON.stringify({ part: 'nope', hidden: -1 }));
    const c = capture();
    await expect(trainSftCommand(['--config', cfg], c.io)).rejects.toThrow(/part:[\s\S]*hidden:/);
    writeFileSync(cfg, '{not json');
    await expect(trainSftCommand(['--config', cfg], c.io)).rejects.toMatchObject({ name: 'UsageError' });
    await expect(trainSftCommand([], c.io)).rejects.toThrow(/--config is required/);
    expect(readFileSync(cfg, 'utf8')).toBe('{not json');
  });
});
