import type { AppDef } from '../../runtime/app.js';
import { foldersActivity, MAIN_ACTIVITY, PKG } from './browse.js';
import { mediaActivity } from './media-grid.js';
import { viewerActivity } from './viewer.js';

/**
 * Simple Gallery Pro (com.simplemobiletools.gallery.pro): the folders of shared storage that hold
 * images, each folder's images, one image full screen drawn from its file, and Copy to / Move to /
 * Delete on it. It reads and writes the device filesystem, so AndroidWorld's `adb push` into
 * /sdcard/DCIM and its `find` of /sdcard/Download see what it shows and does.
 */
export const galleryApp: AppDef = {
  package: PKG,
  label: 'Simple Gallery Pro',
  icon: { glyph: 'gallery', color: '#F4511E' },
  accent: '#F4511E',
  launchActivity: MAIN_ACTIVITY,
  activities: [foldersActivity, mediaActivity, viewerActivity],
};
