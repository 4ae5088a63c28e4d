"""How the harness solves each AndroidWorld template on SimDroid, keyed by AndroidWorld's class name.

Each solver gets AndroidWorld's env and task (with its params) and brings the device to the goal the
way a person would leave it, by one of these routes (the table's "Solved by" column):
  ui   — through SimDroid's screens, with AndroidWorld's own actuation helpers (find_and_click_element)
         or android_env's adb input;
  adb  — through the device's data with adb (files with push/rm/mv, databases with sqlite3 or
         AndroidWorld's sqlite_utils, settings with `settings put`);
  none — a *Verify template: initialize_task already leaves the goal state.
None of them reads the task's own checker; they act from the params a person would read in the goal.
"""

import dataclasses
import os
import re
import shlex
import tempfile

from android_world.env import actuation
from android_world.env import adb_utils
from android_world.env import device_constants
from android_world.env import json_action
from android_world.env import tools
from android_world.task_evals.single.calendar import calendar_utils
from android_world.task_evals.utils import sqlite_utils

import answers

MARKOR = device_constants.MARKOR_DATA
EXPENSE_DB = '/data/data/com.arduia.expense/databases/accounting.db'
CLOCK = 'com.google.android.deskclock/com.android.deskclock.DeskClock'


@dataclasses.dataclass(frozen=True)
class Solver:
  kind: str  # 'ui' | 'adb' | 'none'
  solve: object


SOLVERS: dict[str, Solver] = {}


def solver(kind, *names):
  def register(fn):
    for n in names:
      SOLVERS[n] = Solver(kind, fn)
    return fn
  return register


def shell(env, cmd):
  return adb_utils.issue_generic_request(['shell', cmd], env.controller).generic.output.decode()


def sql_text(s):
  return "'" + str(s).replace("'", "''") + "'"


def sqlite(env, db, sql):
  return shell(env, f'sqlite3 {db} {shlex.quote(sql)}')


def push_text(env, remote, text):
  with tempfile.NamedTemporaryFile('w', delete=False, suffix='.txt') as f:
    f.write(text)
  try:
    adb_utils.issue_generic_request(['push', f.name, remote], env.controller)
  finally:
    os.unlink(f.name)


def click(env, text):
  actuation.find_and_click_element(text, env.controller)


# --- Settings ---------------------------------------------------------------------------------

@solver('adb', 'SystemWifiTurnOn')
def _wifi_on(env, task, args):
  shell(env, 'settings put global wifi_on 1')


@solver('adb', 'SystemWifiTurnOff')
def _wifi_off(env, task, args):
  shell(env, 'settings put global wifi_on 0')


@solver('adb', 'SystemBluetoothTurnOn')
def _bt_on(env, task, args):
  shell(env, 'settings put global bluetooth_on 1')


@solver('adb', 'SystemBluetoothTurnOff')
def _bt_off(env, task, args):
  shell(env, 'settings put global bluetooth_on 0')


@solver('adb', 'SystemBrightnessMax')
def _bright_max(env, task, args):
  shell(env, 'settings put system screen_brightness 255')


@solver('adb', 'SystemBrightnessMin')
def _bright_min(env, task, args):
  shell(env, 'settings put system screen_brightness 1')


@solver('none', 'SystemWifiTurnOnVerify', 'SystemWifiTurnOffVerify', 'SystemBluetoothTurnOnVerify',
        'SystemBluetoothTurnOffVerify', 'SystemBrightnessMaxVerify', 'SystemBrightnessMinVerify')
def _verify(env, task, args):
  pass


@solver('adb', 'TurnOffWifiAndTurnOnBluetooth')
def _wifi_off_bt_on(env, task, args):
  shell(env, 'settings put global wifi_on 0')
  shell(env, 'settings put global bluetooth_on 1')


@solver('adb', 'TurnOnWifiAndOpenApp')
def _wifi_on_open(env, task, args):
  shell(env, 'settings put global wifi_on 1')
  adb_utils.launch_app(task.params['app_name'], env.controller)


# --- Clock (AndroidWorld checks the screen) ---------------------------------------------------

@solver('ui', 'ClockStopWatchRunning')
def _stopwatch_run(env, task, args):
  shell(env, f'am start -n {CLOCK}')
  click(env, 'Stopwatch')
  click(env, 'Start')


