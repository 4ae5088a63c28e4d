import type { Command, CommandIo } from '../run.js';
import type { Json } from '../../runtime/app.js';
import { resolveIntent, type ImplicitIntent } from '../../runtime/intents.js';
import { shortComponent, UnknownActivityError, UnknownPackageError } from '../../runtime/window-manager.js';
import { LAUNCHER_HOME, LAUNCHER_PACKAGE } from '../../runtime/ui-state.js';

type Dev = Parameters<Command>[2];

export { shortComponent };

class AmUsageError extends Error {
  override name = 'AmUsageError';
}

interface AmIntent extends ImplicitIntent {
  component: string | null;
  wait: boolean;
  stopFirst: boolean;
}

/** Android's Uri.toSafeString: the opaque part of sms/tel/mailto URIs is masked in logs and `am` output. */
function safeData(data: string): string {
  const m = /^(tel|sip|sms|smsto|mailto|nfc):(.*)$/i.exec(data);
  return m ? `${m[1]}:${m[2]!.replace(/[^-@.]/g, 'x')}` : data;
}

/** Intent.toShortString as `am` prints it. */
function describe(i: AmIntent, flags?: string): string {
  const parts: string[] = [];
  if (i.action) parts.push(`act=${i.action}`);
  if (i.categories.length) parts.push(`cat=[${i.categories.join(',')}]`);
  if (i.data) parts.push(`dat=${safeData(i.data)}`);
  if (i.type) parts.push(`typ=${i.type}`);
  if (flags) parts.push(`flg=${flags}`);
  if (i.component) {
    const [pkg, cls] = i.component.split('/') as [string, string];
    parts.push(`cmp=${shortComponent(pkg, cls.startsWith('.') ? pkg + cls : cls)}`);
  }
  if (Object.keys(i.extras).length) parts.push('(has extras)');
  return `Intent { ${parts.join(' ')} }`;
}

/** The intent options `am start` and `am broadcast` share (ActivityManagerShellCommand's makeIntent). */
function parseIntent(args: string[]): AmIntent {
  const i: AmIntent = { action: null, data: null, type: null, categories: [], extras: {}, component: null, wait: false, stopFirst: false };
  const value = (k: number, opt: string) => {
    const v = args[k];
    if (v === undefined) throw new AmUsageError(`Argument expected after "${opt}"`);
    return v;
  };
  for (let k = 0; k < args.length; k++) {
    const a = args[k]!;
    switch (a) {
      case '-n': i.component = value(++k, a); break;
      case '-a': i.action = value(++k, a); break;
      case '-c': i.categories.push(value(++k, a)); break;
      case '-d': i.data = value(++k, a); break;
      case '-t': i.type = value(++k, a); break;
      case '-f': case '--user': case '--display': case '--windowingMode': case '--activityType': value(++k, a); break;
      case '-W': i.wait = true; break;
      case '-S': i.stopFirst = true; break;
      case '-R': k++; break;
      case '-D': case '-N': case '--activity-clear-task': case '--activity-new-task': case '--activity-clear-top':
      case '--activity-single-top': case '--receiver-foreground': case '--include-stopped-packages': break;
      case '-e': case '--es': i.extras[value(k + 1, a)] = value(k + 2, a); k += 2; break;
      case '--esn': i.extras[value(++k, a)] = null; break;
      case '--ei': case '--el': case '--ef': case '--ed': {
        const n = Number(value(k + 2, a));
        if (!Number.isFinite(n)) throw new AmUsageError(`Invalid number for ${a}: ${args[k + 2]}`);
        i.extras[value(k + 1, a)] = n;
        k += 2;
        break;
      }
      case '--ez': {
        const v = value(k + 2, a).toLowerCase();
        if (!['true', 'false', 't', 'f', '1', '0'].includes(v)) throw new AmUsageError(`Invalid boolean value: ${args[k + 2]}`);
        i.extras[value(k + 1, a)] = v === 'true' || v === 't' || v === '1';
        k += 2;
        break;
      }
      case '--esa': i.extras[value(k + 1, a)] = value(k + 2, a).split(/(?<!\\),/); k += 2; break;
      default:
        if (a.startsWith('-')) throw new AmUsageError(`Unknown option: ${a}`);
        if (i.component === null && a.includes('/')) i.component = a;
        else if (i.data === null) i.data = a;
        else throw new AmUsageError(`Unexpected argument: ${a}`);
    }
  }
  return i;
}

