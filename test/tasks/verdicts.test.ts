import { afterAll, describe, expect, it } from 'vitest';
import { resetForTask } from '../../core/episode/runner.js';
import { instantiate } from '../../core/tasks/instance.js';
import { getTemplate } from '../../core/tasks/registry.js';
import type { EpisodeOutcome } from '../../core/tasks/task.js';
import { writeNote } from '../../core/tasks/families/markor/markor-files.js';
import { firstFailed, holds, met, verdictOf, type CheckCondition } from '../../core/tasks/verdict.js';
import { device } from '../helpers/simdroid.js';

/**
 * A wrong end state yields the failed condition that says why, one template per family: the
 * device is left as the task set it up (nothing done) or the agent answers wrongly, and the
 * checker must name the condition with what it expected and what it found.
 */
const d = device();
afterAll(() => d.close());

type Expectation = (c: CheckCondition, params: any) => void;
const WRONG = 'definitely not it';
const nothing: EpisodeOutcome = { actions: [], status: 'complete' };
const answered = (text: string): EpisodeOutcome => ({ actions: [], answer: text });

const CASES: Array<{ family: string; template: string; outcome: EpisodeOutcome; failed: Expectation }> = [
  { family: 'contacts', template: 'ContactsAddContact', outcome: nothing, failed: (c, p) => {
    expect(c.name).toBe(`contact ${p.person.name} has number ${p.person.phone}`);
    expect(c).toMatchObject({ expected: p.person.phone, found: `no contact named ${p.person.name}` });
  } },
  { family: 'settings', template: 'SystemWifiTurnOn', outcome: nothing, failed: (c) => expect(c).toMatchObject({ name: 'Wi-Fi on (global/wifi_on = 1)', expected: '1', found: '0' }) },
  { family: 'sms', template: 'SmsSendMessage', outcome: nothing, failed: (c) => expect(c).toMatchObject({ name: 'new messages sent', expected: '1', found: '0' }) },
  { family: 'markor', template: 'MarkorCreateNote', outcome: nothing, failed: (c, p) => {
    expect(c.name).toBe('every expected note and folder exists');
    expect(c.found).toBe(`missing ${JSON.stringify(p.file_name)}`);
  } },
  { family: 'clock', template: 'ClockStopwatchRun', outcome: nothing, failed: (c) => expect(c).toMatchObject({ name: 'stopwatch running', expected: 'running', found: 'paused' }) },
  { family: 'expense', template: 'ExpenseCategoryTotalQuestion', outcome: answered(WRONG), failed: (c) => {
    expect(c.name).toMatch(/^answer equals /);
    expect(c.found).toBe(`answered "${WRONG}"`);
  } },
  { family: 'calendar', template: 'CalendarNextEventQuestion', outcome: answered(WRONG), failed: (c, p) => expect(c).toMatchObject({ expected: p.target.title, found: `answered "${WRONG}"` }) },
  { family: 'tasks', template: 'TasksIncompleteCountQuestion', outcome: { actions: [] }, failed: (c, p) => expect(c).toMatchObject({ name: `answer equals "${p.open}"`, found: 'no answer' }) },
  { family: 'files', template: 'FilesCountQuestion', outcome: answered('999'), failed: (c, p) => expect(c).toMatchObject({ expected: String(p.files.length), found: 'answered "999"' }) },
  { family: 'recorder', template: 'AudioRecorderLongestRecordingQuestion', outcome: answered(WRONG), failed: (c) => expect(c.name).toMatch(/^answer equals /) },
  { family: 'recipes', template: 'RecipeIngredientsQuestion', outcome: answered(WRONG), failed: (c, p) => expect(c).toMatchObject({ expected: p.names.join(', '), found: `answered "${WRONG}"` }) },
  // Checkers that compare stored records: the failed condition names the field that differs.
  { family: 'expense', template: 'ExpenseEditAmount', outcome: nothing, failed: (c, p) => {
    expect(c).toMatchObject({ name: `expense ${JSON.stringify(p.target.name)} amount ${(p.amount / 100).toFixed(2)}`, expected: (p.amount / 100).toFixed(2), found: (p.target.amount / 100).toFixed(2) });
  } },
  { family: 'recipes', template: 'RecipeEditServings', outcome: nothing, failed: (c, p) => {
    expect(c).toMatchObject({ name: `recipe ${JSON.stringify(p.target.title)} servings ${JSON.stringify(p.servings)}`, expected: JSON.stringify(p.servings), found: JSON.stringify(p.target.servings) });
  } },
  { family: 'calendar', template: 'CalendarDeleteEvent', outcome: nothing, failed: (c, p) => expect(c).toMatchObject({ name: 'no other events', expected: 'none', found: JSON.stringify(p.target.title) }) },
  { family: 'clock', template: 'ClockTurnOffAlarm', outcome: nothing, failed: (c, p) => expect(c).toMatchObject({ name: `alarm ${p.time} switched off`, expected: 'off', found: 'on' }) },
  { family: 'tasks', template: 'TasksCompleteTask', outcome: nothing, failed: (c, p) => expect(c).toMatchObject({ name: `task "${p.target}" completed`, expected: 'completed', found: 'open' }) },
  { family: 'files', template: 'FilesDeleteFile', outcome: nothing, failed: (c, p) => expect(c).toMatchObject({ name: `nothing else in ${p.folder}`, expected: 'none', found: JSON.stringify(p.target.name) }) },
  { family: 'recorder', template: 'AudioRecorderBookmarkRecording', outcome: nothing, failed: (c, p) => expect(c).toMatchObject({ name: `recording ${p.target} bookmarked`, expected: 'bookmarked', found: 'not bookmarked' }) },
  { family: 'markor', template: 'MarkorDeleteAllNotes', outcome: nothing, failed: (c, p) => {
    expect(c).toMatchObject({ name: 'notebook empty', expected: 'no notes or folders' });
    for (const n of p.notes) expect(c.found).toContain(JSON.stringify(n.name));
  } },
  { family: 'multi_app', template: 'MultiTextedMeetingToCalendar', outcome: nothing, failed: (c, p) => {
    expect(c).toMatchObject({ name: `event ${JSON.stringify(p.title)} added`, expected: 'added', found: `no event ${JSON.stringify(p.title)}` });
  } },
  { family: 'multi_app', template: 'MultiNoteLinesToTasks', outcome: nothing, failed: (c, p) => {
    expect(c.name).toBe("new tasks are the note's items");
    expect(c).toMatchObject({ expected: p.items.join(', '), found: 'none' });
  } },
];

