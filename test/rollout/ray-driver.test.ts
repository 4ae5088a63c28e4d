import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createModel } from '../../core/policy/builtin.js';
import { saveCheckpoint } from '../../core/policy/checkpoint.js';
import { RayEnvServers, RayRolloutError } from '../../core/rollout/ray.js';
import { createRng } from '../../core/util/rng.js';
import { runCli } from '../helpers/cli.js';
import { scratch } from '../helpers/scratch.js';

/**
 * Starting Ray rollouts where they cannot run: each a RayRolloutError in one line naming the bad value, with nothing
 * left running (core/rollout/ray.ts and `python -m awb_ray serve`, resources/awb_ray). Rollouts on a real cluster:
 * test/jobs/ray-jobs.test.ts.
 */
const tmp = scratch('awb-ray-driver-');
afterAll(tmp.cleanup);

const refusal = (p: Promise<unknown>) => p.then(() => { throw new Error('not refused'); }, (e: unknown) => e as RayRolloutError);

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as { port: number };
  await new Promise((r) => s.close(r));
  return port;
}

describe('Ray rollouts that cannot start', () => {
  it('an unreachable cluster: one error from the driver before any actor', async () => {
    const address = `127.0.0.1:${await freePort()}`;
    const e = await refusal(RayEnvServers.start({ address, envs: 2 }));
    expect(e).toBeInstanceOf(RayRolloutError);
    expect(e).toMatchObject({ address, kind: 'ClusterUnreachableError' });
    expect(e.message).toMatch(new RegExp(`^Ray cluster '${address}' unreachable: ConnectionRefusedError`));
  });

  it('an address Ray does not take, a runtime env that is not a JSON object, a Python that is not there', async () => {
    expect((await refusal(RayEnvServers.start({ address: 'head-without-port', envs: 1 }))).message)
      .toBe(`Ray rollouts on head-without-port: bad address: must be HOST:PORT of the head's GCS, ray://HOST:PORT (Ray Client), or auto, got "head-without-port"`);
    expect((await refusal(RayEnvServers.start({ address: '127.0.0.1:1', envs: 1, env: { ...process.env, AWB_RAY_RUNTIME_ENV: '[1]' } }))).message)
      .toBe('Ray rollouts on 127.0.0.1:1: AWB_RAY_RUNTIME_ENV: must be a JSON object, got "[1]"');
    expect((await refusal(RayEnvServers.start({ address: '127.0.0.1:1', envs: 1, env: { ...process.env, AWB_PYTHON: '/nonexistent/python' } }))).message)
      .toMatch(/^Ray rollouts on 127\.0\.0\.1:1: driver: cannot run \/nonexistent\/python: spawn \/nonexistent\/python ENOENT/);
  });

  it('the CLI refuses --ray with --parallel or a VLM, --envs without --ray, and an unreachable cluster before a run exists', async () => {
    expect(await runCli('suite', 'run', '--ray', 'auto', '--parallel', '2')).toMatchObject({ code: 2, err: expect.stringContaining('--ray runs the episodes on the cluster\'s SimDroids (--envs N): drop --device and --parallel') });
    expect(await runCli('suite', 'run', '--envs', '2')).toMatchObject({ code: 2, err: expect.stringContaining('--envs and --envs-per-actor size a Ray cluster\'s share: give --ray ADDRESS too') });
    expect(await runCli('eval', '--policy', 'oracle', '--ray', 'auto', '--parallel', '3')).toMatchObject({ code: 2, err: expect.stringContaining('drop --parallel') });
    expect(await runCli('suite', 'run', '--ray', 'x:y')).toMatchObject({ code: 2, err: expect.stringContaining("--ray: must be HOST:PORT of the head's GCS") });
    const db = `${process.env.TMPDIR ?? '/tmp'}/awb-ray-driver-${process.pid}.db`;
    const r = await runCli('suite', 'run', '--limit', '1', '--ray', `127.0.0.1:${await freePort()}`, '--db', db);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^awb: Ray cluster '127\.0\.0\.1:\d+' unreachable: ConnectionRefusedError/);
    // The cluster is asked first: the store was not even opened, so no run was left behind.
    expect(existsSync(db)).toBe(false);
  });

  it('awb adapt with a ray section: an unreachable cluster is one error before the first evaluation, nothing saved', async () => {
    const dir = tmp.dir();
    const policy = join(dir, 'policy.json');
    saveCheckpoint(policy, createModel(createRng('ray-driver/adapt')));
    const config = join(dir, 'adapt.json');
    writeFileSync(config, JSON.stringify({ ray: { address: `127.0.0.1:${await freePort()}`, envs: 2 } }));
    const out = join(dir, 'adapter.json');
    const r = await runCli('adapt', '--app', 'Clock', '--policy', policy, '--config', config, '--out', out, '--json');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^awb: Ray cluster '127\.0\.0\.1:\d+' unreachable: ConnectionRefusedError[^\n]*$/);
    expect(r.out).toBe(''); // not one progress event: the base was not evaluated
    expect(existsSync(out)).toBe(false);
  });
});
