import { APP_CATALOG, type CatalogApp } from '../../../core/device/app-catalog.js';
import type { AppDef } from '../runtime/app.js';
import { appBar, column, fill, screen, text } from '../view/widgets.js';

/**
 * Apps installed so the drawer and `pm list packages` look like AndroidWorld's emulator, without a
 * simulation behind them: they open to a plain screen. The task suite never needs them, which
 * makes them realistic distractors.
 */
const GLYPHS: Record<string, [string, `#${string}`]> = {
  Camera: ['camera', '#5F6368'], Chrome: ['globe', '#1A73E8'], Joplin: ['note', '#1071D3'], OpenTracks: ['track', '#E65100'],
  OsmAnd: ['map', '#F57C00'], Phone: ['phone', '#1A73E8'], 'Retro Music': ['music', '#D81B60'], 'Simple Draw Pro': ['brush', '#FB8C00'],
  'Simple Gallery Pro': ['gallery', '#F4511E'], VLC: ['video', '#FF8800'], Gmail: ['mail', '#EA4335'], Photos: ['image', '#FBBC04'],
  'Play Store': ['store', '#01875F'], YouTube: ['play', '#FF0000'], Calculator: ['calculator', '#3C4043'], Maps: ['location', '#34A853'],
  Drive: ['cloud', '#1E8E3E'], 'Markdown Viewer': ['note', '#546E7A'], Weather: ['weather', '#039BE5'],
};

function placeholder(c: CatalogApp): AppDef {
  const [glyph, color] = GLYPHS[c.name] ?? ['apps', '#5F6368'];
  return {
    package: c.package,
    label: c.name,
    icon: { glyph, color },
    launchActivity: c.activity,
    activities: [{
      name: c.activity,
      create: () => ({}),
      render: () => ({
        body: screen({
          appBar: appBar({ title: c.name }),
          body: [column([fill(), text(`Welcome to ${c.name}`, { size: 20, align: 'center' }), text('Nothing here yet.', { align: 'center', fg: 'onSurfaceVariant' }), fill()], { h: 'fill' })],
        }),
      }),
    }],
  };
}

export const PLACEHOLDER_APPS: readonly AppDef[] = APP_CATALOG.filter((c) => !c.simulated).map(placeholder);
