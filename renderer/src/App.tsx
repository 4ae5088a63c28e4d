import { useEffect } from 'react';
import { appStore, useApp } from './store/index.js';
import { VIEWS, type ViewName } from './store/slices/ui.js';
import { ErrorBar } from './components/ErrorBar.js';
import { AgentView } from './views/agent/AgentView.js';
import { installKeys, titleOf } from './commands/index.js';
import { DevicesView } from './views/devices/DevicesView.js';
import { LiveView } from './views/live/LiveView.js';
import { SettingsView } from './views/settings/SettingsView.js';
import { TrajectoriesView } from './views/trajectories/TrajectoriesView.js';
import { TrainingView } from './views/training/TrainingView.js';
import { AdaptationView } from './views/adaptation/AdaptationView.js';
import { JobsView } from './views/jobs/JobsView.js';

const LABELS: Record<ViewName, string> = {
  devices: 'Devices', live: 'Live', agent: 'Agent', trajectories: 'Trajectories', training: 'Training', adaptation: 'Adaptation', jobs: 'Jobs', settings: 'Settings',
};

function CurrentView({ view }: { view: ViewName }) {
  switch (view) {
    case 'devices':
      return <DevicesView />;
    case 'live':
      return <LiveView />;
    case 'agent':
      return <AgentView />;
    case 'trajectories':
      return <TrajectoriesView />;
    case 'training':
      return <TrainingView />;
    case 'adaptation':
      return <AdaptationView />;
    case 'jobs':
      return <JobsView />;
    case 'settings':
      return <SettingsView />;
  }
}

export function App() {
  const view = useApp((s) => s.view);
  const connection = useApp((s) => s.connection);
  const setView = useApp((s) => s.setView);
  useEffect(() => appStore().getState().watchActivities(), []);
  // The one keydown handler: every shortcut is a command's keyTest (renderer/src/commands).
  useEffect(() => installKeys(appStore()), []);
  return (
    <div className="app">
      <nav className="nav" aria-label="Views">
        <div className="brand">awb</div>
        {/* Links: a middle click or Ctrl+click opens the view in a new tab (its URL names it, routes.ts). */}
        {VIEWS.map((v) => (
          <a key={v} href={`#/${v}`} className={v === view ? 'nav-item active' : 'nav-item'} data-view={v} title={titleOf(`go-${v}`)}
            aria-current={v === view ? 'page' : undefined}
            onClick={(e) => {
              if (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
              e.preventDefault();
              setView(v);
            }}>
            {LABELS[v]}
          </a>
        ))}
        <div className={`connection ${connection}`} title={`Connection: ${connection}`}>{connection}</div>
      </nav>
      <main className="main" tabIndex={-1} data-focus-home>
        <ErrorBar />
        <CurrentView view={view} />
      </main>
    </div>
  );
}
