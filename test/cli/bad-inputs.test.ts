import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { scratch } from '../helpers/scratch.js';

/**
 * Issue 16: every command refuses bad input the way a careful CLI does — one line on stderr, a non-zero exit, no
 * stack trace, and nothing written (no run left 'running', no file created or changed). Each row is a command line a
 * careless user types; paths point into a scratch folder that is fingerprinted before and after.
 */
const tmp = scratch('awb-badinput-');
let dir: string;
let home: string;
let db: string;
const savedHome = process.env.AWB_HOME;

/** Every file under `root` with its size and hash (SQLite's -wal/-shm included: a write shows there first). */
function fingerprint(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) {
        out[`${relative(root, p)}/`] = 'dir';
        walk(p);
      } else {
        out[relative(root, p)] = `${statSync(p).size}:${createHash('sha256').update(readFileSync(p)).digest('hex').slice(0, 16)}`;
      }
    }
  };
  walk(root);
  return out;
}

beforeAll(async () => {
  dir = tmp.dir();
  home = join(dir, 'home');
  db = join(dir, 'trajectories.db');
  mkdirSync(home);
  process.env.AWB_HOME = home;
  // A store with one episode, so commands that read one get past "no store".
  expect((await runCli('run', '--task', 'ContactsAddContact', '--seed', '1', '--db', db, '--json')).code).toBe(0);
  writeFileSync(join(dir, 'not-json.json'), '{"epochs": 3,');
  writeFileSync(join(dir, 'text.txt'), 'hello\n');
  writeFileSync(join(dir, 'sft-unknown.json'), JSON.stringify({ epochz: 3 }));
  writeFileSync(join(dir, 'grpo-init.json'), JSON.stringify({ init: join(dir, 'nonexistent-checkpoint.json') }));
  writeFileSync(join(dir, 'grpo-bad.json'), JSON.stringify({ iterations: -1 }));
  writeFileSync(join(dir, 'rewards.json'), '[1, 2');
  mkdirSync(join(dir, 'resume-truncated'));
  writeFileSync(join(dir, 'resume-truncated', 'trainer.json'), '{"version": 1, "iteration": 3, "par');
  mkdirSync(join(dir, 'resume-invalid'));
  writeFileSync(join(dir, 'resume-invalid', 'trainer.json'), JSON.stringify({ version: 1, iteration: 'three' }));
  mkdirSync(join(dir, 'empty-export'));
});

afterAll(() => {
  if (savedHome === undefined) delete process.env.AWB_HOME;
  else process.env.AWB_HOME = savedHome;
  tmp.cleanup();
});

const p = (name: string) => join(dir, name);

