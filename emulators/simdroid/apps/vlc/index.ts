import type { AppDef } from '../../runtime/app.js';
import { VLC_DB, VLC_PKG, VLC_SCHEMA, VLC_VIDEOS_DIR } from './db.js';
import { VLC_MAIN, vlcMain } from './main.js';

/**
 * VLC for Android (org.videolan.vlc): the launcher's StartActivity forwards to gui.MainActivity
 * (which AndroidWorld starts directly). Playlists live in the media library's SQLite database
 * (db.ts), where AndroidWorld's VLC templates read them; videos are files in shared storage.
 */
export const vlcApp: AppDef = {
  package: VLC_PKG,
  label: 'VLC',
  icon: { glyph: 'play', color: '#FF8800' },
  accent: '#FF8800',
  launchActivity: 'org.videolan.vlc.StartActivity',
  trampolines: { 'org.videolan.vlc.StartActivity': VLC_MAIN },
  activities: [vlcMain],
  databases: [{ path: VLC_DB, schema: VLC_SCHEMA }],
  // AndroidWorld's VLC setup makes the videos folder once (apps.VlcApp.setup).
  boot: ({ sys }) => sys.fs.mkdirp(VLC_VIDEOS_DIR),
};
