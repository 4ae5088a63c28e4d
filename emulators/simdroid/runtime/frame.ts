import type { Handler, ViewSpec } from '../view/spec.js';
import { W } from '../view/spec.js';
import { layout, measureHeight, measureWidth, type LaidNode, type Rect, type ViewState } from '../view/layout.js';
import { DARK, KEYBOARD_DP, LIGHT, NAV_BAR_DP, STATUS_BAR_DP, withAccent, type Palette } from '../view/theme.js';
import type { ActivityView } from './app.js';
import { keyboardSpec, menuSpec, navBarSpec, permissionPromptSpec, statusBarSpec, textToolbarSpec, type KeyboardHandlers } from './system-ui.js';
import { toolbarItems, type ToolbarItem } from './text-editing.js';
import { emptyViewState, KEYBOARD_PACKAGE, PERMISSION_PACKAGE, SYSTEMUI_PACKAGE } from './ui-state.js';
import type { WindowManager } from './window-manager.js';

export type WindowKind = 'app' | 'dialog' | 'menu' | 'prompt' | 'toolbar' | 'keyboard' | 'status' | 'nav';

export interface FrameWindow {
  kind: WindowKind;
  package: string;
  root: LaidNode;
  /** Fields, scroll offsets and focus this window's views read and input writes. */
  view: ViewState;
  /** Modal windows swallow touches outside them; a cancel handler runs on such a touch if given. */
  modal: boolean;
  onOutside?: Handler;
  /** How much of the window the accessibility tree shows. */
  a11y: 'full' | 'root';
  palette: Palette;
}

/** Everything on screen at one moment: windows bottom to top, plus what only the pixels show. */
export interface Frame {
  windows: FrameWindow[];
  widthDp: number;
  heightDp: number;
  /** Pixels per dp (density / 160). */
  scale: number;
  dark: boolean;
  toast: string | null;
  foreground: { package: string; activity: string };
}

export interface SystemHandlers {
  back: Handler;
  home: Handler;
  recents: Handler;
  keyboard: KeyboardHandlers;
  allowPermission: Handler;
  denyPermission: Handler;
  /** The floating text toolbar's items. */
  textToolbar: (item: ToolbarItem) => void;
}

export interface ScreenGeometry {
  width: number;
  height: number;
  density: number;
}

function windowOf(kind: WindowKind, pkg: string, spec: ViewSpec, rect: Rect, view: ViewState, palette: Palette, extra: Partial<FrameWindow> = {}): FrameWindow {
  const root: ViewSpec = { cls: W.FrameLayout, layout: 'stack', children: [spec] };
  return { kind, package: pkg, root: layout(root, rect, rect, view), view, modal: false, a11y: 'full', palette, ...extra };
}

function renderActivity(wm: WindowManager): { view: ActivityView; pkg: string; state: ViewState } {
  // A crash closes the app and the launcher renders instead; the launcher itself must not crash.
  for (let attempt = 0; attempt < 3; attempt++) {
    const task = wm.frontTask();
    const record = task.stack[task.stack.length - 1]!;
    try {
      const { def, ctx } = wm.context(task, record);
      return { view: def.render(ctx), pkg: task.package, state: record.view };
    } catch (e) {
      wm.crash(task.package, e);
    }
  }
  throw new Error('SimDroid: the launcher failed to render three times');
}

function findEditText(n: LaidNode, field: string): LaidNode | undefined {
  if (n.spec.cls === W.EditText && n.spec.field === field) return n;
  for (const c of n.children) {
    const hit = findEditText(c, field);
    if (hit) return hit;
  }
  return undefined;
}

/**
 * The floating text toolbar (a popup of the app, as TextView's Editor shows it): above the focused
 * field, or below it when the field is at the top, within the app's area.
 */
function textToolbarWindow(windows: FrameWindow[], state: ViewState, clip: string | null, h: SystemHandlers, area: { width: number; top: number; bottom: number }, palette: Palette): FrameWindow | null {
  if (!state.textToolbar || state.focus === null) return null;
  let field: LaidNode | undefined;
  for (let i = windows.length - 1; i >= 0 && !field; i--) field = findEditText(windows[i]!.root, state.focus);
  if (!field) return null;
  const items = toolbarItems(state, clip, field.spec.password ?? false);
  if (items.length === 0) return null;
  const spec = textToolbarSpec(items, h.textToolbar);
  const w = Math.min(area.width - 16, measureWidth(spec, emptyViewState()));
  const hgt = measureHeight(spec, w, emptyViewState());
  const above = field.clip.y - hgt - 8;
  const y = above >= area.top ? above : Math.min(field.clip.y + field.clip.h + 8, area.bottom - hgt);
  const x = Math.min(Math.max(8, field.clip.x + field.clip.w / 2 - w / 2), area.width - w - 8);
  return windowOf('toolbar', windows[0]!.package, spec, { x, y, w, h: hgt }, emptyViewState(), palette);
}

