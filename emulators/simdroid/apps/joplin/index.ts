import type { ActivityDef, AppDef } from '../../runtime/app.js';
import { W, type ViewSpec } from '../../view/spec.js';
import { APP_BAR_DP } from '../../view/theme.js';
import { column, iconButton, row, screen, scroll, spacer, text } from '../../view/widgets.js';
import { folder, insertNotes, JOPLIN_DB, JOPLIN_PKG, JOPLIN_SCHEMA, note } from './db.js';
import { closeSearch, HEADER_BG, HEADER_FG, notesScreen, searchScreen, todoBox, type Ctx, type JoplinState } from './list.js';

/**
 * Joplin (net.cozic.joplin), the Markdown notes app AndroidWorld's Notes* questions read: notebooks
 * in a side menu, a note list per notebook (to-dos with their check box), search, and the note
 * screen showing the title and the rendered Markdown body. Its data is the app's SQLite database
 * (db.ts) where AndroidWorld seeds it. Creating and editing notes is not simulated.
 */
const MAIN = 'net.cozic.joplin.MainActivity';

/** Markdown as the note viewer renders it: headings, list items (their marker dropped), paragraphs. */
function markdown(body: string): ViewSpec[] {
  const out: ViewSpec[] = [];
  for (const line of body.split('\n')) {
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    const bullet = /^\s*[-*+]\s+(.*)$/.exec(line);
    const checkItem = /^\s*[-*+]\s+\[( |x)\]\s+(.*)$/i.exec(line);
    if (heading) {
      out.push(text(heading[2]!, { size: Math.max(18, 28 - heading[1]!.length * 3), bold: true, pad: [8, 16, 4, 16] }));
    } else if (checkItem) {
      const done = checkItem[1]!.toLowerCase() === 'x';
      out.push(row([
        { cls: W.CheckBox, checkable: true, checked: done, w: 32, h: 32, pad: [0, 0, 0, -64], style: { icon: done ? 'checkbox_on' : 'checkbox_off' } },
        { ...text(checkItem[2]!, { pad: [6, 16, 2, 4] }), weight: 1 },
      ], { pad: [0, 0, 0, 20] }));
    } else if (bullet) {
      out.push(row([text('•', { w: 'wrap', pad: [2, 4, 2, 24] }), { ...text(bullet[1]!, { pad: [2, 16, 2, 4] }), weight: 1 }]));
    } else if (line.trim() === '') {
      out.push(spacer(10));
    } else {
      out.push(text(line, { pad: [2, 16, 2, 16] }));
    }
  }
  return out;
}

function noteScreen(ctx: Ctx, id: string): ViewSpec {
  const n = note(ctx.app.db, id);
  const back = () => { ctx.s.noteId = null; };
  if (!n) {
    ctx.s.noteId = null;
    return column([]);
  }
  const notebook = folder(ctx.app.db, n.parent_id);
  const bar = row([
    iconButton('arrow_back', 'Back', back, { id: 'back_button', color: HEADER_FG }),
    { ...text(notebook?.title ?? '', { size: 18, lines: 1, pad: [0, 8, 0, 8], fg: HEADER_FG }), weight: 1 },
  ], { cls: W.ViewGroup, id: 'header', h: APP_BAR_DP, pad: [8, 4, 8, 4], style: { bg: HEADER_BG } });
  const titleRow = row([
    ...(n.is_todo === 1 ? [todoBox(ctx, n, 'note_todo_checkbox')] : []),
    { ...text(n.title, { id: 'note_title', size: 22, bold: true, pad: [12, 16, 8, n.is_todo === 1 ? 4 : 16] }), weight: 1 },
  ]);
  return screen({ appBar: bar, body: [titleRow, scroll('note', markdown(n.body), { id: 'note_body', pad: [4, 0, 24, 0] })], id: 'note_screen' });
}

const main: ActivityDef<JoplinState> = {
  name: MAIN,
  create: () => ({ folder: null, sideMenu: false, searching: false, noteId: null }),
  render: (ctx) => {
    if (ctx.s.noteId !== null) return { body: noteScreen(ctx, ctx.s.noteId) };
    return { body: ctx.s.searching ? searchScreen(ctx) : notesScreen(ctx) };
  },
  onBack: (ctx) => {
    if (ctx.s.noteId !== null) {
      ctx.s.noteId = null;
      return true;
    }
    if (ctx.s.sideMenu) {
      ctx.s.sideMenu = false;
      return true;
    }
    if (ctx.s.searching) {
      closeSearch(ctx);
      return true;
    }
    return false;
  },
};

/** A first launch's notes, so the app never opens empty (AndroidWorld's seeding clears them). */
const WELCOME = [
  { folder: 'Personal', title: 'Welcome to Joplin', body: '# Welcome\n\nJoplin keeps your notes and to-dos in notebooks.\n\n- Tap a note to read it\n- Tick a to-do when it is done' },
  { folder: 'Personal', title: 'Call the plumber', body: 'About the kitchen sink.', isTodo: true },
];

export const joplinApp: AppDef = {
  package: JOPLIN_PKG,
  label: 'Joplin',
  icon: { glyph: 'note', color: '#1071D3' },
  accent: '#1071D3',
  launchActivity: MAIN,
  activities: [main],
  databases: [{ path: JOPLIN_DB, schema: JOPLIN_SCHEMA }],
  boot: ({ app, sys, rng }) => insertNotes(app.db, WELCOME, sys.clock.now() - 86_400_000, () => rng.next()),
};
