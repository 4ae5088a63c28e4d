import { describe, expect, it } from 'vitest';
import { formProblem, sessionStartOf, type AgentForm } from '../../renderer/src/views/agent/session-start.js';

const form = (patch: Partial<AgentForm>): AgentForm => ({
  templateId: 'SystemWifiTurnOff', seed: '1', instruction: '', policy: 'random', maxSteps: '', repliesFormat: 'androidworld', repliesText: '', ...patch,
});

describe('the Agent form with a free-form instruction', () => {
  it('starts a free-form session instead of the task when an instruction is typed', () => {
    expect(sessionStartOf(form({ instruction: '  Open the clock ' }), 'simdroid-1', [])).toEqual({ serial: 'simdroid-1', instruction: 'Open the clock', policy: 'random', breakpoints: [] });
    expect(sessionStartOf(form({}), 'simdroid-1', [])).toMatchObject({ templateId: 'SystemWifiTurnOff', seed: 1 });
  });

  it('needs no task or seed for a free-form instruction, but refuses the oracle', () => {
    expect(formProblem(form({ instruction: 'Open the clock', templateId: '', seed: 'x' }))).toBeNull();
    expect(formProblem(form({ instruction: 'Open the clock', policy: 'oracle' }))?.message).toMatch(/no oracle/);
    expect(formProblem(form({ templateId: '' }))?.message).toMatch(/Choose a task/);
  });

  it('resets a free-form session as free-form', () => {
    const info = { templateId: 'FreeForm', instruction: 'Open the clock', seed: 0, policy: 'manual' } as Parameters<typeof sessionStartOf>[3];
    expect(sessionStartOf(null, 'simdroid-1', [], info)).toEqual({ serial: 'simdroid-1', instruction: 'Open the clock', policy: 'manual', breakpoints: [] });
  });
});

describe('the Agent form with recorded VLM replies (vlm-replay)', () => {
  it('asks for the replies, and sends them with their format in the start input', () => {
    expect(formProblem(form({ policy: 'vlm-replay' }))?.message).toMatch(/Load the recorded replies/);
    const replay = form({ policy: 'vlm-replay', repliesFormat: 'ui-tars', repliesText: 'wait()\n' });
    expect(formProblem(replay)).toBeNull();
    expect(sessionStartOf(replay, 'simdroid-1', [])).toMatchObject({ policy: 'vlm-replay', replies: { format: 'ui-tars', text: 'wait()\n' } });
    expect(sessionStartOf(form({ repliesText: 'wait()' }), 'simdroid-1', [])).not.toHaveProperty('replies');
  });
});
