import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli as awb } from '../helpers/cli.js';
import { instanceWithParams, GivenParamsError } from '../../core/tasks/instance.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { paramsArg, TaskParamsArgError } from '../../core/cli/run.js';
import { tempAwbHome } from '../store/helpers.js';
import { adbRig, type AdbRig } from '../device/adb-env.js';

/**
 * `awb run --params … --no-init --device S`: our oracle and check on a task instance someone else set up
 * (AndroidWorld's initialize_task, here plain adb shell commands), over the real adb server.
 */
const tmp = tempAwbHome('awb-run-params-');

const NOTES = '/storage/emulated/0/Documents/Markor';
const params = { file_name: 'groceries_list.md', text: 'milk and eggs', others: [{ name: 'call_back.md', text: 'dentist at 3' }] };

describe('awb run --params', () => {
  it('refuses bad parameters before opening a device, each with a named error carrying the value', async () => {
    expect(() => paramsArg('{"file_name": ')).toThrow(TaskParamsArgError);
    expect(() => paramsArg('/no/such/params.json')).toThrow('--params "/no/such/params.json": not inline JSON (no leading "{") and not a readable file (ENOENT)');
    const file = join(tmp.dir, 'list.json');
    writeFileSync(file, '[1, 2]');
    expect(() => paramsArg(file)).toThrow('the file holds an array, not a JSON object');
    try {
      paramsArg('{oops}');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(TaskParamsArgError);
      expect((e as TaskParamsArgError).value).toBe('{oops}');
    }
    const bad = { file_name: 7, others: [] };
    expect(() => instanceWithParams(getTemplate('MarkorDeleteNote'), bad)).toThrow(GivenParamsError);

    const cli = await awb('run', '--task', 'MarkorDeleteNote', '--params', JSON.stringify(bad), '--no-record');
    expect(cli.code).toBe(2);
    expect(cli.err).toMatch(/^awb: MarkorDeleteNote: the given parameters \{"file_name":7,"others":\[\]\} are invalid: file_name: .*; text: /);
    const noDevice = await awb('run', '--task', 'MarkorDeleteNote', '--params', JSON.stringify(params), '--no-init', '--no-record');
    expect(noDevice.code).toBe(2);
    expect(noDevice.err).toContain('--no-init is for a device someone else set up (--device SERIAL)');
  });

  describe('with --no-init on a SimDroid served over adb', () => {
    let rig: AdbRig;
    beforeAll(async () => {
      rig = await adbRig();
    }, 60_000);
    afterAll(async () => {
      await rig?.close();
    });
    const run = (p: unknown) => awb('run', '--task', 'MarkorDeleteNote', '--params', JSON.stringify(p), '--no-init', '--no-record', '--json',
      '--device', rig.serial, '--adb-port', String(rig.server.port), '--console-token', rig.tokenPath);

    it('solves the instance the device already holds, leaving the rest of its state alone', async () => {
      // Set up by hand, as another harness would: the notes, and a file outside the task that a reset would drop.
      for (const cmd of [`rm -rf ${NOTES}`, `mkdir -p ${NOTES}`, `echo -n '${params.text}' > ${NOTES}/${params.file_name}`,
        `echo -n '${params.others[0]!.text}' > ${NOTES}/${params.others[0]!.name}`, 'echo kept > /sdcard/Download/outside.txt']) {
        expect((await rig.device.shell(cmd)).exitCode, cmd).toBe(0);
      }
      const r = await run(params);
      expect(r.code, r.err).toBe(0);
      const out = JSON.parse(r.out) as { success: boolean; instruction: string; seed: number };
      expect(out.instruction).toBe(`Delete the note in Markor named ${params.file_name}.`);
      expect(out.success, r.out).toBe(true);
      expect((await rig.device.shell(`ls ${NOTES}`)).stdout.trim()).toBe(params.others[0]!.name);
      expect((await rig.device.shell('cat /sdcard/Download/outside.txt')).stdout.trim()).toBe('kept');

      // Nothing set it up again: the note is gone, so the oracle cannot find it.
      const second = await run(params);
      const again = JSON.parse(second.out) as { success: boolean; status: string; error: { name: string } | null };
      expect(again.status, second.out).toBe('error');
      expect(again.error?.name).toBe('OracleError');
    }, 120_000);
  });
});