@solver('ui', 'ClockStopWatchPausedVerify')
def _stopwatch_paused(env, task, args):
  shell(env, f'am start -n {CLOCK}')
  click(env, 'Stopwatch')


@solver('ui', 'ClockTimerEntry')
def _timer(env, task, args):
  p = task.params
  shell(env, f'am start -n {CLOCK}')
  click(env, 'Timer')
  digits = f"{p['hours']:02d}{p['minutes']:02d}{p['seconds']:02d}".lstrip('0')
  for d in digits:
    click(env, d)


# --- Contacts and SMS -------------------------------------------------------------------------

@solver('ui', 'ContactsAddContact')
def _add_contact(env, task, args):
  from android_world.utils import contacts_utils  # pylint: disable=g-import-not-at-top
  contacts_utils.add_contact(task.params['name'], task.params['number'], env.controller)


def send_sms(env, number, message):
  tools.AndroidToolController(env.controller).send_sms(number, message)


@solver('ui', 'SimpleSmsSend', 'SimpleSmsReply')
def _sms_send(env, task, args):
  send_sms(env, task.params['number'], task.params['message'])


@solver('ui', 'SimpleSmsReplyMostRecent')
def _sms_reply_recent(env, task, args):
  out = shell(env, 'content query --uri content://sms/inbox --projection address:body')
  recent = re.search(r'address=([^,]*),', out).group(1)  # row 0: the newest text
  send_sms(env, recent, task.params['message'])


@solver('ui', 'SimpleSmsResend')
def _sms_resend(env, task, args):
  send_sms(env, task.params['number'], task.params['message'])


def contact_number(env, name):
  """The number as the contact holds it (contacts_utils.list_contacts strips the leading +)."""
  out = shell(env, 'content query --uri content://contacts/phones/ --projection display_name:number')
  return next(m.group(2).strip() for m in re.finditer(r'display_name=(.*), number=(.*)', out) if m.group(1) == name)


@solver('ui', 'SimpleSmsSendReceivedAddress')
def _sms_forward_address(env, task, args):
  # The address is the text name2 just sent; it goes to name1, both found as a person would: by contact name.
  sender = re.sub(r'[^+\d]', '', contact_number(env, task.params['name2']))
  inbox = shell(env, 'content query --uri content://sms/inbox --projection address:body')
  address = next(m.group(2) for m in re.finditer(r'address=([^,]*), body=(.*)', inbox) if m.group(1) == sender)
  send_sms(env, contact_number(env, task.params['name1']), address)


# --- Markor and Files -------------------------------------------------------------------------

def markor(*parts):
  return '/'.join([MARKOR, *parts])


@solver('adb', 'MarkorCreateNote')
def _markor_create(env, task, args):
  push_text(env, markor(task.params['file_name']), task.params['text'])


@solver('ui', 'MarkorCreateNoteAndSms')
def _markor_create_sms(env, task, args):
  push_text(env, markor(task.params['file_name']), task.params['text'])
  send_sms(env, task.params['number'], task.params['text'])


@solver('adb', 'MarkorCreateFolder')
def _markor_folder(env, task, args):
  shell(env, f"mkdir -p {shlex.quote(markor(task.params['folder_name']))}")


@solver('adb', 'MarkorDeleteNote')
def _markor_delete(env, task, args):
  name = task.params['file_name']
  shell(env, f'rm -f {shlex.quote(markor(name))} {shlex.quote(markor(name))}.md {shlex.quote(markor(name))}.txt')


@solver('adb', 'MarkorDeleteAllNotes')
def _markor_delete_all(env, task, args):
  shell(env, f'rm -rf {MARKOR}/*')


@solver('adb', 'MarkorDeleteNewestNote')
def _markor_delete_newest(env, task, args):
  newest = shell(env, f'ls -t {MARKOR}').split('\n')[0].strip()
  shell(env, f'rm -f {shlex.quote(markor(newest))}')


@solver('adb', 'MarkorMoveNote')
def _markor_move(env, task, args):
  p = task.params
  shell(env, f"mv {shlex.quote(markor(p['source_folder'], p['file_name']))} {shlex.quote(markor(p['destination_folder']))}/")


