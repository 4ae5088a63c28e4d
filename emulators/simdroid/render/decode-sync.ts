import { createRequire } from 'node:module';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';

/**
 * Decodes a picture file (PNG, JPEG, WebP, GIF…) to RGBA synchronously. Skia's decoder in
 * @napi-rs/canvas only decodes asynchronously (an Image is blank until its onload), and a frame is
 * drawn synchronously, so the decoding runs in a worker thread while this thread waits on an Atomics
 * flag, then reads the worker's answer off its port (receiveMessageOnPort). One worker serves all.
 * Pictures larger than MAX_SIDE px on a side are scaled down there (a phone screen shows no more).
 */
export const MAX_SIDE = 1600;
const TIMEOUT_MS = 10_000;

export interface Rgba {
  width: number;
  height: number;
  data: Uint8ClampedArray;
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { Image, createCanvas } = require(workerData.canvas);
parentPort.on('message', ({ bytes, flag, port, maxSide }) => {
  const done = (answer) => { port.postMessage(answer); Atomics.store(flag, 0, 1); Atomics.notify(flag, 0); };
  const img = new Image();
  img.onload = () => {
    try {
      const k = Math.min(1, maxSide / Math.max(img.width, img.height));
      const w = Math.max(1, Math.round(img.width * k)), h = Math.max(1, Math.round(img.height * k));
      const c = createCanvas(w, h);
      const g = c.getContext('2d');
      g.drawImage(img, 0, 0, w, h);
      done({ width: w, height: h, data: g.getImageData(0, 0, w, h).data });
    } catch (e) { done({ error: String(e) }); }
  };
  img.onerror = (e) => done({ error: String(e && e.message || e) });
  img.src = Buffer.from(bytes);
});
`;

let worker: Worker | null = null;

function decoder(): Worker {
  if (!worker) {
    const canvas = createRequire(import.meta.url).resolve('@napi-rs/canvas');
    worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { canvas } });
    // The worker never keeps the process alive; a crashed one is replaced on the next picture.
    worker.unref();
    worker.on('error', () => { worker = null; });
    worker.on('exit', () => { worker = null; });
  }
  return worker;
}

/** The picture's pixels, or null when the bytes are not a picture Skia can decode. */
export function decodeSync(bytes: Uint8Array): Rgba | null {
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  try {
    decoder().postMessage({ bytes, flag, port: port2, maxSide: MAX_SIDE }, [port2 as MessagePort]);
    if (Atomics.wait(flag, 0, 0, TIMEOUT_MS) === 'timed-out') return null;
    const msg = receiveMessageOnPort(port1)?.message as (Rgba & { error?: undefined }) | { error: string } | undefined;
    if (!msg || msg.error !== undefined) return null;
    return msg;
  } finally {
    port1.close();
  }
}
