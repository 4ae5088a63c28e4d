import type { ActivityDef, AppDef } from '../../runtime/app.js';
import { column, screen } from '../../view/widgets.js';
import { PLAYBACK_DB, PLAYBACK_SCHEMA, playbackDb, PLAYLIST_DB, PLAYLIST_SCHEMA, RETRO_PKG } from './library.js';
import { bottomNav, libraryScreen, miniPlayer, playerScreen, playlistScreen, queueScreen, retroDialog, retroMenu } from './screens.js';
import { MAIN_ACTIVITY, page, type RetroState } from './state.js';

/**
 * Retro Music (code.name.monkey.retromusic), the music player AndroidWorld's Retro* templates use:
 * the songs on shared storage (title, artist and length read from the files' tags), playlists kept
 * in the app's playlist.db, the playing queue in music_playback_state.db (library.ts), and the
 * screens to play songs, queue them, make playlists and save one as an M3U file (screens.ts).
 */
const main: ActivityDef<RetroState> = {
  name: MAIN_ACTIVITY,
  create: () => ({ tab: 'songs', stack: ['library'], playlist: null, menu: null, dialog: null }),
  render: (ctx) => {
    const p = page(ctx.s);
    const view = p === 'library' ? libraryScreen(ctx) : p === 'playlist' ? playlistScreen(ctx) : p === 'player' ? playerScreen(ctx) : queueScreen(ctx);
    const mini = p === 'library' || p === 'playlist' ? miniPlayer(ctx) : null;
    const bottomParts = [...(mini ? [mini] : []), ...(p === 'library' ? [bottomNav(ctx)] : [])];
    const spec = screen({ appBar: view.appBar, body: [view.body], ...(bottomParts.length ? { bottom: column(bottomParts) } : {}) });
    const dialog = retroDialog(ctx);
    const menu = retroMenu(ctx);
    return { body: spec, ...(dialog ? { dialog } : {}), ...(menu ? { menu } : {}) };
  },
  onBack: (ctx) => {
    if (ctx.s.menu) {
      ctx.s.menu = null;
      return true;
    }
    if (ctx.s.stack.length > 1) {
      ctx.s.stack.pop();
      return true;
    }
    return false;
  },
};

export const retroApp: AppDef = {
  package: RETRO_PKG,
  label: 'Retro Music',
  icon: { glyph: 'music', color: '#D81B60' },
  accent: '#D81B60',
  launchActivity: MAIN_ACTIVITY,
  activities: [main],
  databases: [{ path: PLAYLIST_DB, schema: PLAYLIST_SCHEMA }, { path: PLAYBACK_DB, schema: PLAYBACK_SCHEMA }],
  // A media scan wakes the app's process (its MediaStore observer) as on a device, which re-creates a
  // playback database that was deleted (AndroidWorld's database pushes empty the databases folder).
  receivers: [{
    name: 'code.name.monkey.retromusic.service.MediaStoreObserver',
    actions: ['android.intent.action.MEDIA_SCANNER_SCAN_FILE'],
    onReceive: (_intent, sys) => {
      playbackDb(sys);
      return { code: 0, data: null };
    },
  }],
};
