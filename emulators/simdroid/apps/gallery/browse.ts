import type { ActivityDef } from '../../runtime/app.js';
import { basename } from '../../system/fs.js';
import { appBar, list, screen } from '../../view/widgets.js';
import { directories, mediaIn, pictureOf } from './media.js';
import { FOLDER_IDS, grid, MEDIUM_IDS } from './views.js';

/**
 * Simple Gallery's MainActivity (the folders holding images, as a grid) and MediaActivity (one
 * folder's images, newest first). A tap on a picture opens it full screen (ViewPagerActivity).
 */
export const PKG = 'com.simplemobiletools.gallery.pro';
export const MAIN_ACTIVITY = `${PKG}.activities.MainActivity`;
export const MEDIA_ACTIVITY = `${PKG}.activities.MediaActivity`;
export const VIEWER_ACTIVITY = `${PKG}.activities.ViewPagerActivity`;

export const foldersActivity: ActivityDef<Record<string, never>> = {
  name: MAIN_ACTIVITY,
  create: () => ({}),
  render: (ctx) => {
    const cells = directories(ctx.sys.fs).map((d) => ({
      key: d.path, picture: pictureOf(ctx.sys.fs, d.media[0]!.path, 'cover'), title: d.name, subtitle: String(d.media.length),
      onClick: () => ctx.nav.start(MEDIA_ACTIVITY, { directory: d.path }),
    }));
    return {
      body: screen({
        appBar: appBar({ title: 'Simple Gallery' }),
        body: [list('directories', grid(cells, FOLDER_IDS, 2, 168), { id: 'directories_grid', empty: 'No media files have been found' })],
      }),
    };
  },
};

interface MediaState {
  directory: string;
}

export const mediaActivity: ActivityDef<MediaState> = {
  name: MEDIA_ACTIVITY,
  create: (intent) => ({ directory: String(intent.extras.directory ?? '') }),
  render: (ctx) => {
    const media = mediaIn(ctx.sys.fs, ctx.s.directory);
    const cells = media.map((m) => ({
      key: m.path, picture: pictureOf(ctx.sys.fs, m.path, 'cover'), title: m.name,
      onClick: () => ctx.nav.start(VIEWER_ACTIVITY, { path: m.path, directory: ctx.s.directory }),
    }));
    return {
      body: screen({
        appBar: appBar({ title: basename(ctx.s.directory), onBack: () => ctx.nav.finish() }),
        body: [list('media', grid(cells, MEDIUM_IDS, 3, 116), { id: 'media_grid', empty: 'No media files have been found' })],
      }),
    };
  },
};
