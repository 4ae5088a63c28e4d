import type { ActivityContext, ActivityDef } from '../../runtime/app.js';
import type { ViewSpec } from '../../view/spec.js';
import { appBar, column, iconButton, screen, scroll, spacer, strip, text } from '../../view/widgets.js';
import { basename } from '../../system/fs.js';
import { DOCUMENT_ACTIVITY, documentTitle, readTextOr, writeDocument } from './files.js';
import { ID, editorPane } from './widgets.js';

/**
 * Markor's DocumentActivity: one text file, in edit mode (a plain EditText over the whole file) or
 * view mode (the text rendered). It saves when leaving (Back, Navigate up) and on the toolbar's
 * Save, and only when the text changed, so merely opening a note keeps its modification time.
 */
export interface DocState {
  path: string;
  /** The text as last read from or written to the file. */
  saved: string;
  preview: boolean;
}

type Ctx = ActivityContext<DocState>;

const FIELD = 'document_text';

function save(ctx: Ctx): void {
  const text = ctx.fields[FIELD] ?? '';
  if (text === ctx.s.saved) return;
  writeDocument(ctx.sys.fs, ctx.s.path, text);
  ctx.s.saved = text;
}

function leave(ctx: Ctx): void {
  save(ctx);
  ctx.nav.finish();
}

/** A light Markdown rendering for view mode: headings, list bullets, paragraphs. */
function rendered(path: string, value: string): ViewSpec[] {
  const markdown = /\.(md|markdown)$/i.test(path);
  const out: ViewSpec[] = [];
  for (const line of value.split('\n')) {
    const heading = markdown ? /^(#{1,6})\s+(.*)$/.exec(line) : null;
    if (heading) {
      const level = heading[1]!.length;
      out.push(text(heading[2]!, { size: Math.max(18, 28 - level * 3), bold: true, pad: [8, 16, 4, 16] }));
    } else if (markdown && /^\s*[-*+]\s+/.test(line)) {
      out.push(text(`•  ${line.replace(/^\s*[-*+]\s+/, '')}`, { pad: [2, 16, 2, 28] }));
    } else if (line.trim() === '') {
      out.push(spacer(12));
    } else {
      out.push(text(line, { pad: [2, 16, 2, 16] }));
    }
  }
  return out;
}

export const documentActivity: ActivityDef<DocState> = {
  name: DOCUMENT_ACTIVITY,
  create: (intent, env) => {
    const path = String(intent.extras.path ?? '');
    const saved = readTextOr(env.sys.fs, path, '');
    env.fields[FIELD] = saved;
    return { path, saved, preview: false };
  },
  render: (ctx) => {
    const value = ctx.fields[FIELD] ?? '';
    const toggle = () => {
      save(ctx);
      ctx.nav.hideKeyboard();
      ctx.s.preview = !ctx.s.preview;
      ctx.nav.scrollTo('viewer', 0);
    };
    const bar = appBar({
      title: documentTitle(ctx.s.path),
      subtitle: basename(ctx.s.path),
      onBack: () => leave(ctx),
      actions: [
        ctx.s.preview
          ? iconButton('edit', 'Edit', toggle, { id: 'action_preview' })
          : iconButton('visibility', 'View', toggle, { id: 'action_preview' }),
        iconButton('save', 'Save', () => save(ctx), { id: 'action_save' }),
      ],
    });
    const body = ctx.s.preview
      ? column([strip({ ...scroll('viewer', [...rendered(ctx.s.path, value), spacer(24)], { pad: [8, 0, 0, 0] }), cls: 'android.webkit.WebView', id: ID.viewer })], { h: 'fill' })
      : editorPane(ctx.nav, FIELD, 'editor');
    return { body: screen({ appBar: bar, body: [body] }) };
  },
  onBack: (ctx) => {
    save(ctx);
    return false;
  },
  // Markor autosaves when the editor leaves the screen (Home, another app), not only on Back.
  onPause: (ctx) => save(ctx),
};
