import { serializeUiTree } from '../a11y/ui-tree.js';
import { isPixelCapable, type Device } from '../device/device.js';
import type { Observation } from '../device/observation.js';
import { pngSize } from '../policy/vlm/geometry.js';
import { ObservationSpecError, type ObservationSpec } from './protocol.js';
import { awUiElements } from '../a11y/androidworld-elements.js';

/**
 * An observation as the client asked for it (docs/env-protocol.md, "The observation"): the goal, the app in front,
 * the screen's size, and as its spec says a screenshot (PNG bytes, or raw RGBA), the uiautomator XML and AndroidWorld's
 * UI elements. Bytes go out as attachments of the frame: `data` is `{"$bin": i}`, i its index in `blobs`.
 */
export interface ObservationMeta {
  goal: string;
  step: number;
}

/** A PNG at the spec's scale: the one the runner observed when it matches, else the device's (cached per state on SimDroid). */
async function pngAt(device: Device, obs: Observation, scale: 1 | 0.5): Promise<Buffer> {
  const want = Math.round(obs.screen.width * scale);
  if (obs.screenshot && pngSize(obs.screenshot)?.width === want) return obs.screenshot;
  return device.screenshot({ scale });
}

export async function encodeObservation(
  device: Device, obs: Observation, spec: ObservationSpec, meta: ObservationMeta, blobs: Uint8Array[],
): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {
    goal: meta.goal, step: meta.step, foreground: obs.foreground,
    screen: { width: obs.screen.width, height: obs.screen.height, density: obs.screen.density },
  };
  const attach = (bytes: Uint8Array) => ({ $bin: blobs.push(bytes) - 1 });
  switch (spec.screenshot) {
    case 'none':
      break;
    case 'png': {
      const png = await pngAt(device, obs, spec.scale);
      const size = pngSize(png)!;
      out.screenshot = { format: 'png', width: size.width, height: size.height, data: attach(png) };
      break;
    }
    case 'raw': {
      if (!isPixelCapable(device)) throw new ObservationSpecError(`${device.serial} cannot give raw pixels: ask for "png" screenshots`);
      // The device's RGBA as it is, as the emulator's gRPC API sends it: dropping the alpha here cost 29 ms a full frame
      // in a JavaScript loop, a client's array view (numpy's [..., :3]) costs nothing.
      const p = await device.screenPixels(spec.scale);
      out.screenshot = { format: 'rgba', width: p.width, height: p.height, data: attach(p.rgba) };
      break;
    }
  }
  if (spec.tree === 'xml' || spec.tree === 'both') out.tree = serializeUiTree(obs.tree);
  if (spec.tree === 'elements' || spec.tree === 'both') out.ui_elements = awUiElements(obs.elements);
  return out;
}
