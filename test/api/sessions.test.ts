import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkbench, type Workbench } from '../../core/workbench/index.js';
import type { SessionEvent, SessionInfo } from '../../core/api/types.js';

/** SessionManager through the workbench object (no transport): the pending override, breakpoint events, failures. */
describe('step-through sessions (SessionManager)', () => {
  let dir: string;
  let wb: Workbench;
  const serial = 'simdroid-1';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'awb-sessions-'));
    wb = await createWorkbench({ dataDir: dir, adb: false });
  });
  afterAll(async () => {
    await wb.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function until(cond: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
    const end = Date.now() + ms;
    while (!(await cond())) {
      if (Date.now() > end) throw new Error(`timed out: ${cond.toString()}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }
  const pausedAt = (id: string, index: number) => until(async () => {
    const s = await wb.getSession({ sessionId: id });
    return s.state === 'paused' && s.proposal?.index === index;
  });
  const finished = (id: string) => until(async () => (await wb.getSession({ sessionId: id })).result !== null);

  it('reports a pending override (sketched on the held screen) until the step uses it, with an event to every viewer', async () => {
    const s = await wb.startSession({ serial, templateId: 'SystemDarkThemeTurnOn', seed: 1, policy: 'oracle' });
    const events: SessionEvent[] = [];
    const off = wb.onSession({ sessionId: s.id }, (e) => events.push(e));
    await pausedAt(s.id, 0);
    expect((await wb.getSession({ sessionId: s.id })).pendingOverride).toBeNull();
    await wb.overrideAction({ sessionId: s.id, action: { action_type: 'open_app', app_name: 'Settings' } });
    expect(events.at(-1)?.session.pendingOverride).toEqual({ action: { action_type: 'open_app', app_name: 'Settings' }, description: 'Open Settings', target: null });
    await wb.controlSession({ sessionId: s.id, command: 'step' });
    await pausedAt(s.id, 1);
    const after = await wb.getSession({ sessionId: s.id });
    expect(after.pendingOverride).toBeNull();
    expect(after.steps[0]).toMatchObject({ overridden: true, description: 'Open Settings' });
    // Malformed overrides are refused and leave nothing pending.
    await expect(wb.overrideAction({ sessionId: s.id, action: '{"action_type":"fly"}' })).rejects.toMatchObject({ name: 'ActionParseError' });
    expect((await wb.getSession({ sessionId: s.id })).pendingOverride).toBeNull();
    // Live input into the held device is refused, not silently applied and left out of the episode.
    const live = await wb.sendInput({ serial, event: { kind: 'key', key: 'HOME' } }).catch((e: unknown) => e);
    expect(live).toMatchObject({ name: 'DeviceInSessionError', serial, sessionId: s.id, state: 'paused' });
    expect((live as Error).message).toMatch(/would not be recorded.*Agent/);
    await wb.controlSession({ sessionId: s.id, command: 'stop' });
    await finished(s.id);
    off();
    expect((await wb.getSession({ sessionId: s.id })).result).toMatchObject({ status: 'error', terminatedBy: 'stopped' });
    // Once the session is over, Live input goes through again.
    await wb.sendInput({ serial, event: { kind: 'key', key: 'HOME' } });
  });

  it('sends the new breakpoints as an event, refuses duplicate ids, and reports a breakpoint hit while stepping', async () => {
    const s = await wb.startSession({ serial, templateId: 'SystemDarkThemeTurnOn', seed: 1, policy: 'oracle' });
    const events: SessionEvent[] = [];
    const off = wb.onSession({ sessionId: s.id }, (e) => events.push(e));
    await pausedAt(s.id, 0);
    const bp = { id: 'b1', enabled: true, spec: { kind: 'step' as const, index: 1 } };
    await expect(wb.setBreakpoints({ sessionId: s.id, breakpoints: [bp, bp] })).rejects.toMatchObject({ name: 'DuplicateBreakpointError' });
    await wb.setBreakpoints({ sessionId: s.id, breakpoints: [bp] });
    expect(events.at(-1)?.session.breakpoints).toEqual([bp]);
    await wb.controlSession({ sessionId: s.id, command: 'step' });
    await pausedAt(s.id, 1);
    expect((await wb.getSession({ sessionId: s.id })).hitBreakpoints).toEqual(['b1']);
    expect(events.some((e) => e.kind === 'break' && e.breakpoints.includes('b1'))).toBe(true);
    await expect(wb.startSession({ serial, templateId: 'SystemDarkThemeTurnOn', seed: 1, policy: 'oracle' })).rejects.toMatchObject({ name: 'DeviceBusyError' });
    await wb.controlSession({ sessionId: s.id, command: 'stop' });
    await finished(s.id);
    off();
    await expect(wb.controlSession({ sessionId: s.id, command: 'step' })).rejects.toMatchObject({ name: 'SessionStateError' });
  });

  it('ends a session visibly (finished, with an error) when recording fails, and frees the device', async () => {
    const s = await wb.startSession({ serial, templateId: 'SystemDarkThemeTurnOn', seed: 1, policy: 'oracle' });
    await pausedAt(s.id, 0);
    wb.db.exec(`CREATE TRIGGER awb_test_fail BEFORE INSERT ON steps BEGIN SELECT RAISE(ABORT, 'disk is full'); END;`);
    try {
      const seen: SessionInfo[] = [];
      const off = wb.onSession({ sessionId: s.id }, (e) => seen.push(e.session));
      await wb.controlSession({ sessionId: s.id, command: 'step' });
      await finished(s.id);
      off();
      const end = await wb.getSession({ sessionId: s.id });
      expect(end.state).toBe('finished');
      expect(end.result).toMatchObject({ status: 'error', success: false, error: { message: expect.stringMatching(/disk is full/) } });
      expect(seen.at(-1)?.state).toBe('finished');
    } finally {
      wb.db.exec('DROP TRIGGER awb_test_fail');
    }
    const again = await wb.startSession({ serial, templateId: 'SystemDarkThemeTurnOn', seed: 1, policy: 'oracle', run: true });
    await finished(again.id);
    expect((await wb.getSession({ sessionId: again.id })).result).toMatchObject({ status: 'success' });
  });
});
