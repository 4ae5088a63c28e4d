import type { PathRewards, RewardsBeside } from '../../../../core/api/types.js';
import { useApp } from '../../store/index.js';

/**
 * Rewards on the failed path beside the successful one (docs/failure-analysis.md "Rewards on the
 * failed path"): ADMIRE's milestones reached or missed on each side, both ProgRM progress curves
 * over the steps, and the judge's verdict per step on each side. A section whose model is missing
 * says so in one line; a step (a hit, a verdict of this episode) jumps the timeline there.
 */

const CURVE_W = 320;
const CURVE_H = 90;
const PAD = 4;
const MARK = { correct: '✓', incorrect: '✗', unjudged: '?', 'no-action': '·' } as const;

function Milestones({ r }: { r: RewardsBeside }) {
  const setStep = useApp((s) => s.setReplayStep);
  const mine = r.failed.admire!;
  if (!mine.milestones.length) return <div className="muted" data-testid="explain-rewards-admire">ADMIRE: {mine.note ?? 'no milestones'}</div>;
  const ref = r.reference?.admire ?? null;
  const cell = (h: number | null | undefined, click: boolean) => (h === null || h === undefined ? <span className="miss">missed</span>
    : click ? <button className="link hit" onClick={() => void setStep(h)}>step {h + 1}</button> : <span className="hit">step {h + 1}</span>);
  return (
    <div data-testid="explain-rewards-admire">
      <h4>ADMIRE milestones <span className="muted">({r.milestoneSource})</span></h4>
      <table className="replay-table">
        <thead><tr><th>Milestone</th><th>This episode</th>{ref ? <th>{r.reference!.label}</th> : null}</tr></thead>
        <tbody>
          {mine.milestones.map((m, j) => (
            <tr key={j} data-testid={`explain-milestone-${j}`} data-reached={m.hitStep !== null} data-reference-reached={ref ? ref.milestones[j]?.hitStep != null : undefined}>
              <td>{m.text}</td>
              <td>{cell(m.hitStep, true)}</td>
              {ref ? <td>{cell(ref.milestones[j]?.hitStep, false)}</td> : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Curves({ sides }: { sides: PathRewards[] }) {
  const longest = Math.max(...sides.map((s) => s.progrm!.progress.length));
  const x = (i: number) => PAD + (longest <= 1 ? 0 : (i * (CURVE_W - 2 * PAD)) / (longest - 1));
  const y = (p: number) => PAD + (1 - Math.min(1, Math.max(0, p))) * (CURVE_H - 2 * PAD);
  return (
    <div data-testid="explain-rewards-progrm">
      <h4>ProgRM progress over the steps <span className="muted">(solid: this episode{sides[1] ? `; dashed: ${sides[1].label}` : ''})</span></h4>
      <svg width={CURVE_W} height={CURVE_H} viewBox={`0 0 ${CURVE_W} ${CURVE_H}`} role="img" aria-label="Progress curves of both paths" className="rewards-curve">
        <line x1={PAD} x2={CURVE_W - PAD} y1={PAD} y2={PAD} className="rewards-curve-grid" />
        <line x1={PAD} x2={CURVE_W - PAD} y1={CURVE_H - PAD} y2={CURVE_H - PAD} className="rewards-curve-grid" />
        {sides.map((s, k) => (
          <path key={k} d={s.progrm!.progress.map((p, i) => `${i ? 'L' : 'M'}${x(i).toFixed(1)},${y(p).toFixed(1)}`).join(' ')}
            className={k === 0 ? 'explain-curve-failed' : 'explain-curve-reference'} data-testid={`explain-curve-${k === 0 ? 'failed' : 'reference'}`}>
            <title>{k === 0 ? 'this episode' : s.label}: {s.progrm!.progress.map((p) => p.toFixed(2)).join(' ')}</title>
          </path>
        ))}
      </svg>
    </div>
  );
}

function Verdicts({ sides }: { sides: PathRewards[] }) {
  const setStep = useApp((s) => s.setReplayStep);
  return (
    <div data-testid="explain-rewards-shepherd">
      <h4>The judge's verdicts per step</h4>
      {sides.map((s, k) => (
        <div key={k} className="explain-verdicts" data-testid={`explain-verdicts-${k === 0 ? 'failed' : 'reference'}`}>
          <span className="muted">{k === 0 ? 'This episode' : s.label}:</span>
          {s.shepherd!.steps.map((v) => (
            <button key={v.step} className={`link rewards-verdict rewards-verdict-${v.verdict}`} title={`step ${v.step + 1}: ${v.verdict}${v.pCorrect !== null ? ` (p ${v.pCorrect.toFixed(2)})` : ''} — ${v.reason}`}
              onClick={k === 0 ? () => void setStep(v.step) : undefined} disabled={k !== 0}>
              {MARK[v.verdict]}
            </button>
          ))}
        </div>
      ))}
    </div>
  );
}

export function ExplainRewards({ r }: { r: RewardsBeside }) {
  const sides = [r.failed, ...(r.reference ? [r.reference] : [])];
  const missing = (kind: keyof RewardsBeside['missing'], name: string) => (
    <div className="muted" data-testid={`explain-rewards-${kind}`} data-missing>{name}: {r.missing[kind]}</div>
  );
  return (
    <div className="explain-rewards" data-testid="explain-rewards">
      <h4>Rewards on this path{r.reference ? ` and on ${r.reference.label}'s` : ''}</h4>
      {r.missing.admire ? missing('admire', 'ADMIRE') : <Milestones r={r} />}
      {r.missing.progrm ? missing('progrm', 'ProgRM') : <Curves sides={sides} />}
      {r.missing.shepherd ? missing('shepherd', 'Judge') : <Verdicts sides={sides} />}
    </div>
  );
}
