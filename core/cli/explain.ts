import { z } from 'zod';
import { compareRuns, explainEpisode, runFailures, type EpisodeExplanation, type RewardsBeside, type Flip, type RunFailures, type TreeDiff } from '../analysis/index.js';
import type { EpisodeId, RunId } from '../store/index.js';
import { parseFlags, UsageError } from './args.js';
import { table } from './format.js';
import type { Io } from './main.js';
import { openDb } from './open-db.js';
import { dataDir } from '../util/data-dir.js';

/** `awb episodes explain` and `awb runs failures`: why episodes failed (docs/failure-analysis.md). */

const USAGE_EXPLAIN = 'awb episodes explain EPISODE_ID [--oracle when-needed|always|never] [--db PATH] [--json]';
const USAGE_RUNS = 'awb runs failures RUN_ID [--vs RUN_ID2] [--oracle when-needed|always|never] [--db PATH] [--json]';

const idOf = (what: string, usage: string, raw: string | undefined): number => {
  const n = Number(raw);
  if (!raw || !Number.isInteger(n) || n < 1) throw new UsageError(`Not ${what} id: ${JSON.stringify(raw ?? '')}\n${usage}`);
  return n;
};

const Oracle = z.enum(['when-needed', 'always', 'never'], { error: '--oracle takes when-needed, always or never' });

const stepName = (s: number | null, final: boolean) => (final ? 'the final screen' : `step ${s! + 1}`);

function diffLines(d: TreeDiff): string[] {
  const node = (n: { text: string; path: string }) => (n.text ? JSON.stringify(n.text) : n.path);
  return [
    ...d.removed.map((n) => `  - ${node(n)}`),
    ...d.added.map((n) => `  + ${node(n)}`),
    ...d.changed.map((c) => `  ~ ${node(c.after)}: ${c.fields.map((f) => (f === 'text' ? `text ${JSON.stringify(c.before.text)} → ${JSON.stringify(c.after.text)}` : f)).join(', ')}`),
  ];
}

/** The explanation as text: how it ended, the checker's reasons, the classes, the first divergence. */
export function explanationText(x: EpisodeExplanation): string[] {
  const out = [`Episode ${x.episodeId} — ${x.templateId} seed ${x.seed} (${x.app ?? '?'}, ${x.difficulty ?? '?'}): ${x.status}${x.terminatedBy ? `, ended by ${x.terminatedBy}` : ''} after ${x.steps} steps`, x.instruction];
  if (x.answer !== null) out.push(`answer: ${JSON.stringify(x.answer)}`);
  if (x.verdict) {
    out.push('Checker:');
    for (const c of x.verdict.conditions) out.push(`  ${c.ok ? 'ok  ' : 'FAIL'} ${c.name}${c.expected !== undefined ? `: expected ${c.expected}` : ''}${c.found !== undefined ? `, found ${c.found}` : ''}`);
  }
  if (!x.classification) return out;
  out.push(`Failure class: ${x.classification.primary} — ${x.classification.labels[0]!.why}`);
  for (const l of x.classification.labels.slice(1)) out.push(`  also ${l.class} — ${l.why}`);
  const a = x.alignment!;
  out.push(`Compared with: ${a.references.length ? a.references.map((r) => `${r.label} (${r.steps} steps, ${r.level})`).join(', ') : 'nothing'}`);
  const d = a.divergence;
  if (!d) {
    out.push(a.references.length ? 'It never left the successful paths' + (a.progress ? ` (got to step ${a.progress.position + 1} of ${a.progress.of} of ${a.progress.reference})` : '') : 'No first divergence: no successful path');
  } else if (d.kind === 'start') {
    out.push(`First divergence: its first screen is on no successful path (vs ${d.reference})`);
  } else {
    out.push(`First divergence: ${stepName(d.failedStep, false)} ${d.kind === 'overran' ? `went on after reaching ${d.reference}'s final screen` : 'left every successful path'}`);
    out.push(`  this episode: ${d.failedAction} → ${stepName(d.failedScreen.step, d.failedScreen.final)}`);
    out.push(`  ${d.reference}: ${d.referenceAction ?? '(had ended)'}${d.referenceScreen ? ` → ${stepName(d.referenceScreen.step, d.referenceScreen.final)}` : ''}`);
  }
  if (d?.diff) {
    const lines = diffLines(d.diff);
    if (lines.length) out.push(`Screen diff (${d.reference} → this episode):`, ...lines);
  }
  if (x.rewards) out.push(...rewardsText(x.rewards));
  for (const n of x.notes) out.push(`note: ${n}`);
  return out;
}

const num = (v: number) => v.toFixed(2);

/** The rewards on both paths, side by side: milestones reached or missed, the progress curves, the judge's verdicts. */
export function rewardsText(r: RewardsBeside): string[] {
  const sides = [r.failed, ...(r.reference ? [r.reference] : [])];
  const out = [`Rewards (this episode${r.reference ? ` | ${r.reference.label}` : ''}):`];
  const a = r.failed.admire;
  if (r.missing.admire) out.push(`  ADMIRE: ${r.missing.admire}`);
  else if (a && !a.milestones.length) out.push(`  ADMIRE: ${a.note ?? 'no milestones'}`);
  else if (a) {
    out.push(`  ADMIRE milestones (${r.milestoneSource ?? '?'}; reached at step, or missed):`);
    a.milestones.forEach((m, j) => out.push(`    ${sides.map((s) => { const h = s.admire?.milestones[j]?.hitStep; return h === null || h === undefined ? 'missed ' : `step ${h + 1}`.padEnd(7); }).join(' | ')}  ${m.text}`));
  }
  if (r.missing.progrm) out.push(`  ProgRM: ${r.missing.progrm}`);
  else for (const s of sides) out.push(`  ProgRM progress, ${s === r.failed ? 'this episode' : s.label}: ${s.progrm!.progress.map(num).join(' ')}`);
  if (r.missing.shepherd) out.push(`  Judge: ${r.missing.shepherd}`);
  else {
    const mark = { correct: '✓', incorrect: '✗', unjudged: '?', 'no-action': '·' } as const;
    for (const s of sides) out.push(`  Judge verdicts, ${s === r.failed ? 'this episode' : s.label}: ${s.shepherd!.steps.map((v) => mark[v.verdict]).join('')}`);
  }
  return out;
}

function failuresText(r: RunFailures): string[] {
  const out = [`Run ${r.runId}: ${r.failed} of ${r.episodes} episodes failed`];
  if (!r.failed) return out;
  out.push(table([['CLASS', 'COUNT'], ...Object.entries(r.byClass).filter(([, n]) => n > 0).map(([c, n]) => [c, String(n)])]), '');
  out.push(table([['CLASS', 'APP', 'TEMPLATE', 'DIFFICULTY', 'COUNT', 'EPISODES'], ...r.cells.map((c) => [
    c.class, c.app ?? '?', c.templateId, c.difficulty ?? '?', String(c.count), c.episodeIds.join(','),
  ])]));
  return out;
}

const flipRow = (f: Flip) => [f.templateId, String(f.seed), f.before.outcome, f.before.classes.join(',') || '—', f.after.outcome, f.after.classes.join(',') || '—', `${f.before.episodeIds.join(',')} → ${f.after.episodeIds.join(',')}`];

export async function explainCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseFlags(argv, { db: { type: 'string' }, json: { type: 'boolean' }, oracle: { type: 'string' } },
    z.object({ db: z.string().optional(), json: z.boolean().optional(), oracle: Oracle.optional() }));
  const id = idOf('an episode', USAGE_EXPLAIN, positionals[0]);
  const { db } = openDb(values.db);
  try {
    const x = await explainEpisode(db, id as EpisodeId, { ...(values.oracle ? { oracle: values.oracle } : {}), rewards: { dataDir: dataDir() } });
    if (values.json) io.out(JSON.stringify(x));
    else for (const l of explanationText(x)) io.out(l);
    return 0;
  } finally {
    db.close();
  }
}

