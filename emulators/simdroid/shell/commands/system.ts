import type { KeyName } from '../../../../core/device/device.js';
import type { Command } from '../run.js';
import { LAUNCHER_PACKAGE } from '../../runtime/ui-state.js';
import { deleteBackward, selectAll, selectedText } from '../../runtime/text-editing.js';
import { normalizePath } from '../../system/fs.js';
import { shortComponent } from './am.js';
import { PROVIDER_DATABASES } from '../../system/providers.js';

function hexId(n: number): string {
  return ((n * 2654435761) >>> 0).toString(16).slice(0, 7);
}

// ------------------------------------------------------------------ am / pm / monkey

export const monkey: Command = (argv, io, dev) => {
  const p = argv.indexOf('-p');
  const pkg = p > 0 ? argv[p + 1] : undefined;
  if (!pkg || !dev.wm.apps.has(pkg)) {
    io.err(`** No activities found to run, monkey aborted.\n`);
    return 251;
  }
  dev.wm.launchApp(pkg);
  io.out('Events injected: 1\n');
  return 0;
};

export const pm: Command = (argv, io, dev) => {
  const verb = argv[1];
  const pkgs = [...dev.wm.apps.keys()].sort();
  switch (verb) {
    case 'list': {
      if (argv[2] !== 'packages') {
        io.err(`Error: unknown list type '${argv[2] ?? ''}'\n`);
        return 1;
      }
      const filter = argv.slice(3).find((a) => !a.startsWith('-'));
      const withPath = argv.includes('-f');
      for (const p of pkgs) {
        if (filter && !p.includes(filter)) continue;
        io.out(withPath ? `package:/data/app/${p}/base.apk=${p}\n` : `package:${p}\n`);
      }
      return 0;
    }
    case 'path': {
      const p = argv[2];
      if (!p || !dev.wm.apps.has(p)) return 1;
      io.out(`package:/data/app/${p}/base.apk\n`);
      return 0;
    }
    case 'clear': {
      const p = argv[argv.length - 1]!;
      const app = dev.wm.apps.get(p);
      const providerDbs = PROVIDER_DATABASES.filter((d) => d.package === p);
      if (providerDbs.length) {
        // A provider's data is its databases: wiped and recreated empty, as the provider does on its next start.
        for (const d of providerDbs) dev.dbs.create(d.path, d.schema);
        io.out('Success\n');
        return 0;
      }
      if (!app) {
        io.out('Failed\n');
        return 1;
      }
      dev.clearAppData(app.package);
      io.out('Success\n');
      return 0;
    }
    case 'grant':
    case 'revoke': {
      const [p, perm] = [argv[2], argv[3]];
      if (!p || !perm || !dev.wm.apps.has(p)) {
        io.err(`Exception occurred while executing '${verb}':\njava.lang.IllegalArgumentException: Unknown package: ${p ?? ''}\n`);
        return 255;
      }
      (dev.wm.state.permissions[p] ??= {})[perm] = verb === 'grant' ? 'granted' : 'denied';
      if (dev.wm.state.prompt?.package === p && perm === 'android.permission.POST_NOTIFICATIONS') dev.wm.state.prompt = null;
      return 0;
    }
    default:
      io.err(`Unknown command: ${verb ?? ''}\n`);
      return 1;
  }
};

// ------------------------------------------------------------------ input

const KEYCODES: Record<string, KeyName> = {
  '3': 'HOME', '4': 'BACK', '61': 'TAB', '62': 'SPACE', '66': 'ENTER', '67': 'DEL', '111': 'ESCAPE',
  '122': 'MOVE_HOME', '123': 'MOVE_END', '187': 'APP_SWITCH',
};
const KEY_NAMES = new Set<string>(Object.values(KEYCODES));

export function keyFromArg(arg: string): KeyName | null | undefined {
  const name = arg.toUpperCase().replace(/^KEYCODE_/, '');
  if (KEYCODES[name]) return KEYCODES[name];
  if (KEY_NAMES.has(name)) return name as KeyName;
  if (/^\d+$/.test(name) || /^[A-Z0-9_]+$/.test(name)) return null; // a real key SimDroid ignores (volume…)
  return undefined;
}

