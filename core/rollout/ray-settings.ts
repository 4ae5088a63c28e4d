import { z } from 'zod';

/**
 * The `ray` section of the GRPO / AdaGRPO and adaptation configs and the `--ray` flags (docs/ray.md): where rollouts
 * run when not on this machine. Checked once where a config or a flag is read; ray.ts starts what it names.
 */
export const RAY_ADDRESS_HELP = "HOST:PORT of the head's GCS, ray://HOST:PORT (Ray Client), or auto";

/** A Ray cluster address as `ray.init(address=…)` takes it. */
export const RayAddress = z.string().regex(/^(auto|(ray:\/\/)?[A-Za-z0-9._-]+:\d{1,5})$/, `must be ${RAY_ADDRESS_HELP}`);

/** SimDroids on the cluster unless told (`--envs`, `ray.envs`). */
export const DEFAULT_RAY_ENVS = 4;

export const RaySettingsSchema = z.strictObject({
  address: RayAddress.nullable().default(null)
    .describe(`Run rollouts on a Ray cluster: ${RAY_ADDRESS_HELP}; none = on this machine (docs/ray.md)`),
  envs: z.int().min(1).max(64).default(DEFAULT_RAY_ENVS).describe('SimDroids on the cluster: one rollout worker and one CPU each (ours)'),
  envsPerActor: z.int().min(1).max(64).default(1)
    .describe('SimDroids per Ray actor, each actor one `awb env serve` on its node (ours: 1 spreads them widest)'),
});
export type RaySettings = z.infer<typeof RaySettingsSchema>;

/** The settings of a run on a cluster, or null for one on this machine. */
export function rayCluster(s: RaySettings): { address: string; envs: number; envsPerActor: number } | null {
  return s.address === null ? null : { address: s.address, envs: s.envs, envsPerActor: s.envsPerActor };
}
