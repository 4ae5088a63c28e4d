import { describe, expect, it } from 'vitest';
import { serializeUiTree, type UiNode } from '../../core/a11y/ui-tree.js';
import type { Action } from '../../core/actions/schema.js';
import { align, type Reference } from '../../core/analysis/align.js';
import type { EpisodePath, PathStep } from '../../core/analysis/path.js';
import { BRIEF_VISIT_STEPS, classifyFailure, FAILURE_CLASSES, type FailureClass, type FailureEvidence } from '../../core/analysis/taxonomy.js';

/** Constructed episodes: small screens, steps and how they ended, one per failure class. */
const CONTACTS = 'com.google.android.contacts';
const SETTINGS = 'com.android.settings';

function node(text: string, over: Partial<UiNode> = {}): UiNode {
  return {
    index: 0, text, resourceId: '', className: 'android.widget.TextView', packageName: CONTACTS, contentDesc: '', checkable: false,
    checked: false, clickable: false, enabled: true, focusable: false, focused: false, scrollable: false, longClickable: false, password: false,
    selected: false, bounds: { left: 0, top: 0, right: 100, bottom: 100 }, naf: false, children: [], ...over,
  };
}
/** A screen of one app: a root holding these nodes. */
const screen = (pkg: string, ...children: UiNode[]) =>
  serializeUiTree({ rotation: 0, roots: [node('', { className: 'android.widget.FrameLayout', packageName: pkg, children: children.map((c) => ({ ...c, packageName: pkg })) })] });

const LIST = screen(CONTACTS, node('Contacts'), node('Create contact', { className: 'android.widget.Button', clickable: true }));
const FORM = screen(CONTACTS, node('Create contact'), node('Save', { className: 'android.widget.Button', clickable: true }), node('', { className: 'android.widget.EditText', resourceId: 'x:id/phone' }));
const SAVED = screen(CONTACTS, node('Zoe Ito'), node('771-226-2741'));
const HOME = screen('com.google.android.apps.nexuslauncher', node('Contacts', { clickable: true }));
const SETTINGS_MAIN = screen(SETTINGS, node('Network & internet', { clickable: true }));

const step = (index: number, xml: string, action: Action, extra: Partial<PathStep> = {}): PathStep => ({
  index, foreground: { package: /package="([^"]+)"/.exec(xml)![1]!, activity: 'A' }, xml, action, description: JSON.stringify(action), ...extra,
});
const path = (label: string, steps: PathStep[], finalXml: string | null): EpisodePath => ({ label, episodeId: null, seed: 1, steps: steps.map((s, i) => ({ ...s, index: i })), finalXml });

const tap = (_label: string): Action => ({ action_type: 'click', index: 1 });
const type = (text: string): Action => ({ action_type: 'input_text', text });
const done: Action = { action_type: 'status', goal_status: 'complete' };

/** The oracle's way: open Contacts, create, type the number, Save, done. */
const success = path('oracle', [
  step(0, HOME, { action_type: 'open_app', app_name: 'Contacts' }), step(0, LIST, tap('Create contact'), { targetLabel: 'Create contact' }),
  step(0, FORM, type('771-226-2741')), step(0, FORM, tap('Save'), { targetLabel: 'Save' }), step(0, SAVED, done),
], SAVED);
const refs: Reference[] = [{ path: success, level: 'exact' }];

function evidence(p: EpisodePath, over: Partial<FailureEvidence> = {}): FailureEvidence {
  const references = over.references ?? refs;
  return {
    status: 'failure', terminatedBy: 'status', answer: null, error: null,
    template: { id: 'ContactsAddContact', apps: ['Contacts'], kind: 'completion', difficulty: 'easy' }, instruction: 'Add a contact Zoe Ito, 771-226-2741.',
    params: { name: 'Zoe Ito', number: '771-226-2741' }, path: p, references, alignment: align(p, references), ...over,
  };
}
const primary = (e: FailureEvidence): FailureClass => classifyFailure(e).primary;