const PASTE_KEYS = new Set(['279', 'KEYCODE_PASTE', 'PASTE']);

/** Paste: the clipboard's text typed into the focused field, as TextView's paste does (nothing without a field or a clip). */
function paste(dev: Parameters<Command>[2]): void {
  const clip = dev.wm.state.clipboard;
  if (clip !== null && clip !== '' && dev.wm.topRecord().view.focus !== null) dev.inputSync({ kind: 'text', text: clip });
}

const INPUT_USAGE = 'Usage: input [<source>] <command> [<arg>...]\n\nThe commands and default sources are:\n      text <string> (Default: touchscreen)\n      keyevent [--longpress] <key code number or name> ... (Default: keyboard)\n      tap <x> <y> (Default: touchscreen)\n      swipe <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)\n      draganddrop <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)\n      motionevent <DOWN|UP|MOVE|CANCEL> <x> <y> (Default: touchscreen)\n';
/** `input motionevent`'s actions (Android 11+), as the streamed touch's. CANCEL lifts the finger where it is. */
const MOTION_ACTIONS: Record<string, 'down' | 'move' | 'up'> = { DOWN: 'down', MOVE: 'move', UP: 'up', CANCEL: 'up' };
const SOURCES = new Set(['touchscreen', 'touchpad', 'keyboard', 'mouse', 'stylus', 'trackball', 'dpad', 'gamepad', 'joystick', 'touchnavigation', 'keyboard']);

export const input: Command = (argv, io, dev) => {
  let args = argv.slice(1);
  if (args[0] && SOURCES.has(args[0])) args = args.slice(1);
  if (args[0] === '-d') args = args.slice(2);
  const [cmd, ...rest] = args;
  const nums = (n: number) => {
    const v = rest.slice(0, n).map(Number);
    return v.length === n && v.every(Number.isFinite) ? v : null;
  };
  const bad = () => {
    io.err(`Error: Invalid arguments for command: ${cmd ?? ''}\n${INPUT_USAGE}`);
    return 1;
  };
  switch (cmd) {
    case 'tap': {
      const v = nums(2);
      if (!v) return bad();
      dev.inputSync({ kind: 'tap', x: v[0]!, y: v[1]! });
      return 0;
    }
    case 'swipe':
    case 'draganddrop': {
      const v = nums(4);
      if (!v) return bad();
      const d = rest[4] !== undefined ? Number(rest[4]) : 300;
      if (!Number.isFinite(d) || d < 0) return bad();
      dev.inputSync({ kind: 'swipe', x1: v[0]!, y1: v[1]!, x2: v[2]!, y2: v[3]!, durationMs: d });
      return 0;
    }
    case 'motionevent': {
      const action = MOTION_ACTIONS[(rest[0] ?? '').toUpperCase()];
      const v = rest.slice(1, 3).map(Number);
      if (!action || v.length !== 2 || !v.every(Number.isFinite)) return bad();
      dev.touchSync(action, v[0]!, v[1]!);
      return 0;
    }
    case 'text': {
      if (rest.length === 0) return bad();
      // `input text` takes one argument; %s stands for a space, as adb clients encode it.
      dev.inputSync({ kind: 'text', text: rest.join(' ').replace(/%s/g, ' ') });
      return 0;
    }
    case 'keyevent':
    case 'press': {
      const keys = rest.filter((k) => k !== '--longpress' && k !== '--doubletap');
      if (keys.length === 0) return bad();
      for (const k of keys) {
        const key = keyFromArg(k);
        if (key === undefined) {
          io.err(`Error: Unknown keycode ${k}\n`);
          return 1;
        }
        if (PASTE_KEYS.has(k.toUpperCase())) paste(dev);
        else if (key) dev.inputSync({ kind: 'key', key });
      }
      return 0;
    }
    case 'keycombination': {
      // Held modifiers then a key. SimDroid's fields know Ctrl+A (select all), Ctrl+C, Ctrl+X and
      // Ctrl+V; other combinations are accepted and have no effect, as on a field that ignores them.
      const codes = rest.filter((k) => k !== '-t').map((k) => k.toUpperCase().replace(/^KEYCODE_/, ''));
      if (codes.length < 2) return bad();
      const ctrl = codes.slice(0, -1).some((c) => c === '113' || c === '114' || c === 'CTRL_LEFT' || c === 'CTRL_RIGHT');
      const last = codes[codes.length - 1];
      const view = dev.wm.topRecord().view;
      if (!ctrl || view.focus === null) return 0;
      if (last === '29' || last === 'A') selectAll(view);
      else if ((last === '31' || last === 'C') && selectedText(view)) dev.wm.state.clipboard = selectedText(view);
      else if ((last === '52' || last === 'X') && selectedText(view)) {
        dev.wm.state.clipboard = selectedText(view);
        deleteBackward(view);
      } else if (last === '50' || last === 'V') paste(dev);
      return 0;
    }
    default:
      io.err(`Error: Unknown command: ${cmd ?? ''}\n${INPUT_USAGE}`);
      return 1;
  }
};

