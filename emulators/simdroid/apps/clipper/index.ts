import type { AppDef, ReceiverDef } from '../../runtime/app.js';
import { appBar, column, fill, screen, text } from '../../view/widgets.js';

/**
 * Clipper (ca.zgrs.clipper), part of SimDroid's system image: the small app AndroidWorld installs so
 * that adb can reach the clipboard. Its receiver answers the broadcasts `clipper.set -e text …` and
 * `clipper.get` (and the short `set`/`get`) exactly as Clipper's ClipperReceiver does, on SimDroid's
 * one clipboard — the one text fields paste from (Ctrl+V, KEYCODE_PASTE) and apps copy into.
 * It has no launcher icon here; `am start -n ca.zgrs.clipper/.Main` opens its screen.
 */
export const CLIPPER_PKG = 'ca.zgrs.clipper';
export const CLIPPER_MAIN = 'ca.zgrs.clipper.Main';

/** Activity.RESULT_OK and RESULT_CANCELED, as the receiver sets them. */
const RESULT_OK = -1;
const RESULT_CANCELED = 0;

const clipperReceiver: ReceiverDef = {
  name: 'ca.zgrs.clipper.ClipperReceiver',
  actions: ['clipper.set', 'set', 'clipper.get', 'get'],
  onReceive: (intent, sys) => {
    if (intent.action === 'clipper.set' || intent.action === 'set') {
      const t = intent.extras.text;
      if (typeof t !== 'string') return { code: RESULT_CANCELED, data: 'No text is provided. Use -e text "text to be pasted"' };
      sys.clipboard.setText(t);
      return { code: RESULT_OK, data: 'Text is copied into clipboard.' };
    }
    const clip = sys.clipboard.text();
    return clip === null ? { code: RESULT_CANCELED, data: '' } : { code: RESULT_OK, data: clip };
  },
};

export const clipperApp: AppDef = {
  package: CLIPPER_PKG,
  label: 'Clipper',
  icon: { glyph: 'note', color: '#546E7A' },
  launchActivity: CLIPPER_MAIN,
  hidden: true,
  receivers: [clipperReceiver],
  activities: [{
    name: CLIPPER_MAIN,
    create: () => ({}),
    render: () => ({
      body: screen({
        appBar: appBar({ title: 'Clipper' }),
        body: [column([fill(), text('Clipper service is running.', { size: 18, align: 'center' }), fill()], { h: 'fill' })],
      }),
    }),
  }],
};
