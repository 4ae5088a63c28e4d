import { z } from 'zod';

/**
 * The workbench's settings: one zod schema with a line per field, the single source for the
 * settings view's labels and what is persisted (settings.json in the data folder).
 */
export const SettingsSchema = z.strictObject({
  dataDir: z.string().min(1).describe('Data folder: the trajectory store, exports and settings live here'),
  defaultDevice: z.string().min(1).nullable().describe('Device a new session uses unless another is chosen (serial); none = the first online'),
  screenshots: z.enum(['none', 'half', 'full']).describe('Screenshots recorded with each step of a session'),
  maxSteps: z.int().min(1).max(500).nullable().describe("Step budget for sessions; none = the task's own (else 20)"),
  mirrorScale: z.union([z.literal(1), z.literal(0.5)]).describe('Mirrored screen resolution: 1 = full, 0.5 = half (faster)'),
  mirrorFps: z.int().min(1).max(60).describe('Highest mirror frame rate (adb devices are polled at this rate)'),
  adbPort: z.int().min(1).max(65535).nullable().describe('adb server port; none = $ANDROID_ADB_SERVER_PORT or 5037'),
});
export type Settings = z.infer<typeof SettingsSchema>;

export const SettingsPatchSchema = SettingsSchema.partial();

export function defaultSettings(dataDir: string): Settings {
  return { dataDir, defaultDevice: null, screenshots: 'half', maxSteps: null, mirrorScale: 0.5, mirrorFps: 30, adbPort: null };
}

/** Field descriptions for a settings form, in schema order. */
export function settingsFields(): Array<{ key: keyof Settings; description: string }> {
  return (Object.keys(SettingsSchema.shape) as Array<keyof Settings>).map((key) => ({ key, description: SettingsSchema.shape[key].description ?? key }));
}