// ------------------------------------------------------------------ observation

/** Where `uiautomator dump` writes (its file operand, or the default), as given. */
export function uiautomatorDumpFile(argv: string[]): string {
  return argv.slice(2).find((a) => !a.startsWith('--')) ?? '/sdcard/window_dump.xml';
}

/** Paths that are the caller's terminal, not a file on the device. */
export function isTerminal(path: string): boolean {
  const target = normalizePath(path);
  return target === '/dev/tty' || target === '/dev/stdout';
}

export const uiautomator: Command = (argv, io, dev) => {
  if (argv[1] !== 'dump') {
    io.err('Usage: uiautomator <subcommand> [options]\n\nAvailable subcommands:\n\nhelp: displays help message\n\ndump: creates an XML dump of current UI hierarchy\n');
    return 1;
  }
  const file = uiautomatorDumpFile(argv);
  const xml = dev.uiXml();
  if (isTerminal(file)) io.out(xml);
  else dev.fs.writeFile(normalizePath(file), xml);
  io.out(`UI hierchary dumped to: ${file}\n`);
  return 0;
};

/** The file `screencap` writes, or undefined when it writes to stdout. */
export function screencapFile(argv: string[]): string | undefined {
  return argv.slice(1).filter((a, i, arr) => !a.startsWith('-') && arr[i - 1] !== '-d').pop();
}

export const screencap: Command = (argv, io, dev) => {
  const png = argv.includes('-p');
  const file = screencapFile(argv);
  const asPng = png || (file !== undefined && file.endsWith('.png'));
  let data: Buffer;
  if (asPng) data = dev.screenshotSync(1);
  else {
    const raw = dev.screenshotRaw();
    // Android 12+ writes width, height, pixel format (1 = RGBA_8888) and dataspace before the pixels.
    const header = Buffer.alloc(16);
    header.writeUInt32LE(raw.width, 0);
    header.writeUInt32LE(raw.height, 4);
    header.writeUInt32LE(1, 8);
    header.writeUInt32LE(0, 12);
    data = Buffer.concat([header, raw.rgba]);
  }
  if (file) dev.fs.writeFile(file, data);
  else io.out(data);
  return 0;
};

