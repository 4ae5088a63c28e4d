/**
 * Android's Settings provider: three namespaces of string values, as `settings get/put` sees them.
 * Values are strings on Android too; readers parse them.
 */
export const SETTINGS_NAMESPACES = ['system', 'secure', 'global'] as const;
export type SettingsNamespace = (typeof SETTINGS_NAMESPACES)[number];

export type SettingsData = Record<SettingsNamespace, Record<string, string>>;

/** Defaults of a freshly set-up Pixel-like emulator (API 33), as far as tasks read them. */
export function defaultSettings(): SettingsData {
  return {
    global: {
      airplane_mode_on: '0',
      wifi_on: '1',
      bluetooth_on: '0',
      mobile_data: '1',
      auto_time: '1',
      adb_enabled: '1',
      device_name: 'SimDroid',
      stay_on_while_plugged_in: '0',
    },
    system: {
      screen_brightness: '102',
      screen_brightness_mode: '0',
      screen_off_timeout: '60000',
      font_scale: '1.0',
      time_12_24: '12',
      accelerometer_rotation: '0',
      haptic_feedback_enabled: '1',
      volume_ring: '5',
      volume_music: '7',
      volume_alarm: '6',
    },
    secure: {
      ui_night_mode: '1',
      location_mode: '3',
      android_id: 'a1b2c3d4e5f60718',
      default_input_method: 'com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME',
    },
  };
}

export class SettingsStore {
  constructor(public data: SettingsData = defaultSettings()) {}

  get(ns: SettingsNamespace, key: string): string | null {
    return Object.prototype.hasOwnProperty.call(this.data[ns], key) ? this.data[ns][key]! : null;
  }

  put(ns: SettingsNamespace, key: string, value: string): void {
    this.data[ns][key] = value;
  }

  delete(ns: SettingsNamespace, key: string): boolean {
    if (!Object.prototype.hasOwnProperty.call(this.data[ns], key)) return false;
    delete this.data[ns][key];
    return true;
  }

  list(ns: SettingsNamespace): Array<[string, string]> {
    return Object.entries(this.data[ns]).sort(([a], [b]) => a.localeCompare(b));
  }

  /** Boolean settings are "0"/"1" strings. */
  flag(ns: SettingsNamespace, key: string): boolean {
    return this.get(ns, key) === '1';
  }

  setFlag(ns: SettingsNamespace, key: string, on: boolean): void {
    this.put(ns, key, on ? '1' : '0');
  }

  isDarkTheme(): boolean {
    return this.get('secure', 'ui_night_mode') === '2';
  }
}
