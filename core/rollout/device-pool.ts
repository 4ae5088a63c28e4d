import { isReconnectable, type Device } from '../device/device.js';
import type { TaskInstance } from '../tasks/instance.js';
import type { Policy } from '../episode/policy.js';
import type { EpisodeRecorder, EpisodeResult } from '../episode/record.js';
import { runEpisode, type ScreenshotMode } from '../episode/runner.js';
import { scheduleOnDevices } from './in-process.js';

/**
 * Episodes over devices that live outside this process (AVDs, SimDroid over adb), first come
 * first served. Their steps are mostly waiting, so one thread drives them all. After an
 * environment error (the adb server restarted, the device vanished) a device is reconnected before
 * it takes the next job; one that cannot be reconnected stops taking jobs and the others go on.
 */
export interface DevicePoolOptions {
  devices: readonly Device[];
  instances: readonly TaskInstance[];
  policy: (instance: TaskInstance) => Policy;
  recorder?: (instance: TaskInstance) => EpisodeRecorder | undefined;
  screenshots?: ScreenshotMode;
  onEpisode?: (instance: TaskInstance, result: EpisodeResult, device: Device) => void;
  /** A device that could not be reconnected. */
  onDeviceLost?: (device: Device, error: Error) => void;
  reconnectTimeoutMs?: number;
  /**
   * A device whose episodes end in environment errors this many times in a row stops taking
   * episodes, even if it reconnects (a console that refuses its token, a broken app install):
   * otherwise it would drain the queue with errors. Default 3.
   */
  maxConsecutiveErrors?: number;
}

export class DeviceKeepsFailingError extends Error {
  override name = 'DeviceKeepsFailingError';
  constructor(readonly serial: string, readonly count: number, readonly last: string) {
    super(`${serial}: ${count} environment errors in a row (last: ${last})`);
  }
}

export async function runOnDevices(o: DevicePoolOptions): Promise<{ results: Map<TaskInstance, EpisodeResult>; unrun: TaskInstance[] }> {
  const results = new Map<TaskInstance, EpisodeResult>();
  const { unrun } = await scheduleOnDevices(o.devices, o.instances, (device) => {
    let streak = 0;
    return async (instance) => {
      const recorder = o.recorder?.(instance);
      const result = await runEpisode({
        device, instance, policy: o.policy(instance), screenshots: o.screenshots ?? 'none', ...(recorder ? { recorder } : {}),
      });
      results.set(instance, result);
      o.onEpisode?.(instance, result, device);
      if (result.terminatedBy !== 'environment_error') {
        streak = 0;
        return;
      }
      if (++streak >= (o.maxConsecutiveErrors ?? 3)) {
        o.onDeviceLost?.(device, new DeviceKeepsFailingError(device.serial, streak, result.error?.message ?? ''));
        return 'retire';
      }
      if (!isReconnectable(device)) return;
      try {
        await (device as Device & { reconnect(timeoutMs?: number): Promise<void> }).reconnect(o.reconnectTimeoutMs ?? 30_000);
      } catch (e) {
        o.onDeviceLost?.(device, e as Error);
        return 'retire';
      }
    };
  });
  return { results, unrun };
}
