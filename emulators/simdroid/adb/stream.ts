import { A_CLSE, A_WRTE } from './message.js';
import type { Service, ServiceStream } from './service.js';

/** What a stream needs from its connection. */
export interface StreamLink {
  send(command: number, arg0: number, arg1: number, data?: Buffer): void;
  /** The negotiated maximum payload of one message. */
  maxPayload(): number;
  /** The stream is finished on our side: forget its id. */
  release(localId: number): void;
  log(message: string): void;
}

/**
 * One multiplexed stream (protocol.txt "OPEN/READY/WRITE/CLOSE"). Outgoing bytes are queued and
 * sent as WRTE messages no larger than the negotiated maxdata, each only after the host's OKAY for
 * the previous one; end() sends CLSE once the last WRTE has been acknowledged, as adbd does.
 */
export class AdbStream implements ServiceStream {
  private queue: Buffer[] = [];
  private queued = 0;
  /** An OPEN implies READY, so the first WRTE may go out at once. */
  private awaitingOkay = false;
  private ending = false;
  private done = false;
  private service: Service | null = null;

  constructor(readonly localId: number, readonly hostId: number, private readonly link: StreamLink) {}

  get writable(): boolean {
    return !this.done && !this.ending;
  }

  attach(service: Service): void {
    this.service = service;
  }

  write(data: Buffer): void {
    if (!this.writable || data.length === 0) return;
    this.queue.push(data);
    this.queued += data.length;
    this.pump();
  }

  end(): void {
    if (!this.writable) return;
    this.ending = true;
    this.pump();
  }

  /** The host's OKAY: it consumed our last WRTE. */
  onReady(): void {
    if (this.done) return;
    this.awaitingOkay = false;
    this.pump();
  }

  /** The host's WRTE payload (already acknowledged by the connection). */
  onData(data: Buffer): void {
    if (this.done || !this.service) return;
    this.guard('onData', () => this.service!.onData(data));
  }

  /** The host closed the stream, or the connection is gone: no CLSE goes back (protocol.txt). */
  onRemoteClose(): void {
    if (this.done) return;
    this.done = true;
    this.queue = [];
    this.queued = 0;
    if (this.service) this.guard('onClose', () => this.service!.onClose());
  }

  private pump(): void {
    if (this.done || this.awaitingOkay) return;
    if (this.queued > 0) {
      const chunk = this.takeChunk(this.link.maxPayload());
      this.awaitingOkay = true;
      this.link.send(A_WRTE, this.localId, this.hostId, chunk);
      return;
    }
    if (this.ending) {
      this.done = true;
      this.link.send(A_CLSE, this.localId, this.hostId);
      this.link.release(this.localId);
    }
  }

  /** Up to `max` queued bytes, coalescing small writes into one message. */
  private takeChunk(max: number): Buffer {
    const parts: Buffer[] = [];
    let size = 0;
    while (this.queue.length && size < max) {
      const head = this.queue[0]!;
      const room = max - size;
      if (head.length <= room) {
        parts.push(head);
        size += head.length;
        this.queue.shift();
      } else {
        parts.push(head.subarray(0, room));
        this.queue[0] = head.subarray(room);
        size += room;
      }
    }
    this.queued -= size;
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts, size);
  }

  /** A service bug ends its stream, never the connection or the process. */
  private guard(what: string, fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.link.log(`stream ${this.localId}: service ${what} threw: ${(e as Error).stack ?? String(e)}`);
      this.end();
    }
  }
}
