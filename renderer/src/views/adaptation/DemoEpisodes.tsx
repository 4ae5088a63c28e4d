import { appStore, useApp } from '../../store/index.js';

/** Recorded successful episodes of the chosen app (e.g. ones a person recorded on the Agent view), to train SFT on instead of the oracle. */
export function DemoEpisodes() {
  const app = useApp((s) => s.adaptForm.app);
  const episodes = useApp((s) => s.demoEpisodes);
  const chosen = useApp((s) => s.adaptForm.episodes);
  const error = useApp((s) => s.adaptErrors.episodes);
  const st = appStore().getState();
  return (
    <details className="training-group" open={chosen.length > 0} data-testid="adapt-demos">
      <summary>Demonstrations ({chosen.length ? `${chosen.length} recorded` : 'oracle'})</summary>
      <div className="muted adapt-note">
        Chosen episodes replace the oracle's demonstrations of the shots (method sft, or sft+grpo).
      </div>
      {episodes.length === 0 ? (
        <div className="muted adapt-note">No successful recorded episode of {app} yet: record one on the Agent view (policy manual) to use your own.</div>
      ) : (
        <ul className="adapt-episodes">
          {episodes.map((e) => (
            <li key={e.id}>
              <label>
                <input type="checkbox" data-testid={`adapt-episode-${e.id}`} checked={chosen.includes(e.id)} onChange={() => st.toggleDemoEpisode(e.id)} />
                <span className="mono">#{e.id}</span> {e.templateId} seed {e.seed} · {e.policy} · {e.steps} steps
              </label>
            </li>
          ))}
        </ul>
      )}
      {error ? <div className="settings-error">{error}</div> : null}
    </details>
  );
}