def cat(env, path):
  return shell(env, f'cat {shlex.quote(path)}').replace('\r', '')


@solver('adb', 'MarkorEditNote')
def _markor_edit(env, task, args):
  p = task.params
  path = markor(p['file_name'])
  old = cat(env, path).strip()
  new = {'header': lambda: p['header'] + '\n' + old, 'footer': lambda: old + '\n' + p['footer'],
         'replace': lambda: p['replace_text']}[p['edit_type']]()
  push_text(env, path, new)


@solver('adb', 'MarkorAddNoteHeader')
def _markor_header(env, task, args):
  p = task.params
  old = cat(env, markor(p['original_name']))
  shell(env, f"rm {shlex.quote(markor(p['original_name']))}")
  push_text(env, markor(p['new_name']), p['header'] + '\n\n' + old)


@solver('adb', 'MarkorChangeNoteContent')
def _markor_change(env, task, args):
  p = task.params
  shell(env, f"rm {shlex.quote(markor(p['original_name']))}")
  push_text(env, markor(p['new_name']), p['updated_content'])


@solver('adb', 'MarkorMergeNotes')
def _markor_merge(env, task, args):
  p = task.params
  parts = [cat(env, markor(p[f'file{i}_name'])).strip() for i in (1, 2, 3)]
  push_text(env, markor(p['new_file_name']), '\n\n'.join(parts))


@solver('adb', 'FilesDeleteFile')
def _files_delete(env, task, args):
  p = task.params
  shell(env, f"rm {shlex.quote(device_constants.EMULATOR_DATA + p['subfolder'] + '/' + p['file_name'])}")


@solver('adb', 'FilesMoveFile')
def _files_move(env, task, args):
  p = task.params
  root = device_constants.EMULATOR_DATA
  shell(env, f"mv {shlex.quote(root + p['source_folder'] + '/' + p['file_name'])} {shlex.quote(root + p['destination_folder'])}/")


# --- Pro Expense and Simple Calendar (databases) ----------------------------------------------

@solver('adb', 'ExpenseAddSingle', 'ExpenseAddMultiple', 'ExpenseAddMultipleFromMarkor')
def _expense_add(env, task, args):
  sqlite_utils.insert_rows_to_remote_db(task.params['row_objects'], 'expense_id', 'expense', EXPENSE_DB, 'pro expense', env)


@solver('adb', 'ExpenseDeleteSingle', 'ExpenseDeleteMultiple', 'ExpenseDeleteMultiple2')
def _expense_delete(env, task, args):
  names = ', '.join(sql_text(r.name) for r in task.params['row_objects'])
  sqlite(env, EXPENSE_DB, f'DELETE FROM expense WHERE name IN ({names})')


@solver('adb', 'ExpenseDeleteDuplicates', 'ExpenseDeleteDuplicates2')
def _expense_dedupe(env, task, args):
  sqlite(env, EXPENSE_DB, 'DELETE FROM expense WHERE expense_id NOT IN (SELECT MIN(expense_id) FROM expense GROUP BY name, amount, category, note, created_date, modified_date)')


@solver('adb', 'SimpleCalendarAddOneEvent', 'SimpleCalendarAddOneEventInTwoWeeks', 'SimpleCalendarAddOneEventRelativeDay',
        'SimpleCalendarAddOneEventTomorrow', 'SimpleCalendarAddRepeatingEvent')
def _calendar_add(env, task, args):
  calendar_utils.add_events(task.params['row_objects'], env)


@solver('adb', 'SimpleCalendarDeleteOneEvent', 'SimpleCalendarDeleteEvents', 'SimpleCalendarDeleteEventsOnRelativeDay')
def _calendar_delete(env, task, args):
  keys = ' OR '.join(f'(title = {sql_text(r.title)} AND start_ts = {int(r.start_ts)})' for r in task.params['row_objects'])
  sqlite(env, calendar_utils.DB_PATH, f'DELETE FROM events WHERE {keys}')


# --- Broccoli (recipes) ---------------------------------------------------------------------

RECIPE_DB = '/data/data/com.flauschcode.broccoli/databases/broccoli'
RECIPE_COLUMNS = 'title, description, servings, preparationTime, source, ingredients, directions, favorite, imageName'


