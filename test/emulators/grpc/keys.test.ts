import { describe, expect, it } from 'vitest';
import { KeyInputError, keyboardInput, type KeyboardEventRequest } from '../../../emulators/simdroid/grpc/keys.js';

/**
 * sendKey's translation, as android-emu's EmulatorKeyEventSender does it: DOM key value → DOM code →
 * evdev → Android key (Generic.kl); key codes → evdev. The server round trip: server.test.ts.
 */
const ev = (e: Partial<KeyboardEventRequest>) => keyboardInput({ codeType: 'Usb', eventType: 'keypress', keyCode: 0, key: '', text: '', ...e });
const key = (k: string) => ev({ key: k });

describe('sendKey key values', () => {
  it('maps the emulator\'s Android names and the browser ones as the emulator does (GoHome is HOME, Home is MOVE_HOME)', () => {
    expect(key('GoHome')).toEqual([{ kind: 'key', key: 'HOME' }]);
    expect(key('BrowserHome')).toEqual([{ kind: 'key', key: 'HOME' }]);
    expect(key('Home')).toEqual([{ kind: 'key', key: 'MOVE_HOME' }]);
    expect(key('End')).toEqual([{ kind: 'key', key: 'MOVE_END' }]);
    expect(key('GoBack')).toEqual([{ kind: 'key', key: 'BACK' }]);
    expect(key('BrowserBack')).toEqual([{ kind: 'key', key: 'BACK' }]);
    expect(key('AppSwitch')).toEqual([{ kind: 'key', key: 'APP_SWITCH' }]);
    expect(key('Backspace')).toEqual([{ kind: 'key', key: 'DEL' }]);
    expect(key('Enter')).toEqual([{ kind: 'key', key: 'ENTER' }]);
    expect(key(' ')).toEqual([{ kind: 'key', key: 'SPACE' }]);
    expect(key('é')).toEqual([{ kind: 'text', text: 'é' }]);
  });

  it('names the Android key of a real key SimDroid does not act on (Power, volume, arrows)', () => {
    for (const [k, android] of [['Power', 'POWER'], ['AudioVolumeUp', 'VOLUME_UP'], ['AudioVolumeDown', 'VOLUME_DOWN'], ['AudioVolumeMute', 'VOLUME_MUTE'], ['ArrowUp', 'DPAD_UP'], ['Delete', 'FORWARD_DEL']] as const) {
      expect(() => key(k)).toThrow(new RegExp(`^key event key "${k}": KEYCODE_${android} \\(evdev \\d+\\) is a key SimDroid does not act on$`));
    }
    const err = (() => {
      try {
        key('Frobnicate');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(KeyInputError);
    expect(err).toMatchObject({ field: 'key', value: 'Frobnicate' });
  });

  it('sends key, then text, then key code when several are set; a key-up alone does nothing', () => {
    expect(ev({ key: 'a', text: 'bc', codeType: 'Evdev', keyCode: 28 })).toEqual([
      { kind: 'text', text: 'a' }, { kind: 'text', text: 'bc' }, { kind: 'key', key: 'ENTER' },
    ]);
    expect(ev({ key: 'GoHome', eventType: 'keyup' })).toEqual([]);
    expect(ev({ text: 'typed', eventType: 'keyup' })).toEqual([{ kind: 'text', text: 'typed' }]);
    // A bad part refuses the whole event before anything is sent.
    expect(() => ev({ key: 'Enter', codeType: 'Evdev', keyCode: 116 })).toThrow(/KEYCODE_POWER/);
  });

  it('translates key codes: XKB (android_env on Linux), USB usages and evdev', () => {
    expect(ev({ codeType: 'XKB', keyCode: 172 + 8 })).toEqual([{ kind: 'key', key: 'HOME' }]);
    expect(ev({ codeType: 'Usb', keyCode: 0x0c0224 })).toEqual([{ kind: 'key', key: 'BACK' }]);
    expect(ev({ codeType: 'Usb', keyCode: 0x0c01a2 })).toEqual([{ kind: 'key', key: 'APP_SWITCH' }]);
    expect(ev({ codeType: 'Usb', keyCode: 0x070004 })).toEqual([{ kind: 'text', text: 'a' }]);
    expect(() => ev({ codeType: 'Usb', keyCode: 0x0c00e9 })).toThrow(/KEYCODE_VOLUME_UP/);
    expect(() => ev({ codeType: 'Mac', keyCode: 36 })).toThrow(KeyInputError);
    expect(() => ev({})).toThrow(/one of them must be set/);
  });
});
