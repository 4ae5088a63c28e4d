import type { ActivityDef } from '../../runtime/app.js';
import { appBar, list, screen } from '../../view/widgets.js';
import { directories, pictureOf } from './media.js';
import { FOLDER_IDS, grid } from './views.js';

/**
 * Simple Gallery's MainActivity: the folders holding images, as a grid; a tap opens one (MediaActivity,
 * media-grid.ts), whose pictures open full screen (ViewPagerActivity, viewer.ts).
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