describe('checker verdicts say why a wrong end state fails', () => {
  it.each(CASES)('$family ($template)', async ({ template, outcome, failed }) => {
    const inst = instantiate(getTemplate(template), 0);
    await resetForTask(d, inst);
    const verdict = await inst.template.check(d, inst.params, outcome);
    expect(verdict.ok).toBe(false);
    expect(verdict.ok).toBe(verdict.conditions.every((c) => c.ok));
    const c = firstFailed(verdict);
    expect(c, JSON.stringify(verdict)).toBeDefined();
    failed(c!, inst.params);
  });
});

describe('reasons that do not contradict themselves', () => {
  it('a file missing from its folder fails its own condition, not "nothing else in" it (found none)', async () => {
    const inst = instantiate(getTemplate('FilesCopyFile'), 0);
    await resetForTask(d, inst);
    const verdict = await inst.template.check(d, inst.params, nothing);
    const p = inst.params as { to: string; target: { name: string } };
    expect(verdict.conditions.find((c) => c.name === `file ${p.target.name} in ${p.to}`)).toMatchObject({ ok: false, found: `not in ${p.to}` });
    expect(verdict.conditions.find((c) => c.name === `nothing else in ${p.to}`)).toMatchObject({ ok: true, found: 'none' });
  });

  it('a note the agent must write shows the text asked for, not an empty placeholder', async () => {
    const inst = instantiate(getTemplate('MultiCalendarAgendaToMarkor'), 0);
    await resetForTask(d, inst);
    const p = inst.params as { file: string; titles: string[] };
    await writeNote(d, p.file, '');
    const verdict = await inst.template.check(d, inst.params, nothing);
    expect(firstFailed(verdict)).toMatchObject({ name: `${p.file} has the text asked for`, expected: JSON.stringify(p.titles.join('\n')), found: '""' });
  });

  it('a note left as it was shows the edited text as expected, not the original it found', async () => {
    const inst = instantiate(getTemplate('MarkorEditNote'), 0);
    await resetForTask(d, inst);
    const p = inst.params as { file_name: string; original: string; new_text: string };
    const c = firstFailed(await inst.template.check(d, inst.params, nothing));
    expect(c).toMatchObject({ name: `${p.file_name} has the text asked for`, found: JSON.stringify(p.original) });
    expect(c!.expected).not.toBe(c!.found);
    expect(c!.expected).toContain(p.new_text.split('\n')[0]);
  });
});

describe('subgoals read a checker through met', () => {
  it('holds exactly when every condition does, for a verdict or a list of conditions', () => {
    const held = holds('a', true);
    const failed = holds('b', false);
    expect([met(verdictOf([held])), met(verdictOf([held, failed])), met([held]), met([failed, held]), met([])]).toEqual([true, false, true, false, true]);
  });
});
