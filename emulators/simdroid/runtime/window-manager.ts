import type { ActivityContext, ActivityDef, AppDef, AppEnv, Json, Navigator, SystemServices, TaskControl } from './app.js';
import {
  LAUNCHER_HOME, LAUNCHER_PACKAGE, LAUNCHER_RECENTS, emptyViewState,
  type ActivityRecord, type TaskRecord, type UiState,
} from './ui-state.js';
import { SYSTEM_SERVER_PID } from '../system/log.js';

export class UnknownActivityError extends Error {
  override name = 'UnknownActivityError';
  constructor(readonly component: string) {
    super(`Activity class {${component}} does not exist.`);
  }
}

export class UnknownPackageError extends Error {
  override name = 'UnknownPackageError';
  constructor(readonly pkg: string) {
    super(`Unknown package: ${pkg}`);
  }
}

const TOAST_MS = 3500;

/** `pkg/.Activity` when the class is in the package, else `pkg/full.Class` (ComponentName.flattenToShortString). */
export function shortComponent(pkg: string, activity: string): string {
  return activity.startsWith(`${pkg}.`) ? `${pkg}/${activity.slice(pkg.length)}` : `${pkg}/${activity}`;
}

/** How long SimDroid reports an activity took to draw (its "Displayed … +Nms"); it draws at once, the figure is a plausible constant. */
const DISPLAYED_MS = 120;

/**
 * Tasks and back stacks with Android's semantics: each app runs in its own task; launching an app
 * whose task exists brings that task to the front as it was; Back finishes the top activity, and
 * at a task's root activity moves the task to the background (Android 12+), keeping its state.
 */
export class WindowManager {
  readonly apps = new Map<string, AppDef>();
  private readonly activities = new Map<string, { app: AppDef; def: ActivityDef }>();

  constructor(
    apps: readonly AppDef[],
    public state: UiState,
    readonly sys: SystemServices,
    private readonly appEnv: (pkg: string) => AppEnv,
    private readonly clearData: (pkg: string) => void,
  ) {
    for (const app of apps) {
      this.apps.set(app.package, app);
      for (const def of app.activities) this.activities.set(def.name, { app, def });
    }
  }

  app(pkg: string): AppDef {
    const a = this.apps.get(pkg);
    if (!a) throw new UnknownPackageError(pkg);
    return a;
  }

  activityDef(name: string): { app: AppDef; def: ActivityDef } {
    const a = this.activities.get(name);
    if (!a) throw new UnknownActivityError(name);
    return a;
  }

  frontTask(): TaskRecord {
    const t = this.state.tasks.find((x) => x.id === this.state.front);
    if (t) return t;
    // The front task was removed (force-stop): fall back to home.
    this.state.front = 0;
    return this.state.tasks[0]!;
  }

  topRecord(): ActivityRecord {
    const t = this.frontTask();
    return t.stack[t.stack.length - 1]!;
  }

  foreground(): { package: string; activity: string } {
    const t = this.frontTask();
    return { package: t.package, activity: t.stack[t.stack.length - 1]!.activity };
  }

  private newRecord(activity: string, extras: Record<string, Json>, pkg: string): ActivityRecord {
    const { app, def } = this.activityDef(activity);
    if (app.package !== pkg) throw new UnknownActivityError(`${pkg}/${activity}`);
    const intent = { extras: structuredClone(extras) };
    const view = emptyViewState();
    const s = def.create(intent, { app: this.appEnv(pkg), sys: this.sys, fields: view.fields, scroll: view.scroll }) as Json;
    return { id: this.state.nextId++, activity, intent, s, view };
  }

  private moveToFront(task: TaskRecord): void {
    if (task.id !== 0) {
      this.state.tasks = [this.state.tasks[0]!, ...this.state.tasks.slice(1).filter((t) => t !== task), task];
    }
    this.state.front = task.id;
    this.hideKeyboard();
  }

