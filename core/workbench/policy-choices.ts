import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { POLICY_DESCRIPTIONS, type PolicySpec } from '../policy/registry.js';
import { adapterDir, appSlug, loadBasePolicy } from '../policy/adapter-file.js';
import { isTransformerModelDir } from '../policy/transformer/model.js';
import { WorkbenchError } from '../util/errors.js';
import {
  ADAPTER_SESSION_POLICY, CHECKPOINT_FILE_NAME, CHECKPOINT_SESSION_POLICY, SESSION_POLICIES, VLM_SESSION_POLICY, type PolicyInfo, type SessionPolicy,
} from '../api/types.js';
import { CHECKPOINT_NAME, checkpointsDir, listCheckpoints } from './checkpoints.js';
import { checkpointPath, listCheckpointPolicies } from './policy-files.js';
import { adaptersRoot, listAdapters } from './adaptation/adapters.js';

/**
 * Every policy the workbench can make, by one name each, and the one resolver from a name to the
 * registry's PolicySpec: the Agent view's session policy, Evaluate, GRPO init, the Adaptation base
 * and online GRPO all choose from listPolicyChoices and resolve through resolvePolicyChoice (or
 * trainableCheckpoint, for what training starts from). The names (core/api/types.ts):
 *
 *   oracle | random | manual | vlm-replay      built in
 *   vlm:<profile>                              a VLM endpoint profile
 *   checkpoint:<name>                          <data>/checkpoints/<name>/policy.json (Training's checkpoints), or that
 *                                              folder as a transformer policy's model folder (kind 'transformer')
 *   checkpoint:<file>.json | .onnx             <data>/policies/<file> (registered; .onnx: an ONNX export)
 *   adapter:<checkpoint name>/<app slug>       that checkpoint + the adapter Adaptation made for the app on it
 *
 * An adapter applies to its app: it scores screens of the app's package, and the home screen in a task
 * of that app (home mode 'task-app'); the checkpoint alone scores every other screen.
 */
export class PolicyChoiceError extends WorkbenchError {
  override name = 'PolicyChoiceError';
  constructor(readonly policy: string, reason: string) {
    super(`Policy ${JSON.stringify(policy)}: ${reason}`);
  }
}

export interface PolicyChoiceContext {
  dataDir: string;
  /** The VLM endpoint profiles' names and one-line descriptions. */
  vlmProfiles(): Array<{ name: string; description: string }>;
  /** A profile's policy (its settings and key); throws for an unknown profile. */
  vlmSpec(profile: string): PolicySpec;
}

const choice = (p: Omit<PolicyInfo, 'checkpoint' | 'app'> & Partial<Pick<PolicyInfo, 'checkpoint' | 'app'>>): PolicyInfo =>
  ({ checkpoint: null, app: null, ...p });

/** A checkpoint folder's name is a choice unless it reads as a registered file's (ends in .json / .onnx). */
const isFolderName = (name: string) => CHECKPOINT_NAME.test(name) && !CHECKPOINT_FILE_NAME.test(name);