export const dumpsys: Command = (argv, io, dev) => {
  const svc = argv[1];
  const fg = dev.wm.foreground();
  const task = dev.wm.frontTask();
  const rec = `ActivityRecord{${hexId(task.stack.length + task.id)} u0 ${shortComponent(fg.package, fg.activity)} t${task.id}}`;
  switch (svc) {
    case 'window': {
      const win = `Window{${hexId(task.id + 7)} u0 ${fg.package}/${fg.activity}}`;
      io.out(`WINDOW MANAGER WINDOWS (dumpsys window windows)\n  mCurrentFocus=${win}\n  mFocusedApp=${rec}\n`);
      io.out(`  mInputMethodWindow=${dev.wm.state.keyboard.visible ? `Window{ime u0 InputMethod}` : 'null'}\n`);
      io.out(`  mIsImeShowing=${dev.wm.state.keyboard.visible}\n`);
      // SimDroid renders in portrait only, whatever user_rotation says.
      io.out(`  Display: mDisplayId=0 rootTasks=${dev.wm.state.tasks.length}\n    mCurrentRotation=ROTATION_0 mLastOrientation=-1 mRotation=0\n`);
      return 0;
    }
    case 'input': {
      const { width: w, height: h } = dev.screen;
      io.out('INPUT MANAGER (dumpsys input)\n\n');
      io.out(`Input Reader State (Nums of Device: 1):\n  Device 1: virtio_input_multi_touch_7\n    Viewport INTERNAL: displayId=0, uniqueId=local:4619827259835644672, port=0, orientation=0, logicalFrame=[0, 0, ${w}, ${h}], physicalFrame=[0, 0, ${w}, ${h}], deviceSize=[${w}, ${h}], isActive=[1]\n`);
      io.out(`    Touch Input Mapper (mode - DIRECT):\n      Raw Touch Axes:\n      SurfaceWidth: ${w}px\n      SurfaceHeight: ${h}px\n      SurfaceOrientation: 0\n      PhysicalWidth: ${w}px\n      PhysicalHeight: ${h}px\n`);
      return 0;
    }
    case 'activity': {
      if (argv[2] === 'recents') {
        const recents = dev.wm.state.tasks.slice(1).reverse();
        io.out('ACTIVITY MANAGER RECENT TASKS (dumpsys activity recents)\n  mRecentsUid=10100\n  mRecentsComponent=ComponentInfo{com.google.android.apps.nexuslauncher/com.android.quickstep.RecentsActivity}\n  mFreezeTaskListReordering=false\n\n  Recent tasks:\n');
        recents.forEach((t, k) => io.out(`  * Recent #${k}: Task{${hexId(t.id)} #${t.id} type=standard A=10100:${t.package} U=0 visible=${t.id === dev.wm.state.front} mode=fullscreen translucent=false sz=${t.stack.length}}\n`));
        io.out('\n  Visible recent tasks (most recent first):\n');
        recents.forEach((t, k) => io.out(`    * RecentTaskInfo #${k}: id=${t.id} userId=0 hasTask=true\n      baseIntent=Intent{act=android.intent.action.MAIN cat=[android.intent.category.LAUNCHER] flg=0x10200000 cmp=${shortComponent(t.package, dev.wm.app(t.package).launchActivity)} }\n`));
        return 0;
      }
      io.out('ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\n');
      io.out(`  mResumedActivity: ${rec}\n  topResumedActivity=${rec}\n`);
      for (const t of [...dev.wm.state.tasks].reverse()) {
        io.out(`  * Task{${hexId(t.id)} #${t.id} type=${t.package === LAUNCHER_PACKAGE ? 'home' : 'standard'} A=${t.package} U=0 size=${t.stack.length}}\n`);
        for (const a of [...t.stack].reverse()) io.out(`    * Hist #${t.stack.indexOf(a)}: ActivityRecord{${hexId(a.id)} u0 ${shortComponent(t.package, a.activity)} t${t.id}}\n`);
      }
      return 0;
    }
    case 'battery':
      io.out('Current Battery Service state:\n  AC powered: true\n  level: 100\n  scale: 100\n  status: 2\n');
      return 0;
    case 'display':
      io.out(`  mDefaultViewport=DisplayViewport{orientation=0, logicalFrame=Rect(0, 0 - ${dev.screen.width}, ${dev.screen.height}), deviceWidth=${dev.screen.width}, deviceHeight=${dev.screen.height}}\n`);
      return 0;
    case 'input_method':
      io.out(`  mInputShown=${dev.wm.state.keyboard.visible}\n`);
      return 0;
    default:
      io.err(`Can't find service: ${svc ?? ''}\n`);
      return 0;
  }
};

export const wm: Command = (argv, io, dev) => {
  if (argv[1] === 'size') {
    io.out(`Physical size: ${dev.screen.width}x${dev.screen.height}\n`);
    return 0;
  }
  if (argv[1] === 'density') {
    io.out(`Physical density: ${dev.screen.density}\n`);
    return 0;
  }
  io.err(`Error: unknown command '${argv[1] ?? ''}'\n`);
  return 1;
};

