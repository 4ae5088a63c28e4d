import { useEffect } from 'react';
import { appStore } from '../../store/index.js';
import { SessionSetup } from './SessionSetup.js';
import { SessionControls } from './SessionControls.js';
import { AgentScreen } from './AgentScreen.js';
import { ProposalPanel } from './ProposalPanel.js';
import { BreakpointsPanel } from './BreakpointsPanel.js';
import { StepLog } from './StepLog.js';
import { OutsideAgents } from './OutsideAgents.js';

/**
 * The step-through view: set up a session (or attach to an outside agent's, listed live), then
 * watch the agent's proposal on the screen it saw, step / run / pause / stop / reset it (F10, F8,
 * Shift+F8, Shift+F5, Ctrl+Shift+F5), override a step by clicking the screen, a candidate or JSON,
 * take over an outside agent's session and hand it back, set breakpoints, and read the running log.
 */
export function AgentView() {
  useEffect(() => {
    void appStore().getState().loadAgent();
  }, []);
  return (
    <div className="agent-view" data-testid="agent-view">
      <SessionSetup />
      <OutsideAgents />
      <SessionControls />
      <div className="agent-body">
        <AgentScreen />
        <div className="agent-middle">
          <ProposalPanel />
          <BreakpointsPanel />
        </div>
        <StepLog />
      </div>
    </div>
  );
}
