import type { ActivityContext, ActivityDef } from '../../runtime/app.js';
import { W } from '../../view/spec.js';
import { column, fill, row, strip, text } from '../../view/widgets.js';
import { logOutgoingCall, nameForNumber } from './calls.js';

/**
 * The in-call screen (the dialer package's InCallActivity): the number or contact, the time since
 * the call began (the line counts as answered at once), and End call, which logs the call and closes.
 */
export const INCALL_ACTIVITY = 'com.android.incallui.InCallActivity';

interface InCallState {
  number: string;
  startedAt: number;
}

type Ctx = ActivityContext<InCallState>;

function hangUp(ctx: Ctx): void {
  logOutgoingCall(ctx.sys, ctx.s.number, ctx.s.startedAt, ctx.sys.clock.now());
  ctx.nav.finish();
}

function render(ctx: Ctx) {
  const { s } = ctx;
  const secs = Math.floor((ctx.sys.clock.now() - s.startedAt) / 1000);
  const name = nameForNumber(ctx.sys, s.number);
  const white = '#FFFFFF';
  return {
    body: column([
      fill(),
      text(name ?? s.number, { id: 'contactgrid_contact_name', size: 32, align: 'center', fg: white }),
      ...(name ? [text(s.number, { id: 'contactgrid_status_text', size: 16, align: 'center', fg: '#E8EAED' })] : []),
      text(`${Math.floor(secs / 60)}:${String(secs % 60).padStart(2, '0')}`, { id: 'contactgrid_bottom_timer', size: 16, align: 'center', fg: '#E8EAED' }),
      fill(),
      row([fill(), column([fill(), strip({
        cls: W.ImageButton, id: 'incall_end_call', desc: 'End call', w: 72, h: 72, onClick: () => hangUp(ctx),
        style: { bg: '#D93025', radius: 36, icon: 'phone', iconColor: white },
      }), fill()], { w: 72 }), fill()], { h: 120 }),
    ], { h: 'fill', style: { bg: '#1F3A5F' } }),
  };
}

export const inCall: ActivityDef<InCallState> = {
  name: INCALL_ACTIVITY,
  create: (intent, env) => ({ number: String(intent.extras.number ?? ''), startedAt: env.sys.clock.now() }),
  render,
  onBack: () => true, // Back does not end a call; End call does.
};
