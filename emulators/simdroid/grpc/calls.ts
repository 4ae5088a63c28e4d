import { status, type sendUnaryData, type ServerUnaryCall, type ServerWritableStream } from '@grpc/grpc-js';
import { ImageSizeError } from './image.js';
import { KeyInputError } from './keys.js';
import { TouchInputError } from './touch.js';

/** A request the emulator would refuse, with the gRPC status it would refuse it with. */
export class GrpcRequestError extends Error {
  override name = 'GrpcRequestError';
  constructor(readonly code: status, message: string) {
    super(message);
  }
}

export class GrpcAuthError extends GrpcRequestError {
  override name = 'GrpcAuthError';
  constructor(readonly method: string) {
    super(status.UNAUTHENTICATED, `${method}: missing or wrong "authorization: Bearer <token>" metadata (this emulator was started with a gRPC token; see grpc.token in its discovery file)`);
  }
}

/** The status code for an error thrown by a handler: bad input is INVALID_ARGUMENT, our own bugs INTERNAL. */
export function statusOf(e: unknown): { code: status; details: string } {
  if (e instanceof GrpcRequestError) return { code: e.code, details: e.message };
  if (e instanceof TouchInputError || e instanceof KeyInputError || e instanceof ImageSizeError) return { code: status.INVALID_ARGUMENT, details: e.message };
  return { code: status.INTERNAL, details: e instanceof Error ? e.message : String(e) };
}

/** Checks a call's bearer token when the server has one (the emulator's -grpc-use-token). */
export type Authorize = (metadata: ServerUnaryCall<unknown, unknown>['metadata'], method: string) => void;

export function bearerAuth(token: string | undefined): Authorize {
  return (metadata, method) => {
    if (token === undefined) return;
    const got = metadata.get('authorization')[0];
    if (got !== `Bearer ${token}`) throw new GrpcAuthError(method);
  };
}

/** A unary handler whose thrown errors and rejections become gRPC statuses, never crashes. */
export function unary<Req, Res>(name: string, auth: Authorize, fn: (req: Req) => Res | Promise<Res>, log: (m: string) => void) {
  return (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>) => {
    void (async () => {
      try {
        auth(call.metadata, name);
        callback(null, await fn(call.request));
      } catch (e) {
        const s = statusOf(e);
        if (s.code === status.INTERNAL) log(`grpc ${name}: ${(e as Error).stack ?? String(e)}`);
        callback(s);
      }
    })();
  };
}

/** A server-streaming handler with the same error mapping; `fn` returns its cleanup. */
export function serverStream<Req, Res>(name: string, auth: Authorize, fn: (call: ServerWritableStream<Req, Res>) => void, log: (m: string) => void) {
  return (call: ServerWritableStream<Req, Res>) => {
    try {
      auth(call.metadata, name);
      fn(call);
    } catch (e) {
      const s = statusOf(e);
      if (s.code === status.INTERNAL) log(`grpc ${name}: ${(e as Error).stack ?? String(e)}`);
      call.emit('error', s);
    }
  };
}
