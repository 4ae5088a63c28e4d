import type { AppDef } from '../../runtime/app.js';
import { drawActivity, MAIN_ACTIVITY, PKG } from './main.js';

/**
 * Simple Draw Pro (com.simplemobiletools.draw.pro): a canvas drawn on with swipes and taps, saved as
 * PNG, SVG or JPG under a folder of shared storage picked in simple-commons' folder picker.
 */
export const drawApp: AppDef = {
  package: PKG,
  label: 'Simple Draw Pro',
  icon: { glyph: 'brush', color: '#FB8C00' },
  accent: '#FB8C00',
  launchActivity: MAIN_ACTIVITY,
  activities: [drawActivity],
};
