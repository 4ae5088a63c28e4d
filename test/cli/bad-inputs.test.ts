import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { runCli } from '../helpers/cli.js';
import { scratch } from '../helpers/scratch.js';

/**
 * Issue 16: every command refuses bad input the way a careful CLI does — one line on stderr, a non-zero exit, no
 * stack trace, and nothing written (no run left 'running', no file created or changed). Each row is a command line a
 * careless user types; paths point into a scratch folder that is fingerprinted before and after.
 */
const tmp = scratch('awb-badinput-');
const AWB = fileURLToPath(new URL('../../bin/awb.js', import.meta.url));
let dir: string;
let home: string;
let db: string;
const savedHome = process.env.AWB_HOME;

/**
 * Every file under `root` with its size and hash (SQLite's -wal/-shm included: a write shows there first); links and
 * FIFOs by what they are, never opened (the crafted imports hold both).
 */
function fingerprint(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) {
        out[`${relative(root, p)}/`] = 'dir';
        walk(p);
      } else if (e.isSymbolicLink()) {
        out[relative(root, p)] = `link:${readlinkSync(p)}`;
      } else if (!e.isFile()) {
        out[relative(root, p)] = 'special';
      } else {
        out[relative(root, p)] = `${lstatSync(p).size}:${createHash('sha256').update(readFileSync(p)).digest('hex').slice(0, 16)}`;
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
  writeFileSync(join(dir, 'adapt-ray-bad.json'), JSON.stringify({ ray: { address: 'head-without-port', envs: 0 } }));
  writeFileSync(join(dir, 'adapt-workers.json'), JSON.stringify({ grpo: { devices: 2, rolloutWorkers: 3 } }));
  writeFileSync(join(dir, 'rewards.json'), '[1, 2');
  mkdirSync(join(dir, 'resume-truncated'));
  writeFileSync(join(dir, 'resume-truncated', 'trainer.json'), '{"version": 1, "iteration": 3, "par');
  mkdirSync(join(dir, 'resume-invalid'));
  writeFileSync(join(dir, 'resume-invalid', 'trainer.json'), JSON.stringify({ version: 1, iteration: 'three' }));
  mkdirSync(join(dir, 'empty-export'));
  writeFileSync(join(dir, 'grpo-one.json'), JSON.stringify({ iterations: 1, devices: 1, rolloutWorkers: 0, instancesPerIteration: 1, rolloutsPerInstance: 2, maxSteps: 2 }));
  writeFileSync(join(dir, 'sft-one.json'), '{}');
  craftedExports();
  // A port another program holds.
  busy = createServer();
  await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
  busyPort = (busy.address() as { port: number }).port;
});

let busy: Server;
let busyPort = 0;

