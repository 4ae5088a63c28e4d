import type { AdmireDetail, ProgRmDetail, RewardDetail, ShepherdDetail } from '../../../../core/rewards/details.js';
import { useApp } from '../../store/index.js';
import { curvePoints, pathOf } from './rewards-model.js';

/**
 * Each detailed component's own panel under the Rewards table: ADMIRE's milestone list with the
 * steps that hit them, ProgRM's progress curve and its key-step alignment against the matched
 * recipe, and the judge's verdict per step. A step (or a hit, a key step, a point) jumps the
 * timeline there; the current step is highlighted in each.
 */

const unreachable = (x: never): never => {
  throw new Error(`Unknown reward detail ${JSON.stringify(x)}`);
};

const cos = (x: number | null) => (x === null ? '—' : x.toFixed(2));

function StepButton({ step, testId }: { step: number; testId?: string }) {
  const setStep = useApp((s) => s.setReplayStep);
  return <button className="rewards-step-link" onClick={() => void setStep(step)} data-testid={testId}>step {step + 1}</button>;
}

function AdmirePanel({ d, step }: { d: AdmireDetail; step: number }) {
  const here = d.steps[step];
  return (
    <div className="rewards-detail" data-testid="rewards-detail-admire">
      <h4>ADMIRE milestones{d.version !== null ? ` v${d.version}` : ''}</h4>
      <div className="muted rewards-detail-facts">{d.embedderId} · δ {d.delta} · λ {d.weight.toFixed(3)}</div>
      {d.note ? <div className="muted" data-testid="admire-note">{d.note}</div> : null}
      <ol className="rewards-milestones">
        {d.milestones.map((m, j) => (
          <li key={j} className={`${m.hitStep !== null ? 'hit' : 'miss'}${m.hitSteps.includes(step) ? ' current' : ''}`} data-testid={`admire-milestone-${j}`}>
            <span className="rewards-milestone-text">{m.text}</span>
            {m.hitStep !== null
              ? <span className="rewards-hits">hit at {m.hitSteps.map((h) => <StepButton key={h} step={h} testId={`admire-hit-${j}-${h}`} />)} <span className="mono">cos {cos(m.similarity)}</span></span>
              : <span className="rewards-miss">missed{m.similarity !== null ? <> · best <span className="mono">cos {cos(m.similarity)}</span></> : ' · never compared'}</span>}
          </li>
        ))}
      </ol>
      {here ? (
        <div className="rewards-detail-here" data-testid="admire-here">
          Step {step + 1}: {here.compared === null
            ? 'not compared (no description, or every milestone done)'
            : <>{here.hit ? 'hit' : 'no hit on'} milestone {here.compared + 1} (cos {cos(here.similarity)} {here.hit ? '>' : '≤'} δ)</>}
        </div>
      ) : null}
    </div>
  );
}

const CURVE_W = 260;
const CURVE_H = 90;