/** Every choice: built-in, VLM profiles, checkpoint folders (newest first), registered files, adapters. */
export function listPolicyChoices(ctx: PolicyChoiceContext): PolicyInfo[] {
  const builtin = SESSION_POLICIES.map((name) => choice({
    name, description: POLICY_DESCRIPTIONS[name], kind: 'builtin', trainable: false, evaluable: name === 'oracle' || name === 'random',
  }));
  const vlm = ctx.vlmProfiles().map((p) => choice({ name: `vlm:${p.name}`, description: p.description, kind: 'vlm', trainable: false, evaluable: true }));
  // A transformer model folder is not a checkpoint JSON: builtin training cannot start from it (a transformer GRPO run can).
  const checkpoints = listCheckpoints(ctx.dataDir).filter((c) => isFolderName(c.name)).map((c) => choice({
    name: `checkpoint:${c.name}`, kind: c.model === 'transformer' ? 'transformer' : 'checkpoint', trainable: c.model === 'builtin', evaluable: true, checkpoint: c.name,
    description: `${c.trainer ?? c.model} checkpoint ${c.name}${c.iteration !== null ? ` (${c.trainer === 'sft' || c.trainer === 'transformer-sft' ? 'epoch' : 'iteration'} ${c.iteration})` : ''}`
      + `${c.model === 'transformer' ? ': the transformer policy' : ''}, greedy`,
  }));
  const files = listCheckpointPolicies(ctx.dataDir).map((p) => {
    const onnx = p.name.endsWith('.onnx');
    return choice({ ...p, kind: onnx ? 'onnx' : 'policy-file', trainable: !onnx, evaluable: true });
  });
  const adapters = listAdapters(ctx.dataDir).flatMap((a) => (a.problem === null && a.app !== null && a.base.checkpoint !== null && isFolderName(a.base.checkpoint)
    ? [choice({
      name: `adapter:${a.base.checkpoint}/${appSlug(a.app)}`, kind: 'adapter', trainable: false, evaluable: true, checkpoint: a.base.checkpoint, app: a.app,
      description: `Checkpoint ${a.base.checkpoint} with its ${a.kind ?? ''} adapter for ${a.app} (scores ${a.app}'s screens), greedy`,
    })]
    : []));
  return [...builtin, ...vlm, ...checkpoints, ...files, ...adapters];
}

/** <data>/checkpoints/<name>/policy.json, which must exist. */
function folderCheckpoint(dataDir: string, choiceName: string, name: string): string {
  const path = join(checkpointsDir(dataDir), name, 'policy.json');
  if (!existsSync(path)) throw new PolicyChoiceError(choiceName, `no checkpoint ${JSON.stringify(name)} under ${checkpointsDir(dataDir)} (Training lists the checkpoints there)`);
  return path;
}

/** The policy a name stands for; a name that is not a choice (or whose files are gone) throws PolicyChoiceError. */
export function resolvePolicyChoice(ctx: PolicyChoiceContext, name: string): PolicySpec {
  const policy = name as SessionPolicy;
  if ((SESSION_POLICIES as readonly string[]).includes(name)) {
    if (name === 'vlm-replay') throw new PolicyChoiceError(name, 'replays recorded replies: start it in the Agent view with the replies file');
    return { name: name as 'oracle' | 'random' | 'manual' };
  }
  if (name.startsWith('vlm:')) {
    if (!VLM_SESSION_POLICY.test(name)) throw new PolicyChoiceError(name, 'a VLM policy is vlm:<endpoint profile name>');
    try {
      return ctx.vlmSpec(name.slice('vlm:'.length));
    } catch (e) {
      throw new PolicyChoiceError(name, (e as Error).message);
    }
  }
  if (name.startsWith('checkpoint:')) {
    if (!CHECKPOINT_SESSION_POLICY.test(name)) throw new PolicyChoiceError(name, 'expected checkpoint:<checkpoint name> or checkpoint:<file name>.json|.onnx (names, not paths)');
    const rest = name.slice('checkpoint:'.length);
    if (CHECKPOINT_FILE_NAME.test(rest)) {
      let path: string;
      try {
        path = checkpointPath(ctx.dataDir, rest);
      } catch (e) {
        throw new PolicyChoiceError(name, (e as Error).message);
      }
      return rest.endsWith('.onnx') ? { name: 'onnx', model: path, policyName: policy } : { name: 'builtin', checkpoint: path, policyName: policy };
    }
    const folder = join(checkpointsDir(ctx.dataDir), rest);
    if (isTransformerModelDir(folder)) return { name: 'transformer', model: folder, policyName: policy };
    return { name: 'builtin', checkpoint: folderCheckpoint(ctx.dataDir, name, rest), policyName: policy };
  }
  if (name.startsWith('adapter:')) {
    if (!ADAPTER_SESSION_POLICY.test(name)) throw new PolicyChoiceError(name, 'expected adapter:<checkpoint name>/<app slug>');
    const [checkpoint, slug] = name.slice('adapter:'.length).split('/') as [string, string];
    const base = folderCheckpoint(ctx.dataDir, name, checkpoint);
    let sha: string;
    try {
      sha = loadBasePolicy(base).sha256;
    } catch (e) {
      throw new PolicyChoiceError(name, (e as Error).message);
    }
    const adapter = join(adapterDir(adaptersRoot(ctx.dataDir), sha), `${slug}.json`);
    if (!existsSync(adapter)) throw new PolicyChoiceError(name, `no adapter for ${slug} on checkpoint ${checkpoint} (no ${adapter}; make one in Adaptation)`);
    return { name: 'builtin-adapted', checkpoint: base, adapters: [adapter], home: 'task-app', policyName: policy };
  }
  throw new PolicyChoiceError(name, 'not a policy: oracle, random, manual, vlm:<profile>, checkpoint:<name>, checkpoint:<file>.json|.onnx or adapter:<checkpoint>/<app>');
}

