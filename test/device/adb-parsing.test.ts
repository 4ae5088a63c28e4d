import { describe, expect, it } from 'vitest';
import { extractDump, inputTextArg, parseFocus } from '../../core/device/adb/adb-device.js';
import { parseRawScreencap } from '../../core/device/adb/screencap.js';
import { parseShellV2 } from '../../core/device/adb/transport.js';
import { parseAddress, AdbConnectError } from '../../core/device/adb/server.js';

describe('adb output parsing', () => {
  it('finds the focused window, or the focused app during a transition', () => {
    expect(parseFocus('  mCurrentFocus=Window{8ff3473 u0 com.android.settings/com.android.settings.SubSettings}\n')).toEqual({ package: 'com.android.settings', activity: 'com.android.settings.SubSettings' });
    expect(parseFocus('  mCurrentFocus=null\n  mFocusedApp=ActivityRecord{a9c37e0 u0 org.tasks/com.todoroo.astrid.activity.MainActivity t12}')).toEqual({ package: 'org.tasks', activity: 'com.todoroo.astrid.activity.MainActivity' });
    expect(parseFocus('  mFocusedApp=ActivityRecord{a9c u0 com.android.settings/.Settings t3}')).toEqual({ package: 'com.android.settings', activity: 'com.android.settings.Settings' });
    expect(parseFocus('nothing here')).toBeNull();
  });

  it('extracts the XML from uiautomator dump output and notices failures', () => {
    const xml = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\"></hierarchy>";
    expect(extractDump(`${xml}UI hierchary dumped to: /dev/tty\n`)).toBe(xml);
    expect(extractDump('ERROR: could not get idle state.\n')).toBeNull();
  });

  it('reads raw screencap with the 12- and 16-byte headers', () => {
    for (const headerLen of [12, 16]) {
      const raw = Buffer.alloc(headerLen + 2 * 3 * 4);
      raw.writeUInt32LE(2, 0);
      raw.writeUInt32LE(3, 4);
      raw.writeUInt32LE(1, 8);
      raw[headerLen] = 0xab;
      const r = parseRawScreencap(raw);
      expect([r.width, r.height, r.rgba.length, r.rgba[0]]).toEqual([2, 3, 24, 0xab]);
    }
    expect(() => parseRawScreencap(Buffer.alloc(30))).toThrow(RangeError);
  });

  it('parses shell protocol v2 packets', () => {
    const pkt = (id: number, data: Buffer) => Buffer.concat([Buffer.from([id]), Buffer.from(new Uint32Array([data.length]).buffer), data]);
    const r = parseShellV2(Buffer.concat([pkt(1, Buffer.from('out')), pkt(2, Buffer.from('err')), pkt(1, Buffer.from('!')), pkt(3, Buffer.from([7]))]));
    expect(r).toMatchObject({ stdout: 'out!', stderr: 'err', exitCode: 7 });
  });

  it('escapes text for `input text`', () => {
    expect(inputTextArg('hello world')).toBe('hello%sworld');
    expect(inputTextArg("it's $5")).toBe("'it'\\''s%s$5'");
  });

  it('checks host:port addresses', () => {
    expect(parseAddress('10.0.0.2:5555')).toEqual({ host: '10.0.0.2', port: 5555 });
    expect(() => parseAddress('nope')).toThrow(AdbConnectError);
    expect(() => parseAddress('h:99999')).toThrow('expected host:port');
  });
});