// [what, argv]: argv may name paths through p(); --db points at the scratch store wherever a command takes it.
const CASES: Array<[string, () => string[]]> = [
  ['unknown command', () => ['bogus']],
  ['tasks show: unknown template', () => ['tasks', 'show', 'NoSuchTemplate']],
  ['tasks show: seed not a number', () => ['tasks', 'show', 'ContactsAddContact', '--seed', 'abc']],
  ['tasks show: negative seed', () => ['tasks', 'show', 'ContactsAddContact', '--seed', '-1']],
  ['run: unknown template', () => ['run', '--task', 'NoSuchTemplate', '--db', db]],
  ['run: unknown policy', () => ['run', '--task', 'ContactsAddContact', '--policy', 'bogus', '--db', db]],
  ['run: zero steps', () => ['run', '--task', 'ContactsAddContact', '--max-steps', '0', '--db', db]],
  ['run: --from without --policy replay', () => ['run', '--task', 'ContactsAddContact', '--from', '1', '--db', db]],
  ['run: replay of an episode that does not exist', () => ['run', '--task', 'ContactsAddContact', '--policy', 'replay', '--from', '99999', '--db', db]],
  ['run: an ONNX model that does not exist', () => ['run', '--task', 'ContactsAddContact', '--policy', `onnx:${p('none.onnx')}`, '--db', db]],
  ['run: vlm without an endpoint', () => ['run', '--task', 'ContactsAddContact', '--policy', 'vlm', '--db', db]],
  ['suite run: unknown split', () => ['suite', 'run', '--split', 'bogus', '--db', db]],
  ['suite run: unknown part', () => ['suite', 'run', '--part', 'bogus', '--db', db]],
  ['suite run: unknown policy', () => ['suite', 'run', '--policy', 'bogus', '--db', db]],
  ['suite run: --parallel 0', () => ['suite', 'run', '--parallel', '0', '--db', db]],
  ['suite run: --resume of no run', () => ['suite', 'run', '--resume', '99999', '--db', db]],
  ['suite run: --resume not a number', () => ['suite', 'run', '--resume', 'abc', '--db', db]],
  ['suite run: unknown screenshots mode', () => ['suite', 'run', '--screenshots', 'bogus', '--db', db]],
  ['eval: a checkpoint that does not exist', () => ['eval', '--policy', p('none.json'), '--db', db]],
  ['eval: a checkpoint that is text', () => ['eval', '--policy', p('text.txt'), '--db', db]],
  ['eval: seeds not numbers', () => ['eval', '--policy', 'random', '--seeds', 'a,b', '--db', db]],
  ['eval: unknown split', () => ['eval', '--policy', 'random', '--split', 'bogus', '--db', db]],
  ['eval compare: no such run', () => ['eval', 'compare', '99999', '--db', db]],
  ['policy export-onnx: no checkpoint', () => ['policy', 'export-onnx', '--policy', p('none.json'), '--out', p('out.onnx')]],
  ['policy info: no file', () => ['policy', 'info', p('none.onnx')]],
  ['policy info: a text file', () => ['policy', 'info', p('text.txt')]],
  ['train sft: no config file', () => ['train', 'sft', '--config', p('none.json'), '--out', p('sft-out')]],
  ['train sft: config not JSON', () => ['train', 'sft', '--config', p('not-json.json'), '--out', p('sft-out')]],
  ['train sft: unknown config field', () => ['train', 'sft', '--config', p('sft-unknown.json'), '--out', p('sft-out')]],
  ['train grpo: init that does not exist', () => ['train', 'grpo', '--config', p('grpo-init.json'), '--out', p('grpo-out'), '--db', db]],
  ['train grpo: a bad field', () => ['train', 'grpo', '--config', p('grpo-bad.json'), '--out', p('grpo-out'), '--db', db]],
  ['train grpo: config not JSON', () => ['train', 'grpo', '--config', p('not-json.json'), '--out', p('grpo-out'), '--db', db]],
  ['train grpo: --resume of no folder', () => ['train', 'grpo', '--resume', p('no-such-dir'), '--db', db]],
  ['train grpo: --resume with a truncated trainer.json', () => ['train', 'grpo', '--resume', p('resume-truncated'), '--db', db]],
  ['train grpo: --resume with an invalid trainer.json', () => ['train', 'grpo', '--resume', p('resume-invalid'), '--db', db]],
  ['adapt: unknown app', () => ['adapt', '--app', 'NoSuchApp', '--db', db]],
  ['adapt: a checkpoint that does not exist', () => ['adapt', '--app', 'Clock', '--policy', p('none.json'), '--db', db]],
  ['adapt: shots not a number', () => ['adapt', '--app', 'Clock', '--shots', 'x', '--db', db]],
  ['adapt: unknown method', () => ['adapt', '--app', 'Clock', '--method', 'bogus', '--db', db]],
  ['episodes show: no such episode', () => ['episodes', 'show', '99999', '--db', db]],
  ['episodes show: not a number', () => ['episodes', 'show', 'abc', '--db', db]],
  ['episodes list: unknown status', () => ['episodes', 'list', '--status', 'bogus', '--db', db]],
  ['episodes export: no such run', () => ['episodes', 'export', '--run', '99999', '--out', p('export-out'), '--db', db]],
  ['episodes import: no such folder', () => ['episodes', 'import', p('no-such-export'), '--db', db]],
  ['episodes import: a folder that is not an export', () => ['episodes', 'import', p('empty-export'), '--db', db]],
  ['rewards compute: no such episode', () => ['rewards', 'compute', '--episode', '99999', '--components', 'outcome', '--db', db]],
  ['rewards compute: unknown component', () => ['rewards', 'compute', '--episode', '1', '--components', 'bogus', '--db', db]],
  ['rewards compute: config not JSON', () => ['rewards', 'compute', '--episode', '1', '--config', p('rewards.json'), '--db', db]],
  ['rewards fit: unknown model', () => ['rewards', 'fit', 'bogus']],
  ['rewards fit: unknown split', () => ['rewards', 'fit', 'progrm', '--split', 'bogus', '--out', p('fit.json')]],
  ['jobs trainers add: bad name', () => ['jobs', 'trainers', 'add', 'bad name', '--url', 'http://127.0.0.1:1', '--token', 'x']],
  ['jobs submit: unknown trainer', () => ['jobs', 'submit', '--trainer', 'nosuch', '--kind', 'builtin-sft', '--db', db]],
  ['jobs status: no such job', () => ['jobs', 'status', '99999', '--db', db]],
  ['jobs grpo: unknown trainer', () => ['jobs', 'grpo', '--trainer', 'nosuch', '--iterations', '1', '--db', db]],
  ['endpoints add: no base URL', () => ['endpoints', 'add', 'x']],
  ['endpoints remove: no such profile', () => ['endpoints', 'remove', 'nosuch']],
  ['endpoints test: no such profile', () => ['endpoints', 'test', 'nosuch']],
  ['splits: unknown subcommand', () => ['splits', 'bogus']],
  ['emulator start: odd port', () => ['emulator', 'start', '--port', '5555']],
  ['emulator start: count not a number', () => ['emulator', 'start', '--count', 'x']],
  ['devices connect: no address', () => ['devices', 'connect']],
  ['avd launch: no SDK', () => ['avd', 'launch', 'Pixel_6']],
  ['avd launch: --grpc-use-token without --grpc', () => ['avd', 'launch', 'Pixel_6', '--grpc-use-token']],
  ['run: --grpc that is not a port', () => ['run', '--task', 'x', '--device', 'emulator-5554', '--grpc', 'localhost:99999']],
  ['--db is a folder', () => ['episodes', 'list', '--db', dir]],
];