/** Issue 32: a good export of the store's episode, and copies of it crafted the way a hostile or broken one is. */
function craftedExports(): void {
  const good = join(dir, 'good-export');
  execFileSync(process.execPath, [AWB, 'episodes', 'export', '1', '--out', good, '--db', db], { stdio: 'ignore' });
  const copy = (name: string, edit: (d: string) => void) => {
    const d = join(dir, name);
    cpSync(good, d, { recursive: true });
    edit(d);
  };
  const jsonl = (d: string) => join(d, 'episodes.jsonl');
  const editLine = (d: string, f: (line: Record<string, unknown>) => Record<string, unknown>[]) =>
    writeFileSync(jsonl(d), `${f(JSON.parse(readFileSync(jsonl(d), 'utf8').trim())).map((l) => JSON.stringify(l)).join('\n')}\n`);
  copy('prior-export', () => {});
  copy('import-fifo', (d) => {
    renameSync(jsonl(d), join(d, 'saved.jsonl'));
    execFileSync('mkfifo', [jsonl(d)]);
  });
  copy('import-link-out', (d) => {
    const shot = join(d, 'screenshots', readdirSync(join(d, 'screenshots'))[0]!);
    renameSync(shot, join(d, 'saved.png'));
    symlinkSync('/dev/zero', shot);
  });
  copy('import-manifest-fifo', (d) => {
    renameSync(join(d, 'manifest.json'), join(d, 'saved.json'));
    execFileSync('mkfifo', [join(d, 'manifest.json')]);
  });
  copy('import-manifest-dir', (d) => {
    renameSync(join(d, 'manifest.json'), join(d, 'saved.json'));
    mkdirSync(join(d, 'manifest.json'));
  });
  copy('import-counts', (d) => {
    const m = JSON.parse(readFileSync(join(d, 'manifest.json'), 'utf8'));
    writeFileSync(join(d, 'manifest.json'), JSON.stringify({ ...m, counts: { ...m.counts, episodes: m.counts.episodes + 1 } }));
  });
  copy('import-success-false', (d) => editLine(d, (l) => [{ ...l, success: false }]));
  copy('import-failure-true', (d) => editLine(d, (l) => [{ ...l, status: 'failure', success: true }]));
  copy('import-verdict', (d) => editLine(d, (l) => [{ ...l, verdict: { ok: false, conditions: [] } }]));
  copy('import-dup-uid', (d) => {
    editLine(d, (l) => [l, { ...l, seed: 99 }]);
    const m = JSON.parse(readFileSync(join(d, 'manifest.json'), 'utf8'));
    writeFileSync(join(d, 'manifest.json'), JSON.stringify({ ...m, counts: { ...m.counts, episodes: 2, steps: m.counts.steps * 2 } }));
  });
  copy('import-asset-dir', (d) => {
    const shot = join(d, 'screenshots', readdirSync(join(d, 'screenshots'))[0]!);
    renameSync(shot, join(d, 'saved.png'));
    mkdirSync(shot);
  });
  // A store whose write-ahead log is a link to a device: SQLite refuses to open it.
  mkdirSync(join(dir, 'wal-link'));
  cpSync(db, join(dir, 'wal-link', 't.db'));
  symlinkSync('/dev/full', join(dir, 'wal-link', 't.db-wal'));
}