describe('the failure taxonomy: one constructed episode per class', () => {
  it('environment_error: the device failed', () => {
    expect(primary(evidence(path('f', [], null), { status: 'error', terminatedBy: 'environment_error', error: { name: 'EnvironmentError', message: 'observe: adb gone' } }))).toBe('environment_error');
  });

  it('policy_error: the policy failed', () => {
    expect(primary(evidence(path('f', [step(0, HOME, done)], HOME), { status: 'error', terminatedBy: 'policy_error', error: { name: 'VlmEndpointError', message: 'timeout' } }))).toBe('policy_error');
  });

  it('invalid_actions: most actions could not be carried out, or one could not be parsed', () => {
    const bad = { error: { name: 'ElementIndexError', message: 'no element 99' } };
    const p = path('f', [step(0, HOME, tap('x'), bad), step(0, HOME, tap('x'), bad), step(0, HOME, { action_type: 'wait' }), step(0, HOME, done)], HOME);
    const c = classifyFailure(evidence(p));
    expect(c.primary).toBe('invalid_actions');
    expect(c.labels[0]!.why).toContain('2 of 4 actions were invalid or impossible (ElementIndexError)');
    expect(primary(evidence(path('f', [step(0, HOME, { action_type: 'wait' })], HOME), { terminatedBy: 'malformed_action' }))).toBe('invalid_actions');
  });

  it('wrong_app: the task\'s app never in front, another one was', () => {
    const p = path('f', [step(0, HOME, { action_type: 'open_app', app_name: 'Settings' }), step(0, SETTINGS_MAIN, done)], SETTINGS_MAIN);
    const c = classifyFailure(evidence(p));
    expect(c.primary).toBe('wrong_app');
    expect(c.labels[0]!.why).toBe('never opened Contacts; worked in Settings instead');
    // Never opening it at all is the same failure.
    expect(classifyFailure(evidence(path('f', [step(0, HOME, { action_type: 'wait' }), step(0, HOME, done)], HOME))).labels[0])
      .toEqual({ class: 'wrong_app', why: 'never opened Contacts' });
  });

  it('wrong_app: found the app, then left for another one and ended working there', () => {
    const p = path('f', [
      step(0, HOME, { action_type: 'open_app', app_name: 'Contacts' }), step(0, LIST, tap('Create contact'), { targetLabel: 'Create contact' }),
      step(0, FORM, { action_type: 'open_app', app_name: 'Settings' }),
      step(0, SETTINGS_MAIN, tap('Network & internet'), { targetLabel: 'Network & internet' }), step(0, SETTINGS_MAIN, done),
    ], SETTINGS_MAIN);
    expect(classifyFailure(evidence(p)).labels[0]).toEqual({ class: 'wrong_app', why: 'left for Settings and ended there after 2 steps' });
    // One step elsewhere at the end, after working in the app, is not enough.
    const brief = path('f', [
      step(0, HOME, { action_type: 'open_app', app_name: 'Contacts' }), step(0, LIST, tap('Create contact'), { targetLabel: 'Create contact' }),
      step(0, FORM, { action_type: 'open_app', app_name: 'Settings' }), step(0, SETTINGS_MAIN, done),
    ], SETTINGS_MAIN);
    expect(classifyFailure(evidence(brief)).labels.map((l) => l.class)).not.toContain('wrong_app');
  });

  it('wrong_target: a record the task does not name was changed or removed (from the checker\'s kept/unchanged conditions)', () => {
    const p = path('f', [step(0, HOME, { action_type: 'open_app', app_name: 'Contacts' }), step(0, LIST, tap('Delete'), { targetLabel: 'Delete' }), step(0, LIST, done)], LIST);
    const instruction = 'Delete the contact Zoe Ito.';
    const verdict = (...conditions: Array<{ name: string; found: string; expected?: string }>) => ({ ok: false, conditions: conditions.map((c) => ({ ok: false, expected: 'kept', ...c })) });
    const c = classifyFailure(evidence(p, { instruction, verdict: verdict({ name: 'the 3 other contacts unchanged', expected: 'all 3', found: 'not "Umar Xu (no contact named Umar Xu)"' }) }));
    expect(c.labels[0]).toEqual({ class: 'wrong_target', why: 'changed "Umar Xu", which the task does not name (the 3 other contacts unchanged)' });
    expect(primary(evidence(p, { instruction: 'Delete the 7:45 AM alarm.', verdict: verdict({ name: 'alarm 7:40 AM unchanged', found: 'no alarm 7:40 AM' }) }))).toBe('wrong_target');
    expect(primary(evidence(p, { instruction: 'Delete all .jpg files in Download.', verdict: verdict({ name: 'file notes.docx in Download', expected: '12 bytes', found: 'not in Download' }) }))).toBe('wrong_target');
    expect(primary(evidence(p, { instruction: 'Edit packing_list.md in Markor.', verdict: verdict({ name: 'movie_watchlist.txt unchanged', found: '"packing_list.md"' }) }))).toBe('wrong_target');
    // An existing record the checker knows (kept in its folder) listed as extra where the task's one belongs.
    const copied = { ok: false, conditions: [
      { name: 'file summer_hits.mp3 in Music', ok: true, expected: '12 bytes', found: '12 bytes' },
      { name: 'file rainy_day.mp3 in Documents', ok: false, expected: '9 bytes', found: 'not in Documents' },
      { name: 'nothing else in Documents', ok: false, expected: 'none', found: '"summer_hits.mp3"' },
    ] };
    expect(classifyFailure(evidence(p, { instruction: 'Copy rainy_day.mp3 from Music to Documents.', verdict: copied })).labels[0])
      .toEqual({ class: 'wrong_target', why: 'changed "summer_hits.mp3", which the task does not name (nothing else in Documents)' });
    // A new record with a typo is not an existing one.
    const typo = { ok: false, conditions: [{ name: 'no other contacts', ok: false, expected: 'none', found: '"Zoe Itoo"' }] };
    expect(primary(evidence(p, { instruction, verdict: typo }))).toBe('declared_done_early');
    // The task's own target failing its condition is not a wrong target.
    expect(primary(evidence(p, { instruction: 'Move notes.docx to Music.', verdict: verdict({ name: 'file notes.docx in Music', expected: '12 bytes', found: 'not in Music' }) }))).toBe('declared_done_early');
    expect(primary(evidence(p, { instruction, verdict: verdict({ name: 'recipe "Zoe Ito" kept', found: 'no recipe "Zoe Ito"' }) }))).toBe('declared_done_early');
  });

  it('wrong_app: the task\'s app opened for BRIEF_VISIT_STEPS step and left at once (EXPERIMENTS.md §6, episodes 50 and 66)', () => {
    const open: Action = { action_type: 'open_app', app_name: 'Contacts' };
    const back: Action = { action_type: 'navigate_back' };
    const toSettings: Action = { action_type: 'open_app', app_name: 'Settings' };
    // One step in Contacts, then the home screen again and again and Settings: looping before the rule, wrong_app now.
    const p = path('f', [
      step(0, HOME, open), step(0, LIST, back), step(0, HOME, toSettings), step(0, SETTINGS_MAIN, back),
      step(0, HOME, toSettings), step(0, SETTINGS_MAIN, back), step(0, HOME, toSettings),
    ], SETTINGS_MAIN);
    const c = classifyFailure(evidence(p, { terminatedBy: 'max_steps' }));
    expect(c.primary).toBe('wrong_app');
    expect(c.labels[0]!.why).toBe('opened Contacts for 1 step and left at once; worked in Settings instead');
    expect(c.labels.map((l) => l.class)).toContain('looping');
    // Two steps in the app is working in it; ending in it (the final screen) is too, however briefly.
    const twoSteps = path('f', [...p.steps.slice(0, 1), step(0, LIST, tap('Create contact'), { targetLabel: 'Create contact' }), step(0, FORM, back), ...p.steps.slice(2)], SETTINGS_MAIN);
    expect(classifyFailure(evidence(twoSteps, { terminatedBy: 'max_steps' })).labels.map((l) => l.class)).not.toContain('wrong_app');
    const endsThere = path('f', [step(0, HOME, toSettings), step(0, SETTINGS_MAIN, back), step(0, HOME, open), step(0, LIST, done)], LIST);
    expect(classifyFailure(evidence(endsThere)).labels.map((l) => l.class)).not.toContain('wrong_app');
    expect(BRIEF_VISIT_STEPS).toBe(1);
  });

  it('declared_done_early, not wrong_answer: an information task declared complete without answering (EXPERIMENTS.md §6, episode 98)', () => {
    const p = path('f', [step(0, HOME, { action_type: 'open_app', app_name: 'Contacts' }), step(0, LIST, done)], LIST);
    const ir = { template: { id: 'ContactsCount', apps: ['Contacts'], kind: 'information_retrieval' as const, difficulty: 'easy' as const } };
    const verdict = { ok: false, conditions: [{ name: 'answer equals "3"', ok: false, expected: '3', found: 'no answer' }] };
    const c = classifyFailure(evidence(p, { ...ir, references: [], verdict }));
    expect(c.labels).toEqual([{ class: 'declared_done_early', why: 'declared the task complete without answering the question' }]);
    // Out of steps without an answer is out_of_steps; an answer given is still judged as one.
    expect(primary(evidence(p, { ...ir, references: [], verdict, terminatedBy: 'max_steps' }))).toBe('out_of_steps');
    expect(primary(evidence(p, { ...ir, references: [], verdict, answer: '4' }))).toBe('wrong_answer');
  });

  it('wrong_answer: an information task answered wrongly (the checker\'s condition when stored)', () => {
    const p = path('f', [step(0, HOME, { action_type: 'open_app', app_name: 'Contacts' }), step(0, LIST, { action_type: 'answer', text: '4' })], LIST);
    const ir = { template: { id: 'ContactsCount', apps: ['Contacts'], kind: 'information_retrieval' as const, difficulty: 'easy' as const } };
    expect(primary(evidence(p, { ...ir, terminatedBy: 'answer', answer: '4', references: [] }))).toBe('wrong_answer');
    const c = classifyFailure(evidence(p, { ...ir, terminatedBy: 'answer', answer: '4', verdict: { ok: false, conditions: [{ name: 'answer equals 3', ok: false, expected: '3', found: '4' }] } }));
    expect(c.labels[0]).toEqual({ class: 'wrong_answer', why: 'answer equals 3: expected 3, answered 4' });
  });

  it('typed_wrong_text: typed something near what the successful path typed', () => {
    const SAVED_WRONG = screen(CONTACTS, node('Zoe Ito'), node('771-226-2714'));
    const p = path('f', [
      step(0, HOME, { action_type: 'open_app', app_name: 'Contacts' }), step(0, LIST, tap('Create contact'), { targetLabel: 'Create contact' }),
      step(0, FORM, type('771-226-2714')), step(0, FORM, tap('Save'), { targetLabel: 'Save' }), step(0, SAVED_WRONG, done),
    ], SAVED_WRONG);
    const c = classifyFailure(evidence(p));
    expect(c.primary).toBe('typed_wrong_text');
    expect(c.labels[0]!.why).toBe('typed "771-226-2714" where the successful path typed "771-226-2741"');
    // Without a successful path, the instance's parameters say what to type.
    expect(primary(evidence(p, { references: [] }))).toBe('typed_wrong_text');
  });

  it('typed_wrong_text: the checker found exactly what was typed (quoted, as checkers show texts), or what was keyed on a keypad', () => {
    const p = path('f', [step(0, HOME, { action_type: 'open_app', app_name: 'Contacts' }), step(0, FORM, type('Spiralize')), step(0, FORM, done)], FORM);
    const verdict = { ok: false, conditions: [{ name: 'other recipes', ok: false, expected: 'none', found: '"Spiralize", "Pesto"' }, { name: 'recipe ingredients', ok: false, expected: '"3 zucchini"', found: '"Spiralize"' }] };
    expect(classifyFailure(evidence(p, { references: [], verdict })).labels[0]).toEqual({ class: 'typed_wrong_text', why: 'recipe ingredients: typed "\\"Spiralize\\"", expected "\\"3 zucchini\\""' });
    const keys = ['8', '2', '8'].map((k) => step(0, FORM, tap(k), { targetLabel: k }));
    const keyed = path('f', [step(0, HOME, { action_type: 'open_app', app_name: 'Contacts' }), ...keys, step(0, FORM, done)], FORM);
    const timer = { ok: false, conditions: [{ name: 'timer keypad shows 00h 28m 32s', ok: false, expected: '00h 28m 32s', found: '"00h 08m 28s"' }] };
    expect(classifyFailure(evidence(keyed, { references: [], verdict: timer })).labels[0]).toEqual({ class: 'typed_wrong_text', why: 'timer keypad shows 00h 28m 32s: keyed "828", expected "00h 28m 32s"' });
  });

  it('not_committed: reached the screen where the success tapped Save, never tapped it', () => {
    const p = path('f', [
      step(0, HOME, { action_type: 'open_app', app_name: 'Contacts' }), step(0, LIST, tap('Create contact'), { targetLabel: 'Create contact' }),
      step(0, FORM, type('771-226-2741')), step(0, FORM, done),
    ], FORM);
    const c = classifyFailure(evidence(p));
    expect(c.primary).toBe('not_committed');
    expect(c.labels.map((l) => l.class)).toEqual(['not_committed', 'declared_done_early']);
    // Without a successful path: it ended with Save on screen.
    expect(classifyFailure(evidence(p, { references: [] })).labels[0]!.why).toBe('had "Save" on its last screen and never tapped it');
  });

  it('looping: a screen came back to LOOP_VISITS times, more often than on the successful path', () => {
    const p = path('f', [
      step(0, HOME, { action_type: 'open_app', app_name: 'Contacts' }), step(0, LIST, { action_type: 'navigate_back' }),
      step(0, HOME, { action_type: 'open_app', app_name: 'Contacts' }), step(0, LIST, { action_type: 'navigate_back' }),
      step(0, HOME, { action_type: 'open_app', app_name: 'Contacts' }),
    ], LIST);
    const c = classifyFailure(evidence(p, { terminatedBy: 'max_steps' }));
    expect(c.primary).toBe('looping');
    expect(c.labels.map((l) => l.class)).toEqual(['looping', 'out_of_steps']);
    expect(c.labels[0]!.why).toBe('came back to the screen of step 1 3 times');
    // The same no-op on one screen again and again is stuck too.
    const wait: Action = { action_type: 'wait' };
    const stuck = path('f', [step(0, HOME, { action_type: 'open_app', app_name: 'Contacts' }), ...[0, 1, 2, 3].map(() => step(0, LIST, wait))], LIST);
    expect(classifyFailure(evidence(stuck, { terminatedBy: 'max_steps' })).labels[0]).toEqual({ class: 'looping', why: 'stayed on the screen of step 2 for 4 steps without typing' });
  });

  it('declared_done_early: said complete on the way', () => {
    const p = path('f', [step(0, HOME, { action_type: 'open_app', app_name: 'Contacts' }), step(0, LIST, done)], LIST);
    const c = classifyFailure(evidence(p));
    expect(c.primary).toBe('declared_done_early');
    expect(c.labels[0]!.why).toBe('declared the task complete while the checker says it is not');
  });

  it('out_of_steps: the budget ran out on distinct screens', () => {
    const p = path('f', [step(0, HOME, { action_type: 'open_app', app_name: 'Contacts' }), step(0, LIST, tap('Create contact'), { targetLabel: 'Create contact' })], FORM);
    expect(primary(evidence(p, { terminatedBy: 'max_steps' }))).toBe('out_of_steps');
  });

  it('unexplained: nothing matched, and it says how the episode ended', () => {
    const c = classifyFailure(evidence(path('f', [step(0, LIST, { action_type: 'wait' })], LIST), { terminatedBy: 'policy_done' }));
    expect(c).toEqual({ primary: 'unexplained', labels: [{ class: 'unexplained', why: 'no rule matched (failure, ended by policy_done)' }] });
    expect(FAILURE_CLASSES.at(-1)).toBe('unexplained');
  });
});