  /** Launches an app the way the launcher (or `am start` of its main activity) does. */
  launchApp(pkg: string): void {
    const app = this.app(pkg);
    if (pkg === LAUNCHER_PACKAGE) {
      this.goHome();
      return;
    }
    const existing = this.state.tasks.find((t) => t.package === pkg);
    if (existing) {
      this.moveToFront(existing);
      return;
    }
    const task: TaskRecord = { id: this.state.nextId++, package: pkg, stack: [this.newRecord(routed(app, app.launchActivity), {}, pkg)] };
    this.state.tasks.push(task);
    this.moveToFront(task);
    if (!this.state.launched[pkg]) {
      this.state.launched[pkg] = true;
      const answered = this.state.permissions[pkg]?.['android.permission.POST_NOTIFICATIONS'];
      if (app.notificationPrompt && !answered) this.state.prompt = { package: pkg };
    }
  }

  /** `am start -n pkg/activity`: the main activity launches the app; another is pushed on its task. */
  startActivity(pkg: string, activity: string, extras: Record<string, Json> = {}): void {
    const app = this.app(pkg);
    const full = routed(app, activity.startsWith('.') ? pkg + activity : activity);
    this.activityDef(full);
    if (full === routed(app, app.launchActivity) || (pkg === LAUNCHER_PACKAGE && full === LAUNCHER_HOME)) {
      this.launchApp(pkg);
      return;
    }
    let task = this.state.tasks.find((t) => t.package === pkg);
    if (!task) {
      this.launchApp(pkg);
      task = this.state.tasks.find((t) => t.package === pkg)!;
      task.stack = [];
    }
    task.stack.push(this.newRecord(full, extras, pkg));
    this.moveToFront(task);
  }

  forceStop(pkg: string): void {
    this.app(pkg);
    if (pkg === LAUNCHER_PACKAGE) return;
    this.state.tasks = this.state.tasks.filter((t) => t.package !== pkg);
    if (this.state.prompt?.package === pkg) this.state.prompt = null;
    this.frontTask();
  }

  goHome(): void {
    const home = this.state.tasks[0]!;
    home.stack = [home.stack[0]!];
    home.stack[0]!.s = {};
    home.stack[0]!.view = emptyViewState();
    this.state.front = 0;
    this.hideKeyboard();
  }

  showRecents(): void {
    const home = this.state.tasks[0]!;
    home.stack = [home.stack[0]!, this.newRecord(LAUNCHER_RECENTS, {}, LAUNCHER_PACKAGE)];
    this.state.front = 0;
    this.hideKeyboard();
  }

  /** Finishes the top activity of the front task (Back with nothing else to close). */
  finishTop(): void {
    const task = this.frontTask();
    if (task.stack.length > 1) {
      task.stack.pop();
      this.hideKeyboard();
      return;
    }
    if (task.id === 0) return;
    // Android 12+: Back on a root activity moves the task to the background instead of destroying it.
    this.state.front = 0;
    this.hideKeyboard();
  }

  hideKeyboard(): void {
    this.state.keyboard.visible = false;
    this.state.keyboard.shift = false;
    this.state.keyboard.symbols = false;
  }

  toast(text: string): void {
    this.state.toast = { text, until: this.sys.clock.now() + TOAST_MS };
  }

  prefs(pkg: string): Record<string, string> {
    return (this.state.prefs[pkg] ??= {});
  }

