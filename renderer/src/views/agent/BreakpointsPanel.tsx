import { useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useApp } from '../../store/index.js';
import { sessionLive } from '../../store/slices/session.js';
import { ACTION_TYPE_NAMES, BREAKPOINT_KINDS, describeBreakpoint, specFrom, type BreakpointKind } from './breakpoints.js';

/** Breakpoints of the current session (or of the next Start): add, toggle, remove; the ones hit are highlighted. */
export function BreakpointsPanel() {
  const list = useApp((s) => s.agentBreakpoints);
  const hit = useApp(useShallow((s) => s.session?.hitBreakpoints ?? []));
  // An outside agent's session keeps its breakpoints across its episodes.
  const live = useApp((s) => !!s.session && sessionLive(s.session));
  const act = useApp(useShallow((s) => ({ add: s.addBreakpoint, remove: s.removeBreakpoint, toggle: s.toggleBreakpoint })));
  const [kind, setKind] = useState<BreakpointKind>('action_type');
  const [value, setValue] = useState<string>('input_text');
  const [error, setError] = useState<string | null>(null);
  const param = BREAKPOINT_KINDS.find((k) => k.kind === kind)?.param ?? null;

  const add = () => {
    try {
      void act.add(specFrom(kind, value));
      setError(null);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const chooseKind = (k: BreakpointKind) => {
    setKind(k);
    setError(null);
    setValue(k === 'action_type' ? 'input_text' : k === 'low_confidence' ? '0.5' : '');
  };

  return (
    <section className="panel agent-breakpoints" data-testid="breakpoints" aria-label="Breakpoints">
      <h3>Breakpoints <span className="muted agent-sub">{live ? 'this session' : 'for the next start'}</span></h3>
      {list.length === 0 ? <div className="muted">None: Run goes to the end.</div> : null}
      <ul className="agent-bp-list">
        {list.map((b) => (
          <li key={b.id} data-testid={`breakpoint-${b.id}`} className={hit.includes(b.id) ? 'agent-bp hit' : 'agent-bp'}>
            <label>
              <input type="checkbox" checked={b.enabled} onChange={() => void act.toggle(b.id)} aria-label={`Enable ${describeBreakpoint(b.spec)}`} />
              <span className={b.enabled ? '' : 'muted'}>{describeBreakpoint(b.spec)}</span>
            </label>
            {hit.includes(b.id) ? <span className="agent-badge hit">hit</span> : null}
            <button className="link" onClick={() => void act.remove(b.id)} aria-label={`Remove ${describeBreakpoint(b.spec)}`} title="Remove">×</button>
          </li>
        ))}
      </ul>
      <div className="agent-bp-add">
        <select aria-label="Breakpoint kind" value={kind} onChange={(e) => chooseKind(e.target.value as BreakpointKind)} data-testid="breakpoint-kind">
          {BREAKPOINT_KINDS.map((k) => <option key={k.kind} value={k.kind}>{k.label}</option>)}
        </select>
        {kind === 'action_type' ? (
          <select aria-label="Action type" value={value} onChange={(e) => setValue(e.target.value)} data-testid="breakpoint-value">
            {ACTION_TYPE_NAMES.map((t) => <option key={t} value={t}>{t}</option>)}
          </select>
        ) : param ? (
          <input aria-label={param} placeholder={param} value={value} onChange={(e) => setValue(e.target.value)} onKeyDown={(e) => e.key === 'Enter' && add()} data-testid="breakpoint-value" className="agent-bp-value" />
        ) : null}
        <button data-testid="breakpoint-add" onClick={add}>Add</button>
      </div>
      {error ? <div className="agent-error" role="alert">{error}</div> : null}
    </section>
  );
}
