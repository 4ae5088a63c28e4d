import type { EnvService } from '../env/service.js';
import type { EnvSession } from '../env/session.js';
import type { WritableDB } from '../store/index.js';
import type { SessionInfo } from '../api/types.js';
import type { SessionControl, SessionManager } from './sessions.js';
import { finishView, followController } from './session-view.js';

/**
 * Outside agents' sessions in the Agent view (docs/outside-agents.md): each EnvSession the environment server opens is
 * listed with the workbench's own sessions, its current episode mirrored from the episode's controller, and a person's
 * commands (pause, step, run, stop, override, breakpoints, take over, hand back) go to the session, which keeps them
 * across its episodes. A session the agent closes (or whose connection drops) leaves the list.
 */
export function showOutsideSessions(env: EnvService, sessions: SessionManager, db: () => WritableDB): () => void {
  return env.onSession((e) => {
    if (e.kind === 'opened') follow(e.session, e.run, sessions, env, db);
  });
}

function follow(s: EnvSession, run: { id: number; name: string }, sessions: SessionManager, env: EnvService, db: () => WritableDB): void {
  const info: SessionInfo = {
    id: s.id, serial: s.device.serial, templateId: '', seed: 0, instruction: '', policy: s.agent, state: 'idle', breakpoints: [],
    proposal: null, steps: [], episodeId: null, result: null, hitBreakpoints: [], pendingOverride: null,
    agent: { name: s.agent, run, episodes: 0, takenOver: false, connected: true },
  };
  const control: SessionControl = {
    step: () => s.stepOnce(),
    run: () => s.run(),
    pause: () => s.pause(),
    stop: () => s.stop(),
    override: (action) => s.override(action),
    setBreakpoints: (list) => {
      s.setBreakpoints(list);
      return [...list];
    },
    pending: () => s.controller?.pending() ?? null,
    takeOver: () => s.takeOver(),
    handBack: () => s.handBack(),
    // The device is going away (or the workbench is closing): the agent's session ends, its episode recorded as aborted.
    end: async () => {
      await env.closeSession(s.id).catch(() => undefined);
    },
  };
  const entry = sessions.add(info, control);
  let unfollow = () => {};
  s.watch((ev) => {
    if (ev.kind === 'episode') {
      unfollow();
      const { instance, controller, recorder } = ev;
      Object.assign(info, {
        templateId: instance.template.id, seed: instance.seed, instruction: instance.instruction, state: 'idle', proposal: null, steps: [],
        episodeId: null, result: null, hitBreakpoints: [],
      });
      info.agent!.episodes++;
      const offFollow = followController(controller, entry, () => recorder.episodeId);
      const offEnd = controller.on('onFinished', (r) => finishView(entry, r, db(), recorder.episodeId));
      unfollow = () => {
        offFollow();
        offEnd();
      };
      if (entry.watched()) entry.emit({ kind: 'episode', session: entry.snapshot() });
      entry.listed();
      return;
    }
    unfollow();
    info.agent!.connected = false;
    info.state = 'finished';
    info.proposal = null;
    if (entry.watched()) entry.emit({ kind: 'finished', session: entry.snapshot() });
    sessions.remove(s.id);
  });
}
