/**
 * Recording a clip of the mirrored screen, as scrcpy's --record does, in the browser's own encoder: the frames are
 * drawn on a canvas whose stream MediaRecorder encodes to WebM (VP8/VP9). SimDroid sends a frame only when its screen
 * changes, so the clip has a variable frame rate: a still screen is one long frame, as the device showed it.
 */
export interface ClipRecorder {
  /** Draws a new frame into the clip. */
  frame(png: Uint8Array): void;
  /** Ends the clip: its bytes, WebM. */
  stop(): Promise<Blob>;
  readonly mimeType: string;
}

export class RecordingUnsupportedError extends Error {
  override name = 'RecordingUnsupportedError';
  constructor(readonly why: string) {
    super(`This browser cannot record the screen: ${why}`);
  }
}

const TYPES = ['video/webm;codecs=vp9', 'video/webm;codecs=vp8', 'video/webm'];

export function startClip(width: number, height: number, first: Uint8Array | null): ClipRecorder {
  if (typeof MediaRecorder === 'undefined') throw new RecordingUnsupportedError('no MediaRecorder');
  const mimeType = TYPES.find((t) => MediaRecorder.isTypeSupported(t));
  if (!mimeType) throw new RecordingUnsupportedError('no WebM encoder');
  const canvas = document.createElement('canvas');
  // Even sizes: VP8/VP9 encoders want them.
  canvas.width = Math.max(2, Math.round(width / 2) * 2);
  canvas.height = Math.max(2, Math.round(height / 2) * 2);
  const ctx = canvas.getContext('2d');
  if (!ctx || typeof canvas.captureStream !== 'function') throw new RecordingUnsupportedError('no canvas capture');
  ctx.fillStyle = '#000';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  const stream = canvas.captureStream(30);
  const rec = new MediaRecorder(stream, { mimeType, videoBitsPerSecond: 4_000_000 });
  const chunks: Blob[] = [];
  rec.ondataavailable = (e) => {
    if (e.data.size) chunks.push(e.data);
  };
  // Frames arrive faster than they decode at times: the newest waits, the ones between are dropped.
  let next: Uint8Array | null = null;
  let busy = false;
  const draw = async () => {
    if (busy) return;
    busy = true;
    try {
      while (next) {
        const bytes = next;
        next = null;
        const bitmap = await createImageBitmap(new Blob([bytes as BlobPart], { type: 'image/png' })).catch(() => null);
        if (!bitmap) continue;
        ctx.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
        bitmap.close();
      }
    } finally {
      busy = false;
    }
  };
  const frame = (png: Uint8Array) => {
    next = png;
    void draw();
  };
  rec.start(1000);
  if (first) frame(first);
  return {
    mimeType,
    frame,
    stop: () => new Promise<Blob>((resolve) => {
      rec.onstop = () => {
        stream.getTracks().forEach((t) => t.stop());
        resolve(new Blob(chunks, { type: 'video/webm' }));
      };
      rec.stop();
    }),
  };
}