function ProgRmPanel({ d, step }: { d: ProgRmDetail; step: number }) {
  const setStep = useApp((s) => s.setReplayStep);
  const points = curvePoints(d.progress, CURVE_W, CURVE_H);
  const keyAfter = new Set(d.alignment.map((a) => a.step + 1));
  const matched = new Map(d.alignment.map((a) => [a.keyStep, a.step]));
  const cur = points[Math.min(step, points.length - 1)];
  return (
    <div className="rewards-detail" data-testid="rewards-detail-progrm">
      <h4>ProgRM progress</h4>
      <div className="muted rewards-detail-facts">
        Prog(s_t) − Prog(s_t−{d.k}); point 0 is the initial screen, point i the screen after step i{cur ? ` · here ${d.progress[cur.position]!.toFixed(2)}` : ''}
      </div>
      <svg className="rewards-curve" width={CURVE_W} height={CURVE_H} viewBox={`0 0 ${CURVE_W} ${CURVE_H}`} role="img"
        aria-label="Progress curve" data-testid="progrm-curve">
        <line x1={4} x2={CURVE_W - 4} y1={4} y2={4} className="rewards-curve-grid" />
        <line x1={4} x2={CURVE_W - 4} y1={CURVE_H - 4} y2={CURVE_H - 4} className="rewards-curve-grid" />
        {cur ? <line x1={cur.x} x2={cur.x} y1={0} y2={CURVE_H} className="rewards-curve-now" /> : null}
        <path d={pathOf(points)} className="rewards-curve-line" />
        {points.map((p) => (
          <circle key={p.position} cx={p.x} cy={p.y} r={keyAfter.has(p.position) ? 4 : 2.5}
            className={keyAfter.has(p.position) ? 'rewards-curve-key' : 'rewards-curve-dot'} onClick={() => void setStep(p.position)}
            data-testid={`progrm-point-${p.position}`}>
            <title>{p.position === 0 ? 'initial' : `after step ${p.position}`}: {d.progress[p.position]!.toFixed(3)}{keyAfter.has(p.position) ? ' (key step)' : ''}</title>
          </circle>
        ))}
      </svg>
      {d.recipe ? (
        <>
          <div className="muted rewards-detail-facts" data-testid="progrm-recipe">
            recipe {d.recipe.index + 1} (from {d.recipe.support} success{d.recipe.support === 1 ? '' : 'es'}) · completion {(d.recipe.completion * 100).toFixed(0)}%
          </div>
          <table className="replay-table rewards-alignment" data-testid="progrm-alignment">
            <thead><tr><th>#</th><th>Recipe key step</th><th>Matched by</th></tr></thead>
            <tbody>
              {d.recipe.keySteps.map((k, pos) => {
                const at = matched.get(pos);
                return (
                  <tr key={pos} className={at === step ? 'current' : at === undefined ? 'rewards-unmatched' : undefined} data-testid={`progrm-key-${pos}`}>
                    <td className="mono">{pos + 1}</td>
                    <td className="mono">{k}</td>
                    <td>{at === undefined ? <span className="muted">not matched</span> : <><StepButton step={at} /> <span className="mono">{d.actions[at]}</span></>}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </>
      ) : <div className="muted">No recipe for this task in the checkpoint's library: the curve only.</div>}
    </div>
  );
}

function ShepherdPanel({ d, step }: { d: ShepherdDetail; step: number }) {
  const setStep = useApp((s) => s.setReplayStep);
  return (
    <div className="rewards-detail" data-testid="rewards-detail-shepherd">
      <h4>GUI-Shepherd verdicts</h4>
      <div className="muted rewards-detail-facts">judge {d.judge} · reward = {d.mapping} of P(correct) · correct at P ≥ 0.5</div>
      <table className="replay-table">
        <thead><tr><th>Step</th><th>P(correct)</th><th>Verdict</th><th>Why</th></tr></thead>
        <tbody>
          {d.steps.map((s) => (
            <tr key={s.step} className={s.step === step ? 'current' : undefined} onClick={() => void setStep(s.step)} data-testid={`shepherd-step-${s.step}`}>
              <td className="mono">{s.step + 1}</td>
              <td className="mono">{s.pCorrect === null ? '—' : s.pCorrect.toFixed(3)}</td>
              <td><span className={`rewards-verdict rewards-verdict-${s.verdict}`}>{s.verdict}</span></td>
              <td>{s.reason}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function DetailPanel({ d, step }: { d: RewardDetail; step: number }) {
  switch (d.kind) {
    case 'admire': return <AdmirePanel d={d} step={step} />;
    case 'progrm': return <ProgRmPanel d={d} step={step} />;
    case 'shepherd': return <ShepherdPanel d={d} step={step} />;
    default: return unreachable(d);
  }
}

export function RewardDetailPanels({ details, step }: { details: readonly RewardDetail[]; step: number }) {
  if (!details.length) return null;
  return <div className="rewards-details">{details.map((d) => <DetailPanel key={d.kind} d={d} step={step} />)}</div>;
}
