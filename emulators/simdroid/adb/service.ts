import type { SimDroid } from '../simdroid.js';

/** The device end of one ADB stream, as a service sees it. */
export interface ServiceStream {
  /** Queues bytes for the host; they go out in WRTE messages, one at a time, as the host acknowledges them. */
  write(data: Buffer): void;
  /** Closes the stream once everything written has been delivered. */
  end(): void;
  /** False once the stream is closed (by either side) or closing. */
  readonly writable: boolean;
}

/** A running service: gets the host's bytes and learns when the host goes away. */
export interface Service {
  onData(data: Buffer): void;
  /** The host closed the stream, or the connection dropped. Not called after the service's own end(). */
  onClose(): void;
}

export type ServiceFactory = (stream: ServiceStream) => Service;

/** What services may use: the device, and the host-level operations a service can trigger. */
export interface ServiceContext {
  readonly device: SimDroid;
  /** `reboot:` — restart the device's apps (see docs/simdroid-adb.md). */
  reboot(): void;
  /** Reports an unexpected internal error (a bug) without taking the connection down. */
  log(message: string): void;
}

/** A service that writes a fixed text and closes, like adbd's `root:` or `remount:`. */
export function textService(text: string, then?: () => void): ServiceFactory {
  return (stream) => {
    stream.write(Buffer.from(text, 'utf8'));
    stream.end();
    then?.();
    return { onData: () => {}, onClose: () => {} };
  };
}