/** `awb runs failures RUN [--vs RUN2]`. */
export async function runsCommand(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== 'failures') throw new UsageError(USAGE_RUNS);
  const { values, positionals } = parseFlags(rest, { db: { type: 'string' }, json: { type: 'boolean' }, vs: { type: 'string' }, oracle: { type: 'string' } },
    z.object({ db: z.string().optional(), json: z.boolean().optional(), vs: z.string().optional(), oracle: Oracle.optional() }));
  const run = idOf('a run', USAGE_RUNS, positionals[0]) as RunId;
  const vs = values.vs === undefined ? null : idOf('a run', USAGE_RUNS, values.vs) as RunId;
  const o = values.oracle ? { oracle: values.oracle } : {};
  const { db } = openDb(values.db);
  try {
    if (vs === null) {
      const r = await runFailures(db, run, o);
      if (values.json) io.out(JSON.stringify({ ...r, explanations: undefined }));
      else for (const l of failuresText(r)) io.out(l);
      return 0;
    }
    const c = await compareRuns(db, run, vs, o);
    if (values.json) {
      io.out(JSON.stringify({ ...c, runs: c.runs.map((r) => ({ ...r, explanations: undefined })) }));
      return 0;
    }
    for (const r of c.runs) for (const l of failuresText(r)) io.out(l);
    io.out('');
    io.out(`Run ${run} vs run ${vs}: ${c.shared} shared instances (${c.onlyBefore} only in ${run}, ${c.onlyAfter} only in ${vs}); fixed ${c.fixed.length}, broke ${c.broke.length}, still failing ${c.stillFailing}, still succeeding ${c.stillSucceeding}`);
    const head = ['TEMPLATE', 'SEED', `RUN ${run}`, 'CLASSES', `RUN ${vs}`, 'CLASSES', 'EPISODES'];
    if (c.fixed.length) io.out(`Fixed:\n${table([head, ...c.fixed.map(flipRow)])}`);
    if (c.broke.length) io.out(`Broke:\n${table([head, ...c.broke.map(flipRow)])}`);
    return 0;
  } finally {
    db.close();
  }
}
