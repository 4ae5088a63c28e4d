import type { InputEvent, KeyName } from '../../../core/device/device.js';

/**
 * The emulator's KeyboardEvent onto SimDroid's input, along the emulator's own path
 * (android-emu's EmulatorKeyEventSender): a key code becomes a Linux evdev code (XKB = evdev + 8;
 * USB = HID page << 16 | usage); a DOM key value that is not printable ("Enter", "GoHome",
 * "Power") becomes the evdev code of its DOM code (Chromium's UI Events tables, plus the
 * emulator's Android additions GoBack, GoHome and AppSwitch); a printable one ("a", " ") is typed.
 * The evdev code then goes through Android's Generic.kl. So "GoHome" and "BrowserHome" are
 * KEYCODE_HOME (evdev KEY_HOMEPAGE) while "Home" is KEYCODE_MOVE_HOME (evdev KEY_HOME).
 */
export const KEY_CODE_TYPES = ['Usb', 'Evdev', 'XKB', 'Win', 'Mac'] as const;
export type KeyCodeType = (typeof KEY_CODE_TYPES)[number];
export const KEY_EVENT_TYPES = ['keydown', 'keyup', 'keypress'] as const;
export type KeyEventType = (typeof KEY_EVENT_TYPES)[number];

export class KeyInputError extends Error {
  override name = 'KeyInputError';
  constructor(readonly field: string, readonly value: unknown, detail: string) {
    super(`key event ${field} ${JSON.stringify(value)}: ${detail}`);
  }
}

/** evdev codes of the keys SimDroid handles (linux/input-event-codes.h) → Android key (Generic.kl). */
const EVDEV_KEYS: ReadonlyMap<number, KeyName> = new Map([
  [1, 'ESCAPE'], [14, 'DEL'], [15, 'TAB'], [28, 'ENTER'], [57, 'SPACE'], [96, 'ENTER'],
  [102, 'MOVE_HOME'], [107, 'MOVE_END'], [158, 'BACK'], [172, 'HOME'], [580, 'APP_SWITCH'],
]);

/** evdev codes of the letter and digit rows → the character typed (no modifier state is kept). */
const EVDEV_CHARS: ReadonlyMap<number, string> = new Map([
  ...[...'1234567890'].map((c, i) => [2 + i, c] as const),
  ...[...'qwertyuiop'].map((c, i) => [16 + i, c] as const),
  ...[...'asdfghjkl'].map((c, i) => [30 + i, c] as const),
  ...[...'zxcvbnm'].map((c, i) => [44 + i, c] as const),
  [12, '-'], [13, '='], [51, ','], [52, '.'], [53, '/'],
]);

/** USB HID keyboard-page usages (0x07) and consumer-page controls (0x0C) → evdev. */
function usbToEvdev(code: number): number | undefined {
  const page = code >>> 16;
  const usage = code & 0xffff;
  if (page === 0x0c) return ({ 0x223: 172, 0x224: 158, 0x221: 217, 0x1a2: 580, 0xe2: 113, 0xe9: 115, 0xea: 114 } as Record<number, number>)[usage];
  if (page !== 0x07) return undefined;
  if (usage >= 0x04 && usage <= 0x1d) {
    const letter = String.fromCharCode(97 + usage - 0x04);
    return [...EVDEV_CHARS].find(([, c]) => c === letter)?.[0];
  }
  if (usage >= 0x1e && usage <= 0x27) return 2 + usage - 0x1e;
  return ({
    0x28: 28, 0x29: 1, 0x2a: 14, 0x2b: 15, 0x2c: 57, 0x49: 110, 0x4a: 102, 0x4b: 104, 0x4c: 111, 0x4d: 107, 0x4e: 109,
    0x4f: 106, 0x50: 105, 0x51: 108, 0x52: 103, 0x58: 96, 0x66: 116,
  } as Record<number, number>)[usage];
}