describe('bad input to every command: one line, non-zero, no stack, nothing written', () => {
  it.each(CASES)('%s', async (_what, argv) => {
    const args = argv();
    const before = fingerprint(dir);
    const savedSdk = process.env.ANDROID_HOME;
    delete process.env.ANDROID_HOME;
    delete process.env.ANDROID_SDK_ROOT;
    let r: Awaited<ReturnType<typeof runCli>>;
    try {
      r = await runCli(...args);
    } finally {
      if (savedSdk !== undefined) process.env.ANDROID_HOME = savedSdk;
    }
    const [line = '', ...rest] = r.err.split('\n');
    expect(r.code, `exit code; stderr: ${r.err}`).not.toBe(0);
    expect(r.err, 'a stack trace').not.toMatch(/\n\s+at /);
    // The first line says what is wrong, whole (not "Invalid config:" with the problems below it); what may follow
    // is the command's synopsis only.
    expect(line, 'starts with awb:').toMatch(/^awb: \S/);
    expect(line, 'a complete first line').not.toMatch(/:$/);
    for (const more of rest) expect(more, `a second line of error: ${r.err}`).toMatch(/^(awb |\s|Usage|$)/);
    expect(fingerprint(dir), `files changed by: awb ${args.join(' ')}`).toEqual(before);
  });
});