/**
 * The checkpoint file training starts from (GRPO init, the Adaptation base, online GRPO): a choice
 * that is a checkpoint JSON (checkpoint:<name> or checkpoint:<file>.json), a bare checkpoint name as
 * Training lists it, or an absolute path to a policy JSON file (as `awb train grpo --init` takes).
 */
export function trainableCheckpoint(dataDir: string, name: string): string {
  if (isAbsolute(name)) {
    if (!existsSync(name)) throw new PolicyChoiceError(name, 'no such checkpoint file');
    return name;
  }
  const id = name.includes(':') ? name : `checkpoint:${name}`;
  if (!id.startsWith('checkpoint:')) {
    throw new PolicyChoiceError(name, 'training starts from a checkpoint (checkpoint:<name> or a registered .json), not from a VLM, an adapter or a built-in policy');
  }
  const onnx = () => new PolicyChoiceError(name, 'an .onnx export cannot be trained (it is scored): start from the checkpoint (.json) it was exported from');
  if (id.endsWith('.onnx')) throw onnx();
  let spec: PolicySpec;
  try {
    // Neither profiles nor adapters are reached from a checkpoint: name.
    spec = resolvePolicyChoice({ dataDir, vlmProfiles: () => [], vlmSpec: () => ({ name: 'oracle' }) }, id);
  } catch (e) {
    // The error names what was given (a bare name stays bare).
    if (e instanceof PolicyChoiceError && id !== name) throw new PolicyChoiceError(name, e.message.slice(`Policy ${JSON.stringify(id)}: `.length));
    throw e;
  }
  switch (spec.name) {
    case 'builtin':
      return spec.checkpoint;
    case 'onnx':
      throw onnx();
    case 'transformer':
      throw new PolicyChoiceError(name, 'a transformer model folder: the builtin trainers and adaptation start from a builtin checkpoint (a transformer GRPO run starts from it)');
    default:
      throw new PolicyChoiceError(name, 'not a checkpoint JSON');
  }
}

/**
 * The transformer model folder a transformer run starts from (init of its SFT or GRPO): a choice
 * (checkpoint:<name>), a bare checkpoint name as Training lists it, or an absolute path to a model folder
 * (as `awb train transformer-grpo` takes).
 */
export function transformerModelFolder(dataDir: string, name: string): string {
  const dir = isAbsolute(name) ? name : join(checkpointsDir(dataDir), name.startsWith('checkpoint:') ? name.slice('checkpoint:'.length) : name);
  if (!isAbsolute(name) && !CHECKPOINT_NAME.test(name.replace(/^checkpoint:/, ''))) throw new PolicyChoiceError(name, 'expected checkpoint:<name>, a checkpoint name or an absolute path to a transformer model folder');
  if (!isTransformerModelDir(dir)) throw new PolicyChoiceError(name, `${dir} is not a transformer model folder (no config.json of format awb-transformer-policy): start from a transformer SFT run's checkpoint`);
  return dir;
}
