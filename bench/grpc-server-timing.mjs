/**
 * Preloaded (`node --import`) into SimDroid's emulator process by `npm run bench -- grpc`, never by
 * the product: times each getScreenshot inside the gRPC server and appends one JSON line a call to
 * $AWB_BENCH_GRPC_TIMING. Wall-clock milliseconds (Date-based, comparable with the Python client's
 * time.time()), each as an offset from the request's arrival:
 *   arrivedAt  the request's HTTP/2 stream opened (headers in);
 *   handed     the handler's reply handed to grpc-js (its serializeMessage called: render and readback are done);
 *   framed     grpc-js's length-prefixed message built (our parts copied into its buffer);
 *   sent       the stream's last DATA byte taken by the socket (its 'finish': node's write queue is
 *              empty then, so the bytes are in the kernel, see queuedAtSent);
 *   closed     trailers sent, the stream closed;
 *   afterPreviousCall  from the previous other call's end (the touch before it) to this arrival.
 * It patches node:http2's createServer (to see streams) and grpc-js's BaseServerInterceptingCall
 * (to see serialization), both before grpc-js builds its server.
 */
import { appendFileSync } from 'node:fs';
import http2 from 'node:http2';
import { createRequire } from 'node:module';

const out = process.env.AWB_BENCH_GRPC_TIMING;
if (out) {
  const now = () => performance.timeOrigin + performance.now();
  const calls = new WeakMap();
  let lastOtherClosed = 0;
  const createServer = http2.createServer;
  http2.createServer = function (...args) {
    const server = createServer.apply(this, args);
    server.on('stream', (stream, headers) => {
      if (!String(headers[':path']).endsWith('/getScreenshot')) {
        stream.once('close', () => (lastOtherClosed = now()));
        return;
      }
      // How long after the previous call (android_env's touch) ended: the most an eager render could hide.
      const t = { arrivedAt: now(), idleBefore: lastOtherClosed };
      calls.set(stream, t);
      stream.once('finish', () => {
        t.sent = now();
        t.queuedAtSent = stream.session?.socket?._handle?.writeQueueSize ?? null;
      });
      stream.once('close', () => {
        t.closed = now();
        const rel = (k) => (t[k] === undefined ? null : +(t[k] - t.arrivedAt).toFixed(3));
        appendFileSync(out, `${JSON.stringify({ arrivedAt: t.arrivedAt, bytes: t.bytes ?? 0, handed: rel('handed'), framed: rel('framed'), sent: rel('sent'), closed: rel('closed'), queuedAtSent: t.queuedAtSent, afterPreviousCall: +(t.arrivedAt - t.idleBefore).toFixed(3) })}\n`);
      });
    });
    return server;
  };
  const { BaseServerInterceptingCall } = createRequire(import.meta.url)('@grpc/grpc-js/build/src/server-interceptors.js');
  const serializeMessage = BaseServerInterceptingCall.prototype.serializeMessage;
  BaseServerInterceptingCall.prototype.serializeMessage = function (value) {
    const t = calls.get(this.stream);
    if (t) t.handed = now();
    const framed = serializeMessage.call(this, value);
    if (t) {
      t.framed = now();
      t.bytes = framed.length;
    }
    return framed;
  };
}
