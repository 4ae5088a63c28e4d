import type { Observation } from '../device/observation.js';
import type { Policy, PolicyContext, PolicyDecision } from '../episode/policy.js';
import { FREE_FORM_ID } from '../tasks/free-form.js';
import { assertNever } from '../util/errors.js';
import type { AppAdapter } from './adapter-file.js';
import { BuiltinPolicy, type PolicyModel, type PolicyStepRecord, type Selection } from './builtin.js';
import type { CandidateOptions } from './candidates.js';

/** A decision's training record, with the adapter that scored it (null: the base did). */
export interface AdaptedStepRecord extends PolicyStepRecord {
  /** Package of the adapter used, or null when no adapter matched the foreground app. */
  adapter: string | null;
}

/** What selects an adapter: the app it names and the package whose screens it scores. */
export type AdapterChoice = Pick<AppAdapter, 'app' | 'package' | 'adapter'>;

/**
 * What scores the home screen, where no app is in the foreground: the base ('base', selection by
 * the foreground package alone), or the adapter of the task's app when the episode's task names
 * its apps ('task-app': as AW-Gen's per-app evaluation uses the app's own model for the app's
 * tasks). An adapter cannot teach the base to open its app in 'base' mode.
 */
export const HOME_MODES = ['base', 'task-app'] as const;
export type HomeMode = (typeof HOME_MODES)[number];

/** Packages of the home screen (SimDroid's launcher, as on AndroidWorld's emulator). */
export const HOME_PACKAGES: ReadonlySet<string> = new Set(['com.google.android.apps.nexuslauncher']);

/**
 * The package of the adapter that scores a screen, or null for the base: the foreground package's
 * adapter; on the home screen in 'task-app' mode, the adapter of the first of the task's apps that
 * has one.
 */
export function selectAdapter(pkg: string, taskApps: readonly string[] | undefined, adapters: readonly AdapterChoice[], home: HomeMode): string | null {
  if (adapters.some((a) => a.package === pkg)) return pkg;
  switch (home) {
    case 'base':
      return null;
    case 'task-app': {
      if (!HOME_PACKAGES.has(pkg) || !taskApps) return null;
      for (const app of taskApps) {
        const hit = adapters.find((a) => a.app === app);
        if (hit) return hit.package;
      }
      return null;
    }
    default:
      return assertNever(home, 'home mode');
  }
}

export interface AdaptedPolicyOptions {
  /** What scores the home screen (default 'task-app'). */
  home?: HomeMode;
  /** Keep every decision's features, choice and log π for a trainer (takeRecords()). */
  record?: boolean;
  name?: string;
  candidates?: CandidateOptions;
}

/**
 * The builtin policy with per-app adapters: each step is scored by base + the adapter whose
 * package is in the foreground (obs.foreground.package), or by the base alone on any other screen
 * (an app without an adapter; the home screen unless `home` is 'task-app', see selectAdapter).
 * The decision's thought names which one scored it.
 * Merged weights are built once, here: the adapters are not expected to change during an episode.
 */
export class AdaptedPolicy implements Policy {
  readonly name: string;
  private readonly base: BuiltinPolicy;
  private readonly byPackage = new Map<string, { app: string; policy: BuiltinPolicy }>();
  private readonly choices: AdapterChoice[];
  private readonly home: HomeMode;
  private records: AdaptedStepRecord[] = [];

  constructor(model: PolicyModel, adapters: Iterable<AdapterChoice>, selection: Selection = { mode: 'greedy' }, readonly opts: AdaptedPolicyOptions = {}) {
    this.name = opts.name ?? 'builtin-adapted';
    const inner = { record: opts.record ?? false, name: this.name, ...(opts.candidates ? { candidates: opts.candidates } : {}) };
    this.base = new BuiltinPolicy(model, selection, inner);
    this.home = opts.home ?? 'task-app';
    this.choices = [...adapters];
    for (const a of this.choices) {
      this.byPackage.set(a.package, { app: a.app, policy: new BuiltinPolicy(a.adapter.mergeModel(model), selection, inner) });
    }
  }

  /** The app whose adapter scores a screen of this package (in a task of these apps), or null for the base. */
  adapterFor(pkg: string, taskApps?: readonly string[]): string | null {
    const chosen = selectAdapter(pkg, taskApps, this.choices, this.home);
    return chosen === null ? null : this.byPackage.get(chosen)!.app;
  }

  act(obs: Observation, ctx: PolicyContext): PolicyDecision {
    // A free-form instruction's template lists a placeholder app, not the app the person means.
    const taskApps = ctx.instance && ctx.instance.template.id !== FREE_FORM_ID ? ctx.instance.template.apps : undefined;
    const chosen = selectAdapter(obs.foreground.package, taskApps, this.choices, this.home);
    const hit = chosen === null ? undefined : this.byPackage.get(chosen);
    const policy = hit?.policy ?? this.base;
    const decision = policy.act(obs, ctx);
    if (this.opts.record) for (const r of policy.takeRecords()) this.records.push({ ...r, adapter: chosen });
    return { ...decision, thought: `[${hit ? `adapter ${hit.app}` : 'base'}] ${decision.thought ?? ''}` };
  }

  /** The recorded decisions since the last call, oldest first; clears them. */
  takeRecords(): AdaptedStepRecord[] {
    const out = this.records;
    this.records = [];
    return out;
  }
}
