import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { adbRig, type AdbRig } from './adb-env.js';

let rig: AdbRig | undefined;
afterAll(async () => rig?.close());

describe('awb devices', () => {
  // Issue 16 (minor): `awb devices --json` printed the usage and exited 2 (the flag was taken for a subcommand).
  it('--json with no subcommand lists, as `awb devices list --json` does', async () => {
    rig = await adbRig();
    const port = String(rig.server.port);
    const bare = await runCli('devices', '--json', '--adb-port', port);
    expect(bare).toMatchObject({ code: 0, err: '' });
    const listed = JSON.parse(bare.out) as Array<{ serial: string; state: string }>;
    expect(listed).toContainEqual(expect.objectContaining({ serial: rig.serial, state: 'device' }));
    const explicit = await runCli('devices', 'list', '--json', '--adb-port', port);
    expect(JSON.parse(explicit.out)).toEqual(listed);
    expect((await runCli('devices', 'nosuch')).code).toBe(2);
  });
});
