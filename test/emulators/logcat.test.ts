import { afterAll, describe, expect, it } from 'vitest';
import { device } from '../helpers/simdroid.js';
import type { Follower } from '../../emulators/simdroid/shell/run.js';

/** SimDroid's device log and `logcat` in process (the adb session that follows it: adb/services.test.ts, android-env.test.ts). */
const d = device();
afterAll(() => d.close());
const run = (cmd: string, follow = false) => {
  const r = d.shellBytes(cmd, undefined, { follow });
  return { out: r.stdout.toString('utf8'), err: r.stderr.toString('utf8'), code: r.exitCode, follow: r.follow };
};
const SMS = 'am start -n com.simplemobiletools.smsmessenger/.activities.MainActivity';
const DISPLAYED = 'Displayed com.simplemobiletools.smsmessenger/.activities.MainActivity: +120ms';

describe('logcat', () => {
  it("logs ActivityTaskManager's Displayed line when an activity comes to the front, in logcat's formats", () => {
    run('logcat -b all -c');
    expect(run('logcat -d').out).toBe('');
    run(SMS);
    const t = d.clock.now();
    const epoch = `${String(Math.floor(t / 1000)).padStart(19)}.${String(t % 1000).padStart(3, '0')}`;
    // android_env's logcat thread parses `-v epoch` lines with this pattern (logcat_thread.py).
    const line = run('logcat -d -v epoch ActivityTaskManager:I *:S').out;
    expect(line).toBe(`${epoch}   542   569 I ActivityTaskManager: ${DISPLAYED}\n`);
    expect(line).toMatch(/^[ ]+[0-9]+\.[0-9]+[ ]+[0-9]+[ ]+[0-9]+[ ]+.[ ]+[^:]*:[ ].*$/m);
    expect(run('logcat -d -v brief').out).toBe(`I/ActivityTaskManager(  542): ${DISPLAYED}\n`);
    expect(run('logcat -d -v threadtime').out).toMatch(/^10-15 15:\d\d:\d\d\.\d{3}   542   569 I ActivityTaskManager: Displayed /);
  });

  it('filters by tag and priority, by buffer, keeps the last -t lines, and clears', () => {
    run('input keyevent KEYCODE_HOME');
    expect(run('logcat -d -v tag').out.split('\n').filter(Boolean)).toHaveLength(2);
    expect(run('logcat -d -t 1 -v tag').out).toBe('I/ActivityTaskManager: Displayed com.google.android.apps.nexuslauncher/.NexusLauncherActivity: +120ms\n');
    expect(run('logcat -d -s').out).toBe('');
    expect(run('logcat -d ActivityTaskManager:W *:S').out).toBe('');
    expect(run('logcat -d -b main').out).toBe('');
    run('logcat -b system -c');
    expect(run('logcat -d').out).toBe('');
  });

  it('follows new entries only when the session allows it, and stops when told', () => {
    expect(run('logcat').follow).toBeUndefined();
    const r = run(`export ANDROID_LOG_TAGS="''" ; exec logcat -v raw`, true);
    expect(r.code).toBe(0);
    const got: string[] = [];
    const stop = (r.follow as Follower)((b) => got.push(b.toString()));
    run(SMS);
    expect(got).toEqual([`${DISPLAYED}\n`]);
    stop();
    run('input keyevent KEYCODE_HOME');
    expect(got).toHaveLength(1);
    expect(d.log.following).toBe(0);
    // Not the line's last command, or in a pipeline: print what is buffered and end.
    expect(run('logcat -v raw | grep Displayed', true).follow).toBeUndefined();
  });

  it('refuses bad options and filters like logcat, and export checks its names and sets variables', () => {
    expect(run('logcat -q')).toMatchObject({ code: 1, err: "logcat: invalid option -- 'q'\n" });
    expect(run('logcat -b nope -d')).toMatchObject({ code: 1, err: "logcat: Unknown buffer 'nope' listed for -b.\n" });
    expect(run('logcat -d Tag:Q')).toMatchObject({ code: 1, err: "logcat: Invalid filter expression 'Tag:Q'\n" });
    expect(run('logcat -d -v fancy')).toMatchObject({ code: 1, err: "logcat: unknown format 'fancy'\n" });
    expect(run('export 1X=2')).toMatchObject({ code: 1, err: '/system/bin/sh: export: 1X: is not an identifier\n' });
    expect(run('export GREETING="hi there"; echo "$GREETING"').out).toBe('hi there\n');
    expect(run('exec echo in place').out).toBe('in place\n');
  });
});
