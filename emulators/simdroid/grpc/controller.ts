import { status, type ServerWritableStream, type UntypedServiceImplementation } from '@grpc/grpc-js';
import type { SimDroid } from '../simdroid.js';
import { GrpcRequestError, serverStream, unary, type Authorize } from './calls.js';
import { encodeScreen, fitImageSize, IMAGE_FORMATS, type ImageFormatName } from './image.js';
import { KEY_CODE_TYPES, KEY_EVENT_TYPES, keyboardInput, type KeyCodeType, type KeyEventType } from './keys.js';
import { FingerTracker } from './touch.js';

/** Messages as @grpc/proto-loader gives them (keepCase, enums as names, longs as numbers, defaults). */
interface ImageFormatMsg {
  format: string;
  width: number;
  height: number;
  display: number;
  transport?: { channel: string } | null;
}
interface TouchMsg {
  x: number;
  y: number;
  identifier: number;
  pressure: number;
  expiration: string;
}
interface KeyboardEventMsg {
  codeType: string;
  eventType: string;
  keyCode: number;
  key: string;
  text: string;
}
interface MouseEventMsg {
  x: number;
  y: number;
  buttons: number;
  display: number;
}

export interface ControllerOptions {
  device: SimDroid;
  auth: Authorize;
  log: (m: string) => void;
  /** When the controller started (performance.now()), for getStatus().uptime. */
  startedAt: number;
  /** setVmState(SHUTDOWN|TERMINATE): stop this emulator, as the console's `kill`. */
  onShutdown: () => void;
  /** Streams still open, so the server can end them when it stops. */
  streams: Set<() => void>;
}

function oneOf<T extends string>(field: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) throw new GrpcRequestError(status.INVALID_ARGUMENT, `${field} must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`);
  return value as T;
}

function checkDisplay(display: number, what: string): void {
  // SimDroid has one display; the emulator cannot send input to displays other than 0 either.
  if (display !== 0) throw new GrpcRequestError(status.INVALID_ARGUMENT, `${what}: display ${display} does not exist (SimDroid has display 0 only)`);
}

/** The hardware entries the emulator reports from its hardware-qemu.ini (screen size and density among them). */
function hardwareConfig(device: SimDroid): Array<{ key: string; value: string }> {
  const entries: Record<string, string> = {
    'avd.name': 'SimDroid',
    'hw.cpu.arch': 'x86_64',
    'hw.cpu.ncore': '1',
    'hw.device.manufacturer': 'SimDroid',
    'hw.device.name': 'simdroid',
    'hw.initialOrientation': 'portrait',
    'hw.keyboard': 'yes',
    'hw.lcd.density': String(device.screen.density),
    'hw.lcd.height': String(device.screen.height),
    'hw.lcd.width': String(device.screen.width),
    'hw.mainKeys': 'no',
    'hw.ramSize': '2048',
    'hw.screen': 'multi-touch',
  };
  return Object.entries(entries).map(([key, value]) => ({ key, value }));
}