@solver('adb', 'RecipeAddSingleRecipe', 'RecipeAddMultipleRecipes', 'RecipeAddMultipleRecipesFromMarkor')
def _recipe_add(env, task, args):
  # The goal (or recipes.txt) lists exactly the recipes to add.
  sqlite_utils.insert_rows_to_remote_db(task.params['row_objects'], 'recipeId', 'recipes', RECIPE_DB, 'broccoli app', env)


@solver('adb', 'RecipeAddMultipleRecipesFromMarkor2')
def _recipe_add_by_prep_time(env, task, args):
  # recipes.txt holds every row (targets and noise); a person adds those with the goal's prep time.
  p = task.params
  wanted = [r for r in p['row_objects'] + p['noise_row_objects'] if r.preparationTime == p['prep_time']]
  sqlite_utils.insert_rows_to_remote_db(wanted, 'recipeId', 'recipes', RECIPE_DB, 'broccoli app', env)


@solver('adb', 'RecipeDeleteSingleRecipe', 'RecipeDeleteSingleWithRecipeWithNoise', 'RecipeDeleteMultipleRecipes',
        'RecipeDeleteMultipleRecipesWithNoise')
def _recipe_delete(env, task, args):
  names = ', '.join(sql_text(r.title) for r in task.params['row_objects'])  # the titles the goal names
  sqlite(env, RECIPE_DB, f'DELETE FROM recipes WHERE title IN ({names})')


@solver('adb', 'RecipeDeleteMultipleRecipesWithConstraint')
def _recipe_delete_by_ingredient(env, task, args):
  ingredient = task.params['ingredient'].lower()  # "… that use {ingredient} in the directions"
  sqlite(env, RECIPE_DB, f"DELETE FROM recipes WHERE instr(lower(directions), {sql_text(ingredient)}) > 0")


@solver('adb', 'RecipeDeleteDuplicateRecipes', 'RecipeDeleteDuplicateRecipes2', 'RecipeDeleteDuplicateRecipes3')
def _recipe_dedupe(env, task, args):
  sqlite(env, RECIPE_DB, f'DELETE FROM recipes WHERE recipeId NOT IN (SELECT MIN(recipeId) FROM recipes GROUP BY {RECIPE_COLUMNS})')


# --- Clipper (the clipboard) ------------------------------------------------------------------

@solver('adb', 'SystemCopyToClipboard')
def _copy_to_clipboard(env, task, args):
  adb_utils.set_clipboard_contents(task.params['clipboard_content'], env.controller)


@solver('adb', 'MarkorCreateNoteFromClipboard')
def _markor_paste(env, task, args):
  push_text(env, markor(task.params['file_name']), adb_utils.get_clipboard_contents(env.controller))


@solver('ui', 'SimpleSmsSendClipboardContent')
def _sms_clipboard(env, task, args):
  send_sms(env, task.params['number'], adb_utils.get_clipboard_contents(env.controller))


# --- Audio Recorder (through its screens: record, stop, name it in the rename dialog) ---------

def record_clip(env, name=None):
  adb_utils.launch_app('audio recorder', env.controller)
  click(env, 'Record')
  click(env, 'Stop recording')
  if name is not None:
    field = next(i for i, e in enumerate(env.controller.get_ui_elements()) if (e.resource_id or '').endswith('input_name'))
    env.execute_action(json_action.JSONAction(action_type='input_text', text=name, index=field, clear_text=True))
  # input_text ends with Enter, which saves; otherwise save the suggested name.
  if any(e.text == 'Save' for e in env.controller.get_ui_elements()):
    click(env, 'Save')


@solver('ui', 'AudioRecorderRecordAudio')
def _record(env, task, args):
  record_clip(env)


@solver('ui', 'AudioRecorderRecordAudioWithFileName')
def _record_named(env, task, args):
  record_clip(env, task.params['file_name'])


# --- Information retrieval: the answer action (answers.py) -------------------------------------

for _name in answers.CALENDAR_IR:
  SOLVERS[_name] = Solver('adb', answers.solve_calendar)
for _name in answers.TASKS_IR:
  SOLVERS[_name] = Solver('adb', answers.solve_tasks)
