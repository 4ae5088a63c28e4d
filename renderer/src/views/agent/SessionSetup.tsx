import { useMemo } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { SessionPolicy, TaskSummary, VlmFormatId } from '../../../../core/api/types.js';
import { FORMAT_LABELS } from '../settings/endpoint-form.js';
import { useApp } from '../../store/index.js';
import type { TaskFilter } from '../../store/slices/session.js';
import { formProblem, groupPolicies, POLICY_GROUP_LABELS } from './session-start.js';

const DIFFICULTIES: ReadonlyArray<TaskFilter['difficulty']> = ['', 'easy', 'medium', 'hard'];

function matches(t: TaskSummary, f: TaskFilter): boolean {
  if (f.app && t.app !== f.app) return false;
  if (f.difficulty && t.difficulty !== f.difficulty) return false;
  const q = f.text.trim().toLowerCase();
  return !q || t.id.toLowerCase().includes(q) || t.template.toLowerCase().includes(q);
}

/** Task (filtered by app, difficulty, text), seed, policy, device, max steps; Start. */
export function SessionSetup() {
  const tasks = useApp((s) => s.agentTasks);
  const policies = useApp((s) => s.agentPolicies);
  const devices = useApp((s) => s.agentDevices);
  const filter = useApp((s) => s.agentFilter);
  const form = useApp((s) => s.agentForm);
  const taskView = useApp((s) => s.agentTaskView);
  const selectedSerial = useApp((s) => s.selectedSerial);
  const busy = useApp((s) => s.sessionBusy);
  // An outside agent's session attached here does not keep the person from starting one of their own.
  const live = useApp((s) => !!s.session && s.session.agent === null && s.session.state !== 'finished');
  const act = useApp(useShallow((s) => ({ setFilter: s.setAgentFilter, setForm: s.setAgentForm, start: s.startAgentSession, selectDevice: s.selectDevice })));

  const apps = useMemo(() => [...new Set(tasks.map((t) => t.app))].sort(), [tasks]);
  const shown = useMemo(() => tasks.filter((t) => matches(t, filter)), [tasks, filter]);
  const problem = formProblem(form);
  const freeForm = form.instruction.trim() !== '';
  const online = devices.filter((d) => d.online);
  const serial = selectedSerial ?? online[0]?.serial ?? '';
  const chosenHidden = form.templateId && !shown.some((t) => t.id === form.templateId);

  return (
    <section className="panel agent-setup" aria-label="Session setup">
      <div className="agent-setup-row">
        <select aria-label="Filter by app" value={filter.app} onChange={(e) => act.setFilter({ app: e.target.value })} data-testid="task-filter-app">
          <option value="">All apps</option>
          {apps.map((a) => <option key={a} value={a}>{a}</option>)}
        </select>
        <select aria-label="Filter by difficulty" value={filter.difficulty} onChange={(e) => act.setFilter({ difficulty: e.target.value as TaskFilter['difficulty'] })} data-testid="task-filter-difficulty">
          {DIFFICULTIES.map((d) => <option key={d} value={d}>{d || 'Any difficulty'}</option>)}
        </select>
        <input aria-label="Filter tasks" placeholder="Filter tasks…" value={filter.text} onChange={(e) => act.setFilter({ text: e.target.value })} data-testid="task-filter-text" />
        <select aria-label="Task" className="agent-task-select" value={form.templateId} onChange={(e) => act.setForm({ templateId: e.target.value })} data-testid="task-select">
          {chosenHidden ? <option value={form.templateId}>{form.templateId} (filtered out)</option> : null}
          {shown.length === 0 && !form.templateId ? <option value="">No task matches</option> : null}
          {shown.map((t) => <option key={t.id} value={t.id}>{t.id} · {t.difficulty}</option>)}
        </select>
        <span className="muted">{shown.length}/{tasks.length}</span>
      </div>
      <div className="agent-setup-row">
        <label>Seed <input className="agent-num" inputMode="numeric" value={form.seed} onChange={(e) => act.setForm({ seed: e.target.value })} data-testid="seed-input" /></label>
        <label>Policy{' '}
          <select value={form.policy} onChange={(e) => act.setForm({ policy: e.target.value as SessionPolicy })} data-testid="policy-select">
            {groupPolicies<{ name: SessionPolicy; description: string }>(policies.length ? policies : [{ name: form.policy, description: '' }]).map((g) => (
              <optgroup key={g.group} label={POLICY_GROUP_LABELS[g.group]}>
                {g.policies.map((p) => <option key={p.name} value={p.name} title={p.description}>{p.name}</option>)}
              </optgroup>
            ))}
          </select>
        </label>
        <label>Device{' '}
          <select value={serial} onChange={(e) => act.selectDevice(e.target.value || null)} data-testid="device-select">
            {online.length === 0 ? <option value="">No online device</option> : null}
            {selectedSerial && !online.some((d) => d.serial === selectedSerial) ? <option value={selectedSerial}>{selectedSerial}</option> : null}
            {online.map((d) => <option key={d.serial} value={d.serial}>{d.serial}{d.sessionId ? ' (in a session)' : ''}</option>)}
          </select>
        </label>
        <label>Max steps <input className="agent-num" placeholder="task's" inputMode="numeric" value={form.maxSteps} onChange={(e) => act.setForm({ maxSteps: e.target.value })} data-testid="max-steps-input" /></label>
        <button
          className="primary"
          data-testid="session-start"
          disabled={busy || !!problem || live}
          title={live ? 'A session is running: Stop or Reset it first' : problem?.message ?? 'Start a session held at the first proposal'}
          onClick={() => void act.start()}
        >
          Start
        </button>
        {problem && (form.templateId || freeForm) ? <span className="agent-form-error" role="alert">{problem.message}</span> : null}
      </div>
      {form.policy === 'vlm-replay' ? <RepliesRow /> : null}
      <div className="agent-setup-row">
        <label className="agent-free-form">…or a free-form instruction{' '}
          <input
            placeholder="e.g. Open the clock and add an alarm at 6:30 (no checker: success is the agent's own 'complete')"
            value={form.instruction}
            onChange={(e) => act.setForm({ instruction: e.target.value })}
            data-testid="free-form-input"
          />
        </label>
      </div>
      <div className="agent-instruction" data-testid="task-instruction">
        {freeForm
          ? <><strong>Free-form:</strong> {form.instruction.trim()} <span className="muted">(the task and seed are not used)</span></>
          : taskView ? <><strong>Instruction:</strong> {taskView.instruction}</> : <span className="muted">Choose a task and a seed to see its instruction.</span>}
      </div>
    </section>
  );
}

