import type { WebSocket } from 'ws';
import { frameMessage } from '../util/wire-codec.js';
import { assertNever } from '../util/errors.js';
import { parseRequest, ProtocolError, requestId, SessionNotFoundError, type EnvRequest } from './protocol.js';
import type { EnvResult } from './results.js';
import type { EnvService } from './service.js';

/**
 * One client's WebSocket (docs/env-protocol.md): text frames in, one response per request out (binary when it carries
 * bytes), notices without an id. Requests for different sessions run side by side (a vector environment multiplexes
 * its sessions on one socket). The sessions a connection creates are its own; when it closes, so do they, each
 * unfinished episode recorded as aborted. No frame can end the connection or the server: a bad one gets an error
 * response naming what is wrong.
 */

/** Error names a client may match on are the thrown errors' own; anything unexpected is logged with its stack. */
const EXPECTED = new Set([
  'ProtocolError', 'UnknownTemplateError', 'GivenParamsError', 'TaskParamsError', 'SplitError', 'SeedError', 'DeviceNotFoundError', 'DevicesBusyError',
  'DeviceBusyError', 'SessionNotFoundError', 'SessionBusyError', 'EpisodeNotStartedError', 'EpisodeEndedError', 'UnknownVlmFormatError',
  'RewardConfigError', 'RewardUnavailableError', 'ObservationSpecError', 'EnvironmentError', 'AdbDisabledError', 'DeviceInSessionError',
]);

export function serveEnvConnection(ws: WebSocket, service: EnvService, log: (m: string) => void): void {
  const owned = new Set<string>();
  let greeted = false;
  let open = true;

  const send = (msg: Record<string, unknown>, blobs: readonly Uint8Array[] = []): void => {
    if (!open || ws.readyState !== ws.OPEN) return;
    const json = JSON.stringify(msg);
    ws.send(blobs.length ? frameMessage(json, blobs) : json);
  };
  const notify = (event: Record<string, unknown>) => send(event);

  const ownedSession = (id: string): string => {
    if (!owned.has(id)) throw new SessionNotFoundError(id);
    return id;
  };

  const dispatch = async (req: EnvRequest): Promise<EnvResult> => {
    if (!greeted && req.op !== 'hello') throw new ProtocolError(`send {"op": "hello", "protocol": 1} first, not ${req.op}`);
    switch (req.op) {
      case 'hello': {
        const r = await service.hello(req.protocol);
        greeted = true;
        return r;
      }
      case 'tasks':
        return service.tasks();
      case 'create': {
        const { session, result } = await service.create(req, notify);
        if (!open) {
          // The client left while its session was being made: nobody will close it.
          await service.closeSession(session.id);
          return result;
        }
        owned.add(session.id);
        return result;
      }
      case 'reset':
        return service.get(ownedSession(req.session)).reset(req.seed, req.task);
      case 'step':
        return service.get(ownedSession(req.session)).step(req);
      case 'observe':
        return service.get(ownedSession(req.session)).observe();
      case 'close': {
        ownedSession(req.session);
        owned.delete(req.session);
        return { value: { episodes: await service.closeSession(req.session) }, blobs: [] };
      }
      default:
        return assertNever(req, 'request');
    }
  };

  ws.on('message', (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
    let value: unknown;
    try {
      if (isBinary) throw new ProtocolError('requests are text frames holding JSON');
      const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
      try {
        value = JSON.parse(bytes.toString('utf8'));
      } catch (e) {
        throw new ProtocolError(`not JSON: ${(e as Error).message}`);
      }
    } catch (e) {
      send({ id: null, ok: false, error: { name: 'ProtocolError', message: (e as Error).message } });
      return;
    }
    const id = requestId(value);
    void (async () => {
      try {
        const result = await dispatch(parseRequest(value));
        send({ id, ok: true, result: result.value }, result.blobs);
      } catch (e) {
        const err = e instanceof Error ? e : new Error(String(e));
        if (!EXPECTED.has(err.name)) log(`env request ${JSON.stringify((value as { op?: unknown }).op)}: ${err.stack ?? err.message}`);
        send({ id, ok: false, error: { name: err.name, message: err.message } });
      }
    })();
  });

  ws.on('close', () => {
    open = false;
    for (const id of owned) void service.closeSession(id).catch((e: unknown) => log(`env session ${id}: ${(e as Error).message}`));
    owned.clear();
  });
  ws.on('error', (e) => log(`env websocket: ${e.message}`));
}