export function emulatorController(o: ControllerOptions): UntypedServiceImplementation {
  const { device, auth, log } = o;
  const fingers = new FingerTracker(device);

  const imageRequest = (f: ImageFormatMsg) => {
    const format = oneOf<ImageFormatName>('format', f.format, IMAGE_FORMATS);
    if (f.transport && f.transport.channel !== 'TRANSPORT_CHANNEL_UNSPECIFIED') {
      throw new GrpcRequestError(status.UNIMPLEMENTED, `transport ${f.transport.channel}: SimDroid returns frames in the reply only`);
    }
    return { format, display: f.display, size: fitImageSize(device.screen, f.width, f.height) };
  };

  const image = async (req: ReturnType<typeof imageRequest>, seq: number) => {
    // A display that is not there gives an empty image, as the emulator's for an invisible display.
    const bytes = req.display === 0 ? await encodeScreen(device, req.format, req.size) : Buffer.alloc(0);
    const [w, h] = req.display === 0 ? [req.size.width, req.size.height] : [0, 0];
    return {
      format: { format: req.format, width: w, height: h, display: req.display, rotation: { rotation: 'PORTRAIT' } },
      width: w,
      height: h,
      image: bytes,
      seq,
      timestampUs: Date.now() * 1000,
    };
  };

  const streamScreenshot = (call: ServerWritableStream<ImageFormatMsg, unknown>) => {
    const req = imageRequest(call.request);
    // Frames follow changes: each change bumps `changes`; one render at a time, showing the latest
    // state, so a burst of changes gives one frame and seq shows how many states were skipped.
    let changes = 0;
    let sent = -1;
    let busy = false;
    let closed = false;
    const pump = () => {
      if (busy || closed || sent === changes) return;
      busy = true;
      const seq = changes;
      // After the current input finishes, so the frame shows its result.
      setImmediate(() => {
        image(req, seq).then((img) => {
          if (closed) return;
          sent = seq;
          const more = call.write(img);
          busy = false;
          if (more) pump();
          else call.once('drain', pump);
        }, (e: unknown) => {
          log(`grpc streamScreenshot: ${(e as Error).stack ?? String(e)}`);
          end();
          call.emit('error', { code: status.INTERNAL, details: (e as Error).message });
        });
      });
    };
    const unsubscribe = device.onChanged(() => {
      changes++;
      pump();
    });
    const end = () => {
      if (closed) return;
      closed = true;
      unsubscribe();
      o.streams.delete(stop);
    };
    const stop = () => {
      end();
      call.end();
    };
    o.streams.add(stop);
    // A client that cancels or disconnects ends its stream here; nothing is kept for it.
    call.on('cancelled', end);
    call.on('close', end);
    call.on('error', end);
    pump();
  };

  const sendTouch = (req: { touches: TouchMsg[]; display: number }) => {
    checkDisplay(req.display, 'sendTouch');
    fingers.apply(req.touches.map((t) => ({ x: t.x, y: t.y, identifier: t.identifier, pressure: t.pressure, neverExpire: t.expiration === 'NEVER_EXPIRE' })));
    return {};
  };

  const sendMouse = (req: MouseEventMsg) => {
    checkDisplay(req.display, 'sendMouse');
    if (!Number.isInteger(req.buttons) || req.buttons < 0) throw new GrpcRequestError(status.INVALID_ARGUMENT, `sendMouse: buttons must be a non-negative bit mask, got ${req.buttons}`);
    // The primary button is a finger on the glass; moving with no button pressed is a hover.
    fingers.mouse(req.x, req.y, (req.buttons & 1) === 1);
    return {};
  };

  const sendKey = (req: KeyboardEventMsg) => {
    const events = keyboardInput({
      codeType: oneOf<KeyCodeType>('codeType', req.codeType, KEY_CODE_TYPES),
      eventType: oneOf<KeyEventType>('eventType', req.eventType, KEY_EVENT_TYPES),
      keyCode: req.keyCode,
      key: req.key,
      text: req.text,
    });
    for (const event of events) device.inputSync(event);
    return {};
  };

  return {
    getStatus: unary('getStatus', auth, () => ({
      version: 'SimDroid (Android Emulator gRPC API subset)',
      uptime: Math.round(performance.now() - o.startedAt),
      booted: true,
      vmConfig: { hypervisorType: 'NONE', numberOfCpuCores: 1, ramSizeBytes: 2048 * 1024 * 1024 },
      hardwareConfig: { entry: hardwareConfig(device) },
    }), log),
    getScreenshot: unary('getScreenshot', auth, (req: ImageFormatMsg) => image(imageRequest(req), 0), log),
    streamScreenshot: serverStream('streamScreenshot', auth, streamScreenshot, log),
    sendTouch: unary('sendTouch', auth, sendTouch, log),
    sendMouse: unary('sendMouse', auth, sendMouse, log),
    sendKey: unary('sendKey', auth, sendKey, log),
    getVmState: unary('getVmState', auth, () => ({ state: 'RUNNING' }), log),
    setVmState: unary('setVmState', auth, (req: { state: string }) => {
      switch (req.state) {
        case 'RUNNING':
          return {};
        case 'SHUTDOWN':
        case 'TERMINATE':
          // Answer first, then stop, as the emulator does on a shutdown request.
          setImmediate(o.onShutdown);
          return {};
        default:
          throw new GrpcRequestError(status.UNIMPLEMENTED, `setVmState ${req.state}: SimDroid can only keep running or shut down`);
      }
    }, log),
    getDisplayConfigurations: unary('getDisplayConfigurations', auth, () => ({
      displays: [{ width: device.screen.width, height: device.screen.height, dpi: device.screen.density, flags: 0, display: 0 }],
    }), log),
  };
}