/** The vlm-replay policy's replies: their format, and their text from a file (read here, sent through startSession) or pasted. */
function RepliesRow() {
  const form = useApp((s) => s.agentForm);
  const setForm = useApp((s) => s.setAgentForm);
  return (
    <div className="agent-setup-row" data-testid="replies-row">
      <label>Replies format{' '}
        <select value={form.repliesFormat} onChange={(e) => setForm({ repliesFormat: e.target.value as VlmFormatId })} data-testid="replies-format">
          {(Object.keys(FORMAT_LABELS) as VlmFormatId[]).map((f) => <option key={f} value={f}>{FORMAT_LABELS[f]}</option>)}
        </select>
      </label>
      <label>Replies file{' '}
        <input
          type="file"
          accept=".txt,.json,.jsonl,text/plain,application/json"
          data-testid="replies-file"
          onChange={(e) => {
            const file = e.target.files?.[0];
            if (file) void file.text().then((repliesText) => setForm({ repliesText }));
          }}
        />
      </label>
      <label className="agent-free-form">…or paste them (reply k answers step k){' '}
        <textarea
          rows={2}
          placeholder='One reply per line, or a JSON array of strings: ["Thought: …\nAction: click(start_box=…)", …]'
          value={form.repliesText}
          onChange={(e) => setForm({ repliesText: e.target.value })}
          data-testid="replies-text"
        />
      </label>
    </div>
  );
}
