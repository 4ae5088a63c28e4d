import { z } from 'zod';
import { instantiate } from '../tasks/instance.js';
import { getTemplate } from '../tasks/registry.js';
import { EndpointProfiles } from '../policy/vlm/profiles.js';
import { probeEndpoint } from '../policy/vlm/probe.js';
import { intArg, parseFlags, UsageError } from './args.js';
import { dataDir } from '../util/data-dir.js';
import { table } from './format.js';
import { embeddedDevice, type Io } from './main.js';
import { loadedTemplate, vlmFlagOptions, VlmFlagValues, vlmSettingsFromFlags, VLM_USAGE } from './policies.js';

const USAGE = [
  'awb endpoints add NAME (--base-url URL --model M | --endpoint EXISTING) [--api-key-env VAR | --api-key-stdin] [--format F] [--coordinates C]',
  '                  [--temperature T] [--max-tokens N] [--timeout-ms MS] [--retries N] [--max-concurrency N] [--history K]',
  '                  [--history-style summary|turns] [--history-images N] [--tree on|off] [--server vllm|transformers|other] [--min-pixels N] [--max-pixels N]',
  '                  [--preset P] [--prompt-template ui-tars:NAME|FILE] [--prompt-language L]',
  'awb endpoints list [--json]',
  'awb endpoints remove NAME',
  'awb endpoints test NAME [--task TEMPLATE] [--seed S] [--json]',
].join('\n');

const AddFlags = z.object({ ...VlmFlagValues, 'api-key-stdin': z.boolean().optional(), json: z.boolean().optional() });
const TestFlags = z.object({ task: z.string().default('ClockStopwatchRun'), seed: intArg('--seed').default(0), json: z.boolean().optional() });

function profilesHere(): EndpointProfiles {
  return EndpointProfiles.inDataDir(dataDir());
}

/**
 * `awb endpoints …`: named VLM endpoint profiles in <data folder>/endpoints.json. A key typed on
 * stdin (--api-key-stdin, never a flag: flags show in `ps` and shell history) goes to the secret
 * store (<data folder>/secrets.json, mode 0600), never into the profiles file.
 */
export async function endpointsCommand(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'add':
      return add(rest, io);
    case 'list':
      return list(rest, io);
    case 'remove': {
      const { positionals } = parseFlags(rest, {}, z.object({}));
      if (positionals.length !== 1) throw new UsageError(USAGE);
      profilesHere().remove(positionals[0]!);
      io.out(`Removed endpoint ${positionals[0]} (and its stored key, if any).`);
      return 0;
    }
    case 'test':
      return test(rest, io);
    case '--help':
    case '-h':
      io.out(`Usage:\n${USAGE}`);
      return 0;
    default:
      throw new UsageError(USAGE);
  }
}

async function add(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseFlags(argv, { ...vlmFlagOptions, 'api-key-stdin': { type: 'boolean' }, json: { type: 'boolean' } }, AddFlags);
  if (positionals.length !== 1) throw new UsageError(`${USAGE}\n  (${VLM_USAGE})`);
  const name = positionals[0]!;
  const profiles = profilesHere();
  const settings = vlmSettingsFromFlags(values, profiles);
  let apiKey: string | undefined;
  if (values['api-key-stdin']) {
    if (values['api-key-env']) throw new UsageError('give --api-key-env or --api-key-stdin, not both');
    if (!io.readLine) throw new UsageError('--api-key-stdin needs standard input');
    io.err('API key (one line on stdin):');
    apiKey = (await io.readLine())?.trim() || undefined;
    if (!apiKey) throw new UsageError('--api-key-stdin read no key');
  }
  const { apiKey: _fromProfile, ...endpoint } = settings.endpoint;
  const saved = profiles.save(name, { ...settings, endpoint: { ...endpoint, ...(apiKey ? { apiKey } : {}) } });
  if (values.json) io.out(JSON.stringify({ name, hasSecret: saved.hasSecret, path: profiles.path }));
  else io.out(`Saved endpoint ${name}: ${saved.settings.endpoint.baseUrl} ${saved.settings.endpoint.model} (${saved.settings.format})${saved.hasSecret ? ', key in the secret store' : saved.settings.endpoint.apiKeyEnv ? `, key from $${saved.settings.endpoint.apiKeyEnv}` : ''}`);
  return 0;
}

function list(argv: string[], io: Io): number {
  const { values } = parseFlags(argv, { json: { type: 'boolean' } }, z.object({ json: z.boolean().optional() }));
  const all = profilesHere().list();
  if (values.json) {
    io.out(JSON.stringify(all.map((p) => ({ name: p.name, hasSecret: p.hasSecret, settings: p.settings }))));
    return 0;
  }
  if (!all.length) {
    io.out('No endpoints yet: awb endpoints add NAME --base-url URL --model M');
    return 0;
  }
  io.out(table([
    ['NAME', 'BASE URL', 'MODEL', 'FORMAT', 'KEY', 'CONCURRENCY'],
    ...all.map((p) => [
      p.name, p.settings.endpoint.baseUrl, p.settings.endpoint.model, p.settings.format,
      p.hasSecret ? 'stored' : p.settings.endpoint.apiKeyEnv ? `$${p.settings.endpoint.apiKeyEnv}` : '-', String(p.settings.endpoint.maxConcurrency),
    ]),
  ]));
  return 0;
}

/**
 * One real request: the first screen of a task on a fresh embedded SimDroid, the profile's prompt
 * and format; prints the latency, the completion and what it parsed to (or the format error).
 */
async function test(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseFlags(argv, { task: { type: 'string' }, seed: { type: 'string' }, json: { type: 'boolean' } }, TestFlags);
  if (positionals.length !== 1) throw new UsageError(USAGE);
  const settings = loadedTemplate(profilesHere().resolve(positionals[0]!));
  const instance = instantiate(getTemplate(values.task), values.seed);
  const device = embeddedDevice();
  let probe: Awaited<ReturnType<typeof probeEndpoint>>;
  try {
    probe = await probeEndpoint(settings, device, instance);
  } finally {
    device.close();
  }
  if (probe.error) throw probe.error;
  const x = probe.exchange;
  if (!x) throw new Error(`endpoint ${positionals[0]}: the policy made no request`);
  const summary = {
    endpoint: positionals[0], latencyMs: Math.round(x.latencyMs), attempts: x.attempts, completion: x.completion,
    ...('action' in x.outcome ? { action: x.outcome.action } : { formatError: x.outcome.error }),
  };
  if (values.json) {
    io.out(JSON.stringify(summary));
    return 0;
  }
  io.out(`${positionals[0]}: answered in ${summary.latencyMs} ms (${x.attempts} attempt${x.attempts === 1 ? '' : 's'}) to "${instance.instruction}"`);
  io.out(x.completion.split('\n').map((l) => `  | ${l}`).join('\n'));
  io.out('action' in x.outcome ? `Parsed: ${JSON.stringify(x.outcome.action)}` : `Not an action in the format: ${x.outcome.error.message}`);
  return 0;
}