export function properties(dev: Parameters<Command>[2]): Record<string, string> {
  return {
    'dev.bootcomplete': '1',
    'init.svc.bootanim': 'stopped',
    'persist.sys.timezone': dev.clock.timeZone,
    'ro.boot.qemu': '1',
    'ro.build.characteristics': 'emulator',
    'ro.build.type': 'userdebug',
    'ro.build.version.release': '13',
    'ro.build.version.sdk': '33',
    'ro.debuggable': '1',
    'ro.hardware': 'ranchu',
    'ro.kernel.qemu': '1',
    'ro.product.cpu.abi': 'x86_64',
    'ro.product.device': 'simdroid',
    'ro.product.manufacturer': 'SimDroid',
    'ro.product.model': 'SimDroid Pixel',
    'ro.product.name': 'simdroid_x86_64',
    'ro.serialno': dev.serial,
    'ro.sf.lcd_density': String(dev.screen.density),
    'sys.boot_completed': '1',
  };
}

export const getprop: Command = (argv, io, dev) => {
  const props = properties(dev);
  if (argv[1]) {
    io.out(`${props[argv[1]] ?? argv[2] ?? ''}\n`);
    return 0;
  }
  for (const [k, v] of Object.entries(props)) io.out(`[${k}]: [${v}]\n`);
  return 0;
};

// ------------------------------------------------------------------ time and toggles

export const sleep: Command = (argv, io, dev) => {
  const s = Number(argv[1]);
  if (!Number.isFinite(s) || s < 0) {
    io.err(`sleep: invalid number '${argv[1] ?? ''}'\n`);
    return 1;
  }
  dev.clock.advance(s * 1000);
  return 0;
};

export const svc: Command = (argv, io, dev) => {
  const [what, verb] = [argv[1], argv[2]];
  const key = { wifi: 'wifi_on', bluetooth: 'bluetooth_on', data: 'mobile_data' }[what ?? ''];
  if (!key || (verb !== 'enable' && verb !== 'disable')) {
    io.err(`Unknown command: svc ${argv.slice(1).join(' ')}\n`);
    return 1;
  }
  dev.settings.setFlag('global', key, verb === 'enable');
  return 0;
};

export const cmd: Command = (argv, io, dev) => {
  const [service, ...rest] = argv.slice(1);
  if (service === 'uimode' && rest[0] === 'night') {
    const mode = { yes: '2', no: '1', auto: '0' }[rest[1] ?? ''];
    if (!mode) {
      const cur = dev.settings.get('secure', 'ui_night_mode');
      io.out(`Night mode: ${cur === '2' ? 'yes' : cur === '1' ? 'no' : 'auto'}\n`);
      return 0;
    }
    dev.settings.put('secure', 'ui_night_mode', mode);
    io.out(`Night mode: ${rest[1]}\n`);
    return 0;
  }
  if (service === 'connectivity' && rest[0] === 'airplane-mode' && (rest[1] === 'enable' || rest[1] === 'disable')) {
    dev.settings.setFlag('global', 'airplane_mode_on', rest[1] === 'enable');
    return 0;
  }
  if (service === 'bluetooth_manager' && (rest[0] === 'enable' || rest[0] === 'disable')) {
    dev.settings.setFlag('global', 'bluetooth_on', rest[0] === 'enable');
    return 0;
  }
  if (service === 'wifi' && rest[0] === 'set-wifi-enabled' && (rest[1] === 'enabled' || rest[1] === 'disabled')) {
    dev.settings.setFlag('global', 'wifi_on', rest[1] === 'enabled');
    return 0;
  }
  io.err(`Can't find service: ${service ?? ''}\n`);
  return 20;
};

export const id: Command = (_argv, io) => {
  io.out('uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),1007(log),1011(adb),1015(sdcard_rw),1028(sdcard_r),3001(net_bt_admin),3002(net_bt),3003(inet) context=u:r:shell:s0\n');
  return 0;
};

export const whoami: Command = (_argv, io) => {
  io.out('shell\n');
  return 0;
};

export const trueCmd: Command = () => 0;
export const falseCmd: Command = () => 1;
