import { z } from 'zod';
import { EMULATOR_MIRRORS } from '../device/frames.js';

/**
 * The workbench's settings: one zod schema with a line per field, the single source for the
 * settings view's labels and what is persisted (settings.json in the data folder).
 */
export const SettingsSchema = z.strictObject({
  dataDir: z.string().min(1).describe('Data folder: the trajectory store (trajectories.db) and exports; changing it opens or creates the store there'),
  defaultDevice: z.string().min(1).nullable().describe('Device a new session uses unless another is chosen (serial); none = the first online'),
  screenshots: z.enum(['none', 'half', 'full']).describe('Screenshots recorded with each step of a session'),
  maxSteps: z.int().min(1).max(500).nullable().describe("Step budget for sessions; none = the task's own (else 20)"),
  mirrorScale: z.union([z.literal(1), z.literal(0.5)]).describe('Mirrored screen resolution: 1 = full, 0.5 = half (faster)'),
  mirrorFps: z.int().min(1).max(60).describe('Highest mirror frame rate (adb devices are polled at this rate)'),
  emulatorMirror: z.enum(EMULATOR_MIRRORS).describe("How an emulator with gRPC is mirrored: its stream as PNG (the emulator encodes), as RGBA (encoded here), or adb screencap polling"),
  adbPort: z.int().min(1).max(65535).nullable().describe('adb server port; none = $ANDROID_ADB_SERVER_PORT or 5037'),
});
export type Settings = z.infer<typeof SettingsSchema>;

export const SettingsPatchSchema = SettingsSchema.partial();

export function defaultSettings(dataDir: string): Settings {
  return { dataDir, defaultDevice: null, screenshots: 'half', maxSteps: null, mirrorScale: 0.5, mirrorFps: 30, emulatorMirror: 'grpc-png', adbPort: null };
}

/** One settings field as a form needs it: the label (the schema's description) and the input it takes. */
export interface SettingField {
  key: keyof Settings;
  description: string;
  /** 'choice': one of `options`; 'integer': a whole number within min..max; 'text': a string. */
  kind: 'text' | 'integer' | 'choice';
  /** null is allowed (shown as "none"). */
  nullable: boolean;
  options?: Array<string | number>;
  min?: number;
  max?: number;
}

type JsonSchema = { type?: string; anyOf?: JsonSchema[]; enum?: unknown[]; const?: unknown; minimum?: number; maximum?: number };

/** Field descriptions for a settings form, in schema order (derived from the schema's JSON Schema, so no field is described twice). */
export function settingsFields(): SettingField[] {
  const props = (z.toJSONSchema(SettingsSchema) as { properties: Record<string, JsonSchema> }).properties;
  return (Object.keys(SettingsSchema.shape) as Array<keyof Settings>).map((key) => {
    const all = props[key]!.anyOf ?? [props[key]!];
    const nullable = all.some((s) => s.type === 'null');
    const alts = all.filter((s) => s.type !== 'null');
    const field: SettingField = { key, description: SettingsSchema.shape[key].description ?? key, kind: 'text', nullable };
    const options = alts.flatMap((s) => (s.enum ?? (s.const !== undefined ? [s.const] : [])) as Array<string | number>);
    if (options.length) Object.assign(field, { kind: 'choice', options });
    else if (alts[0]?.type === 'integer') {
      field.kind = 'integer';
      if (alts[0].minimum !== undefined) field.min = alts[0].minimum;
      if (alts[0].maximum !== undefined) field.max = alts[0].maximum;
    }
    return field;
  });
}