  private navigator(task: TaskRecord, record: ActivityRecord): Navigator {
    const isTop = () => task.stack[task.stack.length - 1] === record;
    return {
      start: (activity, extras = {}) => {
        task.stack.push(this.newRecord(activity.startsWith('.') ? task.package + activity : activity, extras, task.package));
        this.hideKeyboard();
      },
      finish: () => {
        if (!isTop()) return;
        if (task.stack.length > 1) {
          task.stack.pop();
          this.hideKeyboard();
        } else {
          // finish() on the root activity ends the task.
          this.state.tasks = this.state.tasks.filter((t) => t !== task);
          this.state.front = 0;
          this.hideKeyboard();
        }
      },
      replace: (activity, extras = {}) => {
        const i = task.stack.indexOf(record);
        task.stack[i] = this.newRecord(activity.startsWith('.') ? task.package + activity : activity, extras, task.package);
        this.hideKeyboard();
      },
      toast: (text) => this.toast(text),
      focus: (field) => {
        record.view.focus = field;
        this.state.keyboard.visible = true;
      },
      hideKeyboard: () => {
        record.view.focus = null;
        this.hideKeyboard();
      },
      scrollTo: (key, offset) => {
        record.view.scroll[key] = Math.max(0, offset);
      },
      launchApp: (pkg, activity, extras) => {
        if (activity) this.startActivity(pkg, activity, extras ?? {});
        else this.launchApp(pkg);
      },
    };
  }

  private taskControl(): TaskControl {
    return {
      recentTasks: () =>
        this.state.tasks.slice(1).reverse().map((t) => {
          const app = this.app(t.package);
          return { id: t.id, package: t.package, label: app.label, title: app.label };
        }),
      bringToFront: (id) => {
        const t = this.state.tasks.find((x) => x.id === id);
        if (t) this.moveToFront(t);
      },
      removeTask: (id) => {
        if (id !== 0) this.state.tasks = this.state.tasks.filter((t) => t.id !== id);
      },
      launchApp: (pkg) => this.launchApp(pkg),
      forceStop: (pkg) => this.forceStop(pkg),
      clearData: (pkg) => this.clearData(pkg),
    };
  }

  /** The context an activity renders and handles input with. */
  context(task: TaskRecord, record: ActivityRecord): { def: ActivityDef; ctx: ActivityContext<unknown> } {
    const { app, def } = this.activityDef(record.activity);
    const ctx: ActivityContext<unknown> = {
      s: record.s,
      fields: record.view.fields,
      intent: record.intent,
      app: this.appEnv(app.package),
      sys: this.sys,
      nav: this.navigator(task, record),
      ...(app.system ? { tasks: this.taskControl() } : {}),
    };
    return { def, ctx };
  }

  /**
   * Tells the previously resumed activity it was paused, if another one is in front now. Run after
   * every event, so every way of leaving a screen (Home, Overview, a launched app, a new activity)
   * pauses it without each navigation path having to remember to.
   */
  syncResumed(): void {
    const top = this.topRecord();
    const prev = this.state.resumed;
    if (prev === top.id) return;
    this.state.resumed = top.id;
    // ActivityTaskManager's line when an activity's first frame is drawn (ActivityMetricsLogger).
    const fg = this.foreground();
    this.sys.log.write({
      buffer: 'system', pid: SYSTEM_SERVER_PID, tid: SYSTEM_SERVER_PID + 27, priority: 'I', tag: 'ActivityTaskManager',
      message: `Displayed ${shortComponent(fg.package, fg.activity)}: +${DISPLAYED_MS}ms`,
    });
    for (const task of this.state.tasks) {
      const record = task.stack.find((r) => r.id === prev);
      if (!record) continue;
      const { def, ctx } = this.context(task, record);
      if (def.onPause) {
        try {
          def.onPause(ctx);
        } catch (e) {
          this.crash(task.package, e);
        }
      }
      return;
    }
  }

  /** Records an app crash and closes the app, as Android's "keeps stopping" does. */
  crash(pkg: string, err: unknown): void {
    const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    this.state.crashes.push({ package: pkg, message, at: this.sys.clock.now() });
    if (pkg !== LAUNCHER_PACKAGE) {
      this.state.tasks = this.state.tasks.filter((t) => t.package !== pkg);
      this.state.front = 0;
      this.toast(`${this.apps.get(pkg)?.label ?? pkg} keeps stopping`);
    } else {
      this.goHome();
    }
    this.hideKeyboard();
  }
}

/** The activity that actually opens when `activity` is started (a trampoline's target, else itself). */
function routed(app: AppDef, activity: string): string {
  return app.trampolines?.[activity] ?? activity;
}
