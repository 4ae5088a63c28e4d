import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, requirePython, tinyVlm } from '../python-env.js';

/**
 * The Python package awb_env (resources/awb_env) against the real server and the real packages — Gymnasium's checker,
 * OpenEnv's server and client, TRL's GRPOTrainer on the tiny Qwen2.5-VL — in one pytest process, whose tests share one
 * embedded server (started from this checkout, recording into a temporary store). This checkout's package is the one
 * imported (PYTHONPATH), whichever checkout .venv's editable install points at. Nothing may be skipped.
 */
const PACKAGE = join(REPO_ROOT, 'resources', 'awb_env');

describe('Python package awb_env (pytest)', () => {
  let status: number | null = null;
  let out = '';
  beforeAll(() => {
    const python = requirePython();
    const env: NodeJS.ProcessEnv = {
      ...process.env, PYTHONPATH: PACKAGE, PYTHONDONTWRITEBYTECODE: '1', HF_HUB_OFFLINE: '1', TRL_EXPERIMENTAL_SILENCE: '1', OMP_NUM_THREADS: '1',
      AWB_TINY_VLM: tinyVlm(),
    };
    delete env.AWB_ENV_URL;
    delete env.AWB_DB;
    const r = spawnSync(python, ['-m', 'pytest', '-v', '--tb=short', '-p', 'no:cacheprovider', 'tests'], {
      cwd: PACKAGE, encoding: 'utf8', timeout: 480_000, env,
    });
    status = r.status;
    out = `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? `\n${r.error.message}` : ''}`;
  }, 500_000);

  it('passes with nothing skipped', () => {
    if (status !== 0) console.log(out.slice(-20_000));
    expect(status).toBe(0);
    expect(out).toMatch(/=+ \d+ passed/);
    expect(out).not.toMatch(/\b(skipped|xfailed|xpassed|SKIPPED|XFAIL)\b/);
  });

  it('ran the checks the issue names', () => {
    for (const name of [
      'test_gym.py::test_passes_gymnasiums_env_checker[xml] PASSED',
      'test_vector.py::test_next_step_autoreset_resets_on_the_step_after_the_end PASSED',
      'test_openenv.py::test_openenvs_client_plays_an_episode_through_openenvs_server PASSED',
      'test_trl.py::test_rollout_func_records_the_models_replies_as_steps PASSED',
      'test_trl.py::test_environment_factory_plays_episodes_through_tools PASSED',
      'test_server.py::test_gym_make_works_with_no_server_running_and_stops_it_at_exit PASSED',
      'test_server.py::test_a_refused_vector_env_leaves_no_session_and_a_dying_server_raises_server_gone PASSED',
    ]) expect(out).toContain(name);
  });
});
