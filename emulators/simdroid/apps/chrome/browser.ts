import type { Element as DomElement } from 'happy-dom';
import type { ActivityContext, ActivityDef, SystemServices } from '../../runtime/app.js';
import type { ViewSpec } from '../../view/spec.js';
import { W } from '../../view/spec.js';
import { column, iconButton, row, strip, text } from '../../view/widgets.js';
import { block } from './dom-view.js';
import type { PageEvent, PagePath } from './page.js';
import { livePage, newPageId } from './pages.js';
import { canvasView } from './canvas-view.js';

/**
 * Chrome's tab: the omnibox (url_bar) and the page. file:// URLs are read from the device's storage
 * (AndroidWorld pushes its task pages to Download); the device is offline for http(s) and searches,
 * as AndroidWorld's emulator runs its tasks, so those show Chrome's offline page.
 */
export const URL_FIELD = 'url_bar';
/** The width Chrome lays out a page without a viewport meta tag at, CSS px. */
const DESKTOP_WIDTH = 980;
/** The device's width in dp (1080 px at 420 dpi). */
const SCREEN_DP = 411;

export interface TabState {
  url: string | null;
  html: string | null;
  /** Chrome's error page, when the URL could not be shown. */
  error: { title: string; code: string } | null;
  events: PageEvent[];
  pageId: number;
}

type Ctx = ActivityContext<TabState>;

/** What the omnibox was given, as a URL: a path or file: URL, else an http(s) URL or a search. */
export function normalizeUrl(input: string): string {
  const t = input.trim();
  if (t.startsWith('/')) return `file://${t}`;
  if (/^[a-z][a-z0-9+.-]*:/i.test(t)) return t;
  if (/^[\w-]+(\.[\w-]+)+(\/.*)?$/.test(t)) return `https://${t}`;
  return `https://www.google.com/search?q=${encodeURIComponent(t)}`;
}

export function load(sys: SystemServices, s: TabState, input: string): void {
  const url = normalizeUrl(input);
  s.url = url;
  s.events = [];
  s.pageId = newPageId();
  s.html = null;
  s.error = null;
  if (!url.startsWith('file://')) {
    s.error = { title: 'No internet', code: 'ERR_INTERNET_DISCONNECTED' };
    return;
  }
  const path = decodeURIComponent(url.slice('file://'.length).split(/[?#]/)[0]!);
  const entry = sys.fs.stat(path);
  if (!entry || entry.type !== 'file') {
    s.error = { title: 'Your file couldn’t be accessed', code: 'ERR_FILE_NOT_FOUND' };
    return;
  }
  s.html = sys.fs.readText(path);
}

function pageViews(ctx: Ctx): ViewSpec[] {
  const { s } = ctx;
  if (!s.url) {
    return [column([
      { cls: W.View, h: 96 },
      text('Chrome', { size: 32, align: 'center', fg: '#5F6368' }),
      text('Search or type URL in the address bar', { align: 'center', fg: 'onSurfaceVariant', id: 'search_box_text' }),
    ])];
  }
  if (s.error || s.html === null) {
    const e = s.error ?? { title: 'This page isn’t working', code: 'ERR_FAILED' };
    return [column([
      { cls: W.View, h: 64 },
      text(e.title, { size: 22, pad: [8, 24, 8, 24] }),
      text(s.url, { fg: 'onSurfaceVariant', pad: [4, 24, 4, 24] }),
      text(e.code, { size: 12, fg: 'onSurfaceVariant', pad: [4, 24, 4, 24] }),
    ])];
  }
  const src = { pageId: s.pageId, url: s.url, html: s.html, events: s.events };
  const meta = /<meta[^>]+name=["']?viewport["']?[^>]*content=["'][^"']*width=device-width/i.test(s.html);
  const scale = meta ? 1 : SCREEN_DP / DESKTOP_WIDTH;
  const page = livePage(src, meta ? SCREEN_DP : DESKTOP_WIDTH);
  const push = (e: PageEvent) => { s.events.push(e); };
  const fieldOf = (p: PagePath) => `web:${p.join('.')}`;
  const hooks = {
    fieldOf,
    click: (path: PagePath) => {
      // The inputs' text goes with the click, as the page reads their values in its handler.
      const values: Record<string, string> = {};
      for (const [k, v] of Object.entries(ctx.fields)) if (k.startsWith('web:')) values[k.slice(4)] = v;
      push({ kind: 'click', path, values });
    },
    canvas: (el: DomElement, path: PagePath, css: { w: number; h: number }, id: string | undefined) => canvasView(
      el, css, scale, { resourceId: id, key: `chrome:${s.pageId}:${path.join('.')}`, version: page.eventCount },
      (points, box) => push({ kind: 'stroke', path, points, box }),
    ),
  };
  const body = block({ page, hooks, scale }, page.document.body as unknown as DomElement, []);
  return body ? [body] : [];
}

function render(ctx: Ctx) {
  const { s } = ctx;
  const display = s.url?.startsWith('file://') ? s.url : s.url ?? '';
  const toolbar = row([
    iconButton('home', 'Home', () => { Object.assign(s, { url: null, html: null, error: null, events: [] }); }, { id: 'home_button' }),
    strip({
      cls: W.EditText, field: URL_FIELD, id: 'url_bar', hint: display || 'Search or type URL', weight: 1, pad: [10, 16, 10, 16],
      onSubmit: () => {
        const typed = ctx.fields[URL_FIELD] ?? '';
        if (!typed.trim()) return;
        ctx.fields[URL_FIELD] = '';
        ctx.nav.hideKeyboard();
        load(ctx.sys, s, typed);
      },
      style: { bg: 'surfaceVariant', radius: 24, size: 15 },
    }),
    iconButton('refresh', 'Refresh', () => { if (s.url) load(ctx.sys, s, s.url); }, { id: 'refresh_button' }),
    iconButton('more_vert', 'Customize and control Google Chrome', () => ctx.nav.toast('Menu'), { id: 'menu_button' }),
  ], { id: 'toolbar', h: 64, pad: [8, 4, 8, 4], style: { bg: 'surface' } });
  const content = strip({ cls: 'android.webkit.WebView', id: 'compositor_view_holder', scrollKey: 'web', layout: 'column', h: 'fill', children: pageViews(ctx), style: { bg: '#FFFFFF' } });
  return { body: column([toolbar, content], { h: 'fill', style: { bg: 'background' } }) };
}

export function browserActivity(name: string): ActivityDef<TabState> {
  return {
    name,
    create: (intent, env) => {
      const s: TabState = { url: null, html: null, error: null, events: [], pageId: newPageId() };
      if (typeof intent.extras.url === 'string' && intent.extras.url) load(env.sys, s, intent.extras.url);
      return s;
    },
    render,
  };
}
