import type { AppDef, IntentFilter, Json } from './app.js';

/** An intent as `am` builds it from its arguments. */
export interface ImplicitIntent {
  action: string | null;
  data: string | null;
  type: string | null;
  categories: string[];
  extras: Record<string, Json>;
}

export interface ResolvedIntent {
  app: AppDef;
  filter: IntentFilter;
  extras: Record<string, Json>;
}

function matches(f: IntentFilter, i: ImplicitIntent): boolean {
  if (i.action !== null && !f.actions.includes(i.action)) return false;
  if (i.data !== null) {
    const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(i.data)?.[1]?.toLowerCase();
    if (!scheme || !f.schemes?.includes(scheme)) return false;
    if (f.dataPrefixes && !f.dataPrefixes.some((p) => i.data!.startsWith(p))) return false;
  } else if (f.schemes) return false;
  if (i.type !== null) return f.mimeTypes?.includes(i.type) ?? false;
  return !f.mimeTypes;
}

/**
 * Resolves an implicit intent to the one activity that answers it, as PackageManager's
 * resolveActivity does when a single app matches (SimDroid has one app per role, so no chooser):
 * action, data scheme (and path prefix) and MIME type must all match a filter.
 */
export function resolveIntent(apps: Iterable<AppDef>, intent: ImplicitIntent): ResolvedIntent | null {
  for (const app of apps) {
    for (const filter of app.intentFilters ?? []) {
      if (!matches(filter, intent)) continue;
      return { app, filter, extras: filter.extras ? filter.extras(intent.data, intent.extras) : intent.extras };
    }
  }
  return null;
}
