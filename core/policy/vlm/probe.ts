import type { Device } from '../../device/device.js';
import { observe } from '../../device/observation.js';
import { resetForTask } from '../../episode/runner.js';
import type { TaskInstance } from '../../tasks/instance.js';
import { VlmPolicy, type VlmExchange } from './policy.js';
import type { VlmPolicySettings } from './settings.js';

/**
 * One real request to an endpoint, as `awb endpoints test` and the Settings view's Test send it: the
 * first screen of `instance` on `device` (reset for the task), the profile's prompt and format.
 * Resolves with the exchange (latency, completion, parsed action or format error), or with null
 * plus the error when the request itself failed before any answer; the caller closes the device.
 */
export async function probeEndpoint(settings: VlmPolicySettings, device: Device, instance: TaskInstance): Promise<{ exchange: VlmExchange | null; error: unknown }> {
  let exchange: VlmExchange | null = null;
  try {
    await resetForTask(device, instance);
    const obs = await observe(device, { screenshot: settings.screenshot, scale: 0.5 });
    const policy = new VlmPolicy(settings, { onExchange: (x) => (exchange = x) });
    policy.start({ instruction: instance.instruction, instance });
    await policy.act(obs, { instruction: instance.instruction, step: 0, history: [], instance });
    return { exchange, error: null };
  } catch (e) {
    // With an exchange the model answered and the failure is the policy's verdict on it (a format error), reported there.
    return { exchange, error: exchange ? null : e };
  }
}