afterAll(() => {
  busy.close();
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
  ['models: unknown model', () => ['models', 'bogus']],
  ['models minilm: --out is a file', () => ['models', 'minilm', '--out', p('text.txt')]],
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
  ['adapt: a bad ray section in --config', () => ['adapt', '--app', 'Clock', '--policy', p('none.json'), '--config', p('adapt-ray-bad.json'), '--db', db]],
  ['adapt: more rollout workers than devices in --config', () => ['adapt', '--app', 'Clock', '--policy', p('none.json'), '--config', p('adapt-workers.json'), '--db', db]],
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

  // Issue 32: environment faults, path confusions, crafted imports and resumes, each refused before anything is written.
  ['suite run: --resume of a run that is not a suite run', () => ['suite', 'run', '--resume', '1', '--db', db]],
  ['suite run: --resume with --policy', () => ['suite', 'run', '--resume', '1', '--policy', 'oracle', '--db', db]],
  ['suite run: --limit 0', () => ['suite', 'run', '--limit', '0', '--db', db]],
  ['suite run: --parallel 65', () => ['suite', 'run', '--parallel', '65', '--db', db]],
  ['suite run: a VLM key variable that is not set', () => ['suite', 'run', '--policy', 'vlm', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm', '--api-key-env', 'AWB_TEST_UNSET_KEY', '--db', db]],
  ['--db empty (episodes list)', () => ['episodes', 'list', '--db', '']],
  ['--db empty (run)', () => ['run', '--task', 'ContactsAddContact', '--db', '']],
  ['--db empty (suite run)', () => ['suite', 'run', '--limit', '1', '--db', '']],
  ['--db empty (train grpo)', () => ['train', 'grpo', '--config', p('grpo-one.json'), '--out', p('grpo-out'), '--db', '']],
  ['--db empty (serve)', () => ['serve', '--no-adb', '--no-device', '--db', '']],
  ['--db in a "folder" that is a file (EEXIST)', () => ['episodes', 'list', '--db', join(p('text.txt'), 'store.db')]],
  ['--db under a file, run (ENOTDIR)', () => ['run', '--task', 'ContactsAddContact', '--db', join(p('text.txt'), 'sub', 'store.db')]],
  ['--db is a text file', () => ['episodes', 'list', '--db', p('text.txt')]],
  ['--db in a folder SQLite cannot create in (CANTOPEN)', () => ['episodes', 'list', '--db', '/proc/self/awb-store.db']],
  ['--db whose -wal is a link to a device (CANTOPEN)', () => ['episodes', 'list', '--db', join(p('wal-link'), 't.db')]],
  ['--db is a FIFO', () => ['episodes', 'list', '--db', join(p('import-fifo'), 'episodes.jsonl')]],
  ['run: --screenshots is a file (EEXIST)', () => ['run', '--task', 'ContactsAddContact', '--screenshots', p('text.txt'), '--db', db]],
  ['run: --params is a folder (EISDIR)', () => ['run', '--task', 'ContactsAddContact', '--params', p('empty-export'), '--db', db]],
  ['run: --max-steps 501', () => ['run', '--task', 'ContactsAddContact', '--max-steps', '501', '--db', db]],
  ['run: --policy human with no terminal', () => ['run', '--task', 'ContactsAddContact', '--policy', 'human', '--db', db]],
  ['run: --no-init without --device', () => ['run', '--task', 'ContactsAddContact', '--no-init', '--db', db]],
  ['run: --subgoals with --no-record', () => ['run', '--task', 'ContactsAddContact', '--subgoals', '--no-record', '--db', db]],
  ['train grpo: --out is a file', () => ['train', 'grpo', '--config', p('grpo-one.json'), '--out', p('text.txt'), '--db', db]],
  ['train grpo: --out under a file', () => ['train', 'grpo', '--config', p('grpo-one.json'), '--out', join(p('text.txt'), 'ckpt'), '--db', db]],
  ['train grpo: --config is a folder (EISDIR)', () => ['train', 'grpo', '--config', p('empty-export'), '--out', p('grpo-out'), '--db', db]],
  ['train grpo: --resume is a file', () => ['train', 'grpo', '--resume', p('text.txt'), '--db', db]],
  ['train sft: --out is a file', () => ['train', 'sft', '--config', p('sft-one.json'), '--out', p('text.txt')]],
  ['episodes export: --out is a file', () => ['episodes', 'export', '1', '--out', p('text.txt'), '--db', db]],
  ['episodes export: --out holds an export (no --force)', () => ['episodes', 'export', '1', '--out', p('prior-export'), '--db', db]],
  ['episodes export: --out empty', () => ['episodes', 'export', '1', '--out', '', '--db', db]],
  ['episodes export: an episode that does not exist among good ones', () => ['episodes', 'export', '1', '99999', '--out', p('export-new'), '--db', db]],
  ['episodes import: a file, not a folder', () => ['episodes', 'import', p('text.txt'), '--db', db]],
  ['episodes import: episodes.jsonl is a FIFO', () => ['episodes', 'import', p('import-fifo'), '--db', db]],
  ['episodes import: manifest.json is a FIFO', () => ['episodes', 'import', p('import-manifest-fifo'), '--db', db]],
  ['episodes import: manifest.json is a folder', () => ['episodes', 'import', p('import-manifest-dir'), '--db', db]],
  ['episodes import: a screenshot links out of the folder (to a device)', () => ['episodes', 'import', p('import-link-out'), '--db', db]],
  ['episodes import: a screenshot is a folder', () => ['episodes', 'import', p('import-asset-dir'), '--db', db]],
  ['episodes import: the manifest counts another number of episodes', () => ['episodes', 'import', p('import-counts'), '--db', db]],
  ['episodes import: status success with success false', () => ['episodes', 'import', p('import-success-false'), '--db', db]],
  ['episodes import: status failure with success true', () => ['episodes', 'import', p('import-failure-true'), '--db', db]],
  ['episodes import: a verdict that contradicts the status', () => ['episodes', 'import', p('import-verdict'), '--db', db]],
  ['episodes import: one uid on two lines with different records', () => ['episodes', 'import', p('import-dup-uid'), '--db', db]],
  ['serve: a port another program holds (EADDRINUSE)', () => ['serve', '--no-adb', '--no-device', '--port', String(busyPort), '--db', db]],
  ['serve: --port 65536', () => ['serve', '--port', '65536', '--db', db]],
  ['serve: a token too short', () => ['serve', '--no-adb', '--no-device', '--token', 'short', '--db', db]],
  ['jobs submit --retry of no job', () => ['jobs', 'submit', '--retry', '99999', '--db', db]],
  ['eval: --parallel 0', () => ['eval', '--policy', 'random', '--parallel', '0', '--db', db]],
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