export function composeFrame(wm: WindowManager, geo: ScreenGeometry, h: SystemHandlers): Frame {
  const scale = geo.density / 160;
  const W_ = geo.width / scale;
  const H = geo.height / scale;
  const dark = wm.sys.settings.isDarkTheme();
  const base = dark ? DARK : LIGHT;
  const ui = wm.state;

  const { view, pkg, state } = renderActivity(wm);
  const palette = withAccent(base, wm.apps.get(pkg)?.accent, dark);
  const keyboardUp = ui.keyboard.visible && state.focus !== null;
  const appRect: Rect = { x: 0, y: STATUS_BAR_DP, w: W_, h: H - STATUS_BAR_DP - NAV_BAR_DP - (keyboardUp ? KEYBOARD_DP : 0) };
  const windows: FrameWindow[] = [windowOf('app', pkg, view.body, appRect, state, palette)];

  if (view.dialog) {
    const w = Math.min(W_ - 48, 560);
    const hgt = Math.min(measureHeight(view.dialog.spec, w, state), appRect.h - 48);
    const rect = { x: (W_ - w) / 2, y: appRect.y + (appRect.h - hgt) / 2, w, h: hgt };
    windows.push(windowOf('dialog', view.dialog.package ?? pkg, view.dialog.spec, rect, state, palette, {
      modal: true,
      ...(view.dialog.onCancel ? { onOutside: view.dialog.onCancel } : {}),
    }));
  }
  if (view.menu) {
    const w = 224;
    const spec = menuSpec(view.menu);
    const hgt = Math.min(measureHeight(spec, w, state), appRect.h - 16);
    const a = view.menu.anchor ?? 'top-right';
    const x = a === 'top-right' ? W_ - w - 8 : Math.min(Math.max(8, a.x), W_ - w - 8);
    const y = a === 'top-right' ? appRect.y + 8 : Math.min(Math.max(appRect.y, a.y), appRect.y + appRect.h - hgt);
    windows.push(windowOf('menu', pkg, spec, { x, y, w, h: hgt }, state, palette, { modal: true, onOutside: view.menu.onDismiss }));
  }
  if (ui.prompt && ui.prompt.package === pkg) {
    const label = wm.apps.get(pkg)?.label ?? pkg;
    const spec = permissionPromptSpec(label, h.allowPermission, h.denyPermission);
    const w = Math.min(W_ - 48, 560);
    const hgt = measureHeight(spec, w, emptyViewState());
    windows.push(windowOf('prompt', PERMISSION_PACKAGE, spec, { x: (W_ - w) / 2, y: (H - hgt) / 2, w, h: hgt }, emptyViewState(), base, { modal: true }));
  }
  const toolbar = textToolbarWindow(windows, state, wm.state.clipboard, h, { width: W_, top: appRect.y, bottom: appRect.y + appRect.h }, palette);
  if (toolbar) windows.push(toolbar);
  if (keyboardUp) {
    const rect = { x: 0, y: H - NAV_BAR_DP - KEYBOARD_DP, w: W_, h: KEYBOARD_DP };
    windows.push(windowOf('keyboard', KEYBOARD_PACKAGE, keyboardSpec(ui.keyboard, h.keyboard), rect, emptyViewState(), base, { a11y: 'root' }));
  }
  windows.push(windowOf('status', SYSTEMUI_PACKAGE, statusBarSpec(wm.sys.clock.now() + wm.sys.clock.offsetMs(wm.sys.clock.now()), wm.sys.settings), { x: 0, y: 0, w: W_, h: STATUS_BAR_DP }, emptyViewState(), base));
  windows.push(windowOf('nav', SYSTEMUI_PACKAGE, navBarSpec(h), { x: 0, y: H - NAV_BAR_DP, w: W_, h: NAV_BAR_DP }, emptyViewState(), base));

  const now = wm.sys.clock.now();
  return {
    windows,
    widthDp: W_,
    heightDp: H,
    scale,
    dark,
    toast: ui.toast && ui.toast.until > now ? ui.toast.text : null,
    foreground: wm.foreground(),
  };
}