/** evdev codes the emulator can send whose Android key (Generic.kl) SimDroid does not act on: named in the error. */
const EVDEV_UNHANDLED: ReadonlyMap<number, string> = new Map([
  [103, 'DPAD_UP'], [104, 'PAGE_UP'], [105, 'DPAD_LEFT'], [106, 'DPAD_RIGHT'], [108, 'DPAD_DOWN'], [109, 'PAGE_DOWN'],
  [110, 'INSERT'], [111, 'FORWARD_DEL'], [113, 'VOLUME_MUTE'], [114, 'VOLUME_DOWN'], [115, 'VOLUME_UP'], [116, 'POWER'],
  [143, 'WAKEUP'], [217, 'SEARCH'],
]);

/**
 * Non-printable W3C key values → the evdev code the emulator sends for them (DomKey → DomCode →
 * evdev). Names the emulator does not know are not here; it ignores them, SimDroid refuses them.
 */
const DOM_KEY_EVDEV: Readonly<Record<string, number>> = {
  Enter: 28, Backspace: 14, Tab: 15, Escape: 1, Home: 102, End: 107, PageUp: 104, PageDown: 109,
  ArrowUp: 103, ArrowDown: 108, ArrowLeft: 105, ArrowRight: 106, Delete: 111, Insert: 110,
  BrowserBack: 158, BrowserHome: 172, BrowserSearch: 217, Power: 116, WakeUp: 143,
  AudioVolumeUp: 115, AudioVolumeDown: 114, AudioVolumeMute: 113,
  // The emulator's Android additions (GoBack = AC Back, GoHome = AC Home, AppSwitch = Overview).
  GoBack: 158, GoHome: 172, AppSwitch: 580,
};

/** The Android key an evdev code is (Generic.kl), or a KeyInputError naming what SimDroid lacks. */
function androidKey(field: string, value: unknown, evdev: number | undefined, via: string): InputEvent {
  const key = evdev === undefined ? undefined : EVDEV_KEYS.get(evdev);
  if (key) return { kind: 'key', key };
  const ch = evdev === undefined ? undefined : EVDEV_CHARS.get(evdev);
  if (ch) return { kind: 'text', text: ch };
  const unhandled = evdev === undefined ? undefined : EVDEV_UNHANDLED.get(evdev);
  if (unhandled) throw new KeyInputError(field, value, `KEYCODE_${unhandled} (evdev ${evdev}) is a key SimDroid does not act on`);
  throw new KeyInputError(field, value, `no Android key SimDroid handles for this ${via}`);
}

function evdevFor(codeType: KeyCodeType, keyCode: number): number | undefined {
  switch (codeType) {
    case 'Evdev':
      return keyCode;
    case 'XKB':
      return keyCode - 8;
    case 'Usb':
      return usbToEvdev(keyCode);
    case 'Win':
    case 'Mac':
      throw new KeyInputError('codeType', codeType, 'SimDroid translates Usb, Evdev and XKB key codes only');
  }
}

export interface KeyboardEventRequest {
  codeType: KeyCodeType;
  eventType: KeyEventType;
  keyCode: number;
  key: string;
  text: string;
}

/**
 * The input a KeyboardEvent causes, in the emulator's order: the key value, then the text, then
 * the key code (each one set is sent). A key-up alone causes nothing (SimDroid acts once per press,
 * on the way down); text is typed whatever the event type, as the emulator types it.
 */
export function keyboardInput(e: KeyboardEventRequest): InputEvent[] {
  if (!e.key && !e.text && !e.keyCode) throw new KeyInputError('keyCode/key/text', '', 'one of them must be set');
  const out: InputEvent[] = [];
  const down = e.eventType !== 'keyup';
  if (e.key) {
    const evdev = DOM_KEY_EVDEV[e.key];
    if (evdev !== undefined) {
      const event = androidKey('key', e.key, evdev, 'key value');
      if (down) out.push(event);
    } else if ([...e.key].length === 1) {
      if (down) out.push(e.key === ' ' ? { kind: 'key', key: 'SPACE' } : { kind: 'text', text: e.key });
    } else {
      throw new KeyInputError('key', e.key, 'not a key value SimDroid handles (e.g. "Enter", "Backspace", "GoHome", "GoBack", "AppSwitch", or one character)');
    }
  }
  if (e.text) out.push({ kind: 'text', text: e.text });
  if (e.keyCode) {
    const event = androidKey('keyCode', e.keyCode, evdevFor(e.codeType, e.keyCode), `${e.codeType} code`);
    if (down) out.push(event);
  }
  return out;
}