/** `am start [-W] [-S] (-n CMP | -a ACT [-d URI] [-t TYPE] [-c CAT]) [extras]`. */
function start(i: AmIntent, io: CommandIo, dev: Dev): number {
  let pkg: string;
  let activity: string;
  let extras: Record<string, Json> = i.extras;
  if (i.component) {
    const m = /^([^/]+)\/(.+)$/.exec(i.component);
    if (!m) {
      io.err(`Error: Bad component name: ${i.component}\n`);
      return 1;
    }
    pkg = m[1]!;
    activity = m[2]!.startsWith('.') ? pkg + m[2]! : m[2]!;
  } else if (i.action === 'android.intent.action.MAIN' && i.categories.includes('android.intent.category.HOME')) {
    [pkg, activity] = [LAUNCHER_PACKAGE, LAUNCHER_HOME];
  } else {
    const r = resolveIntent(dev.wm.apps.values(), i);
    if (!r) {
      io.out(`Starting: ${describe(i)}\n`);
      io.err(`Error: Activity not started, unable to resolve ${describe(i, '0x10000000')}\n`);
      return 1;
    }
    [pkg, activity, extras] = [r.app.package, r.filter.activity, r.extras];
  }
  io.out(`Starting: ${describe(i)}\n`);
  const cold = !dev.wm.state.tasks.some((t) => t.package === pkg);
  try {
    if (i.stopFirst) dev.wm.forceStop(pkg);
    if (pkg === LAUNCHER_PACKAGE) dev.wm.goHome();
    else dev.wm.startActivity(pkg, activity, extras);
  } catch (e) {
    if (e instanceof UnknownActivityError || e instanceof UnknownPackageError) {
      io.err(`Error type 3\nError: Activity class {${pkg}/${activity}} does not exist.\n`);
      return 1;
    }
    throw e;
  }
  if (i.wait) {
    // SimDroid launches within the command, in no device time: the times are 0.
    const fg = dev.wm.foreground();
    io.out(`Status: ok\nLaunchState: ${cold ? 'COLD' : 'HOT'}\nActivity: ${shortComponent(fg.package, fg.activity)}\nTotalTime: 0\nWaitTime: 0\nComplete\n`);
  }
  return 0;
}

/**
 * `am broadcast`: sent ordered, as am does, to the manifest receivers that take the action (only
 * the named component's with `-n`); each sees the result so far and may set it. The final result
 * is printed as am's result receiver does: `result=CODE` and `, data="…"` when data was set. With
 * no receiver the result stays 0 and there is no data.
 */
function broadcast(i: AmIntent, io: CommandIo, dev: Dev): number {
  io.out(`Broadcasting: ${describe(i, '0x400000')}\n`);
  let result: { code: number; data: string | null } = { code: 0, data: null };
  const target = i.component ? /^([^/]+)\/(.+)$/.exec(i.component) : null;
  for (const app of dev.wm.apps.values()) {
    if (target && target[1] !== app.package) continue;
    for (const r of app.receivers ?? []) {
      if (target && r.name !== (target[2]!.startsWith('.') ? app.package + target[2]! : target[2]!)) continue;
      if (i.action === null || !r.actions.includes(i.action)) continue;
      result = r.onReceive({ action: i.action, extras: i.extras }, dev.sys);
    }
  }
  io.out(`Broadcast completed: result=${result.code}${result.data === null ? '' : `, data="${result.data}"`}\n`);
  return 0;
}

/** `am stack list` as Android 12+ prints root tasks: android_env reads the visible one's topActivity. */
function stackList(io: CommandIo, dev: Dev): number {
  const { width: w, height: h } = dev.screen;
  const front = dev.wm.frontTask().id;
  for (const t of [...dev.wm.state.tasks].reverse()) {
    const base = t.stack[0]?.activity ?? dev.wm.app(t.package).launchActivity;
    const top = t.stack[t.stack.length - 1]?.activity ?? base;
    const type = t.package === LAUNCHER_PACKAGE ? 'home' : 'standard';
    io.out(`RootTask id=${t.id} bounds=[0,0][${w},${h}] displayId=0 userId=0\n`);
    io.out(` configuration={1.0 ?mcc?mnc [en_US] ldltr sw${Math.round((w * 160) / dev.screen.density)}dp ${dev.screen.density}dpi nrml long port finger -keyb/v/h -nav/h winConfig={ mBounds=Rect(0, 0 - ${w}, ${h}) mWindowingMode=fullscreen mActivityType=${type} mRotation=ROTATION_0} s.1}\n`);
    io.out(`  taskId=${t.id}: ${t.package}/${base} bounds=[0,0][${w},${h}] userId=0 visible=${t.id === front} topActivity=ComponentInfo{${t.package}/${top}}\n\n`);
  }
  return 0;
}

export const am: Command = (argv, io, dev) => {
  const verb = argv[1];
  try {
    switch (verb) {
      case 'force-stop':
      case 'kill': {
        const pkg = argv.slice(2).filter((a, k, all) => !a.startsWith('-') && all[k - 1] !== '--user').pop();
        if (!pkg) throw new AmUsageError('no package specified');
        if (dev.wm.apps.has(pkg)) dev.wm.forceStop(pkg);
        return 0;
      }
      case 'start':
      case 'start-activity':
        return start(parseIntent(argv.slice(2)), io, dev);
      case 'broadcast':
        return broadcast(parseIntent(argv.slice(2)), io, dev);
      case 'stack':
      case 'task':
        if (argv[2] === 'list') return stackList(io, dev);
        if (argv[2] === 'remove') {
          for (const id of argv.slice(3).map(Number)) {
            if (!Number.isInteger(id) || id === 0) continue; // the home task stays, as on a phone
            dev.wm.state.tasks = dev.wm.state.tasks.filter((t) => t.id !== id);
            if (dev.wm.state.front === id) dev.wm.state.front = 0;
          }
          return 0;
        }
        throw new AmUsageError(`unknown command '${argv[2] ?? ''}'`);
      default:
        throw new AmUsageError(`unknown command '${verb ?? ''}'`);
    }
  } catch (e) {
    if (!(e instanceof AmUsageError)) throw e;
    io.err(`Error: ${e.message}\n`);
    return 1;
  }
};
