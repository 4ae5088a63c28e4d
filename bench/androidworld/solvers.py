"""The harness's other solvers (`measure.py --solver harness`), keyed by AndroidWorld's class name.

Each brings the device to the goal from what a person reads in the goal (never the task's checker,
and no param the goal does not state), by one of these routes (the table's "Route" column):
  ui               — through the screens only, with AndroidWorld's own actuation helpers;
  ui+intent        — a pre-filled intent (AndroidWorld's send_sms and add_contact tools) and taps;
  data             — through the device's data with adb: files (push/rm/mv/cat), databases (sqlite3 or
                     AndroidWorld's sqlite_utils), settings (`settings put`), providers, the clipboard;
  answer-from-data — an answer computed from the app's data (answers.py);
  none             — a *Verify template: initialize_task already leaves the goal state.
The screen-only solver for every template is our workbench's oracle (our_oracle.py, `--solver ui`).
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


# Apps SimDroid installs only as a placeholder screen ("Nothing here yet"): an instance that opens one is outside SimDroid.
PLACEHOLDER_APPS = {'camera', 'dialer'}


def outside_simdroid(task):
  """Why an instance lies outside SimDroid (whatever the route), or None. TurnOnWifiAndOpenApp counts only for apps SimDroid really has."""
  if type(task).__name__ == 'TurnOnWifiAndOpenApp' and task.params.get('app_name') in PLACEHOLDER_APPS:
    return f"opens the {task.params['app_name']} app, which SimDroid has only as a placeholder"
  return None


@dataclasses.dataclass(frozen=True)
class Solver:
  kind: str  # 'ui' | 'ui+intent' | 'data' | 'answer-from-data' | 'none'
  solve: object
  outside: object = outside_simdroid


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

@solver('data', 'SystemWifiTurnOn')
def _wifi_on(env, task, args):
  shell(env, 'settings put global wifi_on 1')


@solver('data', 'SystemWifiTurnOff')
def _wifi_off(env, task, args):
  shell(env, 'settings put global wifi_on 0')


@solver('data', 'SystemBluetoothTurnOn')
def _bt_on(env, task, args):
  shell(env, 'settings put global bluetooth_on 1')


@solver('data', 'SystemBluetoothTurnOff')
def _bt_off(env, task, args):
  shell(env, 'settings put global bluetooth_on 0')


@solver('data', 'SystemBrightnessMax')
def _bright_max(env, task, args):
  shell(env, 'settings put system screen_brightness 255')


@solver('data', 'SystemBrightnessMin')
def _bright_min(env, task, args):
  shell(env, 'settings put system screen_brightness 1')


@solver('none', 'SystemWifiTurnOnVerify', 'SystemWifiTurnOffVerify', 'SystemBluetoothTurnOnVerify',
        'SystemBluetoothTurnOffVerify', 'SystemBrightnessMaxVerify', 'SystemBrightnessMinVerify')
def _verify(env, task, args):
  pass


@solver('data', 'TurnOffWifiAndTurnOnBluetooth')
def _wifi_off_bt_on(env, task, args):
  shell(env, 'settings put global wifi_on 0')
  shell(env, 'settings put global bluetooth_on 1')


@solver('data', 'TurnOnWifiAndOpenApp')
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

@solver('ui+intent', 'ContactsAddContact')
def _add_contact(env, task, args):
  from android_world.utils import contacts_utils  # pylint: disable=g-import-not-at-top
  contacts_utils.add_contact(task.params['name'], task.params['number'], env.controller)


def send_sms(env, number, message):
  tools.AndroidToolController(env.controller).send_sms(number, message)


@solver('ui+intent', 'SimpleSmsSend', 'SimpleSmsReply')
def _sms_send(env, task, args):
  send_sms(env, task.params['number'], task.params['message'])


@solver('data', 'SimpleSmsReplyMostRecent')
def _sms_reply_recent(env, task, args):
  out = shell(env, 'content query --uri content://sms/inbox --projection address:body')
  recent = re.search(r'address=([^,]*),', out).group(1)  # row 0: the newest text
  send_sms(env, recent, task.params['message'])


@solver('data', 'SimpleSmsResend')
def _sms_resend(env, task, args):
  # The goal names the contact only: the number is the contact's, the text the last one sent to it (the provider, newest first).
  number = re.sub(r'[^+\d]', '', contact_number(env, task.params['name']))
  sent = shell(env, 'content query --uri content://sms/sent --projection address:body')
  body = next(m.group(2) for m in re.finditer(r'address=([^,]*), body=(.*)', sent) if re.sub(r'[^+\d]', '', m.group(1)).endswith(number[-10:]))
  send_sms(env, number, body)


def contact_number(env, name):
  """The number as the contact holds it (contacts_utils.list_contacts strips the leading +)."""
  out = shell(env, 'content query --uri content://contacts/phones/ --projection display_name:number')
  return next(m.group(2).strip() for m in re.finditer(r'display_name=(.*), number=(.*)', out) if m.group(1) == name)


@solver('data', 'SimpleSmsSendReceivedAddress')
def _sms_forward_address(env, task, args):
  # The address is the text name2 just sent; it goes to name1, both found as a person would: by contact name.
  sender = re.sub(r'[^+\d]', '', contact_number(env, task.params['name2']))
  inbox = shell(env, 'content query --uri content://sms/inbox --projection address:body')
  address = next(m.group(2) for m in re.finditer(r'address=([^,]*), body=(.*)', inbox) if m.group(1) == sender)
  send_sms(env, contact_number(env, task.params['name1']), address)


# --- Markor and Files -------------------------------------------------------------------------

def markor(*parts):
  return '/'.join([MARKOR, *parts])


@solver('data', 'MarkorCreateNote')
def _markor_create(env, task, args):
  push_text(env, markor(task.params['file_name']), task.params['text'])


@solver('data', 'MarkorCreateNoteAndSms')
def _markor_create_sms(env, task, args):
  push_text(env, markor(task.params['file_name']), task.params['text'])
  send_sms(env, task.params['number'], task.params['text'])


@solver('data', 'MarkorCreateFolder')
def _markor_folder(env, task, args):
  shell(env, f"mkdir -p {shlex.quote(markor(task.params['folder_name']))}")


@solver('data', 'MarkorDeleteNote')
def _markor_delete(env, task, args):
  name = task.params['file_name']
  shell(env, f'rm -f {shlex.quote(markor(name))} {shlex.quote(markor(name))}.md {shlex.quote(markor(name))}.txt')


@solver('data', 'MarkorDeleteAllNotes')
def _markor_delete_all(env, task, args):
  shell(env, f'rm -rf {MARKOR}/*')


@solver('data', 'MarkorDeleteNewestNote')
def _markor_delete_newest(env, task, args):
  newest = shell(env, f'ls -t {MARKOR}').split('\n')[0].strip()
  shell(env, f'rm -f {shlex.quote(markor(newest))}')


@solver('data', 'MarkorMoveNote')
def _markor_move(env, task, args):
  p = task.params
  shell(env, f"mv {shlex.quote(markor(p['source_folder'], p['file_name']))} {shlex.quote(markor(p['destination_folder']))}/")


def cat(env, path):
  return shell(env, f'cat {shlex.quote(path)}').replace('\r', '')


@solver('data', 'MarkorEditNote')
def _markor_edit(env, task, args):
  p = task.params
  path = markor(p['file_name'])
  old = cat(env, path).strip()
  new = {'header': lambda: p['header'] + '\n' + old, 'footer': lambda: old + '\n' + p['footer'],
         'replace': lambda: p['replace_text']}[p['edit_type']]()
  push_text(env, path, new)


@solver('data', 'MarkorAddNoteHeader')
def _markor_header(env, task, args):
  p = task.params
  old = cat(env, markor(p['original_name']))
  shell(env, f"rm {shlex.quote(markor(p['original_name']))}")
  push_text(env, markor(p['new_name']), p['header'] + '\n\n' + old)


@solver('data', 'MarkorChangeNoteContent')
def _markor_change(env, task, args):
  p = task.params
  shell(env, f"rm {shlex.quote(markor(p['original_name']))}")
  push_text(env, markor(p['new_name']), p['updated_content'])


@solver('data', 'MarkorMergeNotes')
def _markor_merge(env, task, args):
  p = task.params
  parts = [cat(env, markor(p[f'file{i}_name'])).strip() for i in (1, 2, 3)]
  push_text(env, markor(p['new_file_name']), '\n\n'.join(parts))


@solver('data', 'FilesDeleteFile')
def _files_delete(env, task, args):
  p = task.params
  shell(env, f"rm {shlex.quote(device_constants.EMULATOR_DATA + p['subfolder'] + '/' + p['file_name'])}")


@solver('data', 'FilesMoveFile')
def _files_move(env, task, args):
  p = task.params
  root = device_constants.EMULATOR_DATA
  shell(env, f"mv {shlex.quote(root + p['source_folder'] + '/' + p['file_name'])} {shlex.quote(root + p['destination_folder'])}/")


# --- Pro Expense and Simple Calendar (databases) ----------------------------------------------

@solver('data', 'ExpenseAddSingle', 'ExpenseAddMultiple')
def _expense_add(env, task, args):
  # The goal lists the rows (name, amount, category, note).
  sqlite_utils.insert_rows_to_remote_db(task.params['row_objects'], 'expense_id', 'expense', EXPENSE_DB, 'pro expense', env)


EXPENSE_CATEGORY_IDS = {name: i + 1 for i, name in enumerate(['Others', 'Income', 'Food', 'Housing', 'Social', 'Entertainment', 'Transportation',
                                                              'Clothes', 'Health Care', 'Education', 'Donation'])}


@solver('data', 'ExpenseAddMultipleFromMarkor')
def _expense_from_markor(env, task, args):
  # The rows are in the note the goal names: its reimbursable lines, the marker not part of the note.
  from android_world.task_evals.utils import sqlite_schema_utils  # pylint: disable=g-import-not-at-top
  file = re.search(r'transactions in (\S+) in Markor', task.goal).group(1)
  lines = [l for l in cat(env, markor(file)).split('\n') if l.strip()]
  cols = lines[0].split('|')
  rows = []
  for line in lines[1:]:
    f = dict(zip(cols, line.split('|')))
    if re.search(r'reimbursable\.?\s*$', f['note'], re.I):
      note = re.sub(r'\.?\s*Reimbursable\.?\s*$', '', f['note']).strip()
      rows.append(sqlite_schema_utils.Expense(name=f['name'], amount=round(float(f['amount_dollars'].lstrip('$')) * 100),
                                              category=EXPENSE_CATEGORY_IDS[f['category_name']], note=note))
  sqlite_utils.insert_rows_to_remote_db(rows, 'expense_id', 'expense', EXPENSE_DB, 'pro expense', env)


@solver('data', 'ExpenseDeleteSingle', 'ExpenseDeleteMultiple', 'ExpenseDeleteMultiple2')
def _expense_delete(env, task, args):
  names = ', '.join(sql_text(r.name) for r in task.params['row_objects'])
  sqlite(env, EXPENSE_DB, f'DELETE FROM expense WHERE name IN ({names})')


@solver('data', 'ExpenseDeleteDuplicates', 'ExpenseDeleteDuplicates2')
def _expense_dedupe(env, task, args):
  sqlite(env, EXPENSE_DB, 'DELETE FROM expense WHERE expense_id NOT IN (SELECT MIN(expense_id) FROM expense GROUP BY name, amount, category, note, created_date, modified_date)')


@solver('data', 'SimpleCalendarAddOneEvent', 'SimpleCalendarAddOneEventInTwoWeeks', 'SimpleCalendarAddOneEventRelativeDay',
        'SimpleCalendarAddOneEventTomorrow', 'SimpleCalendarAddRepeatingEvent')
def _calendar_add(env, task, args):
  calendar_utils.add_events(task.params['row_objects'], env)


def day_bounds(year, month, day):
  import calendar as _cal  # pylint: disable=g-import-not-at-top
  start = _cal.timegm((year, month, day, 0, 0, 0))
  return start, start + 86400


@solver('data', 'SimpleCalendarDeleteOneEvent')
def _calendar_delete_one(env, task, args):
  # The goal's title, day and hour (device time is UTC).
  p = task.params
  start = day_bounds(int(p['year']), int(p['month']), int(p['day']))[0] + int(p['hour']) * 3600
  sqlite(env, calendar_utils.DB_PATH, f"DELETE FROM events WHERE title = {sql_text(p['event_title'])} AND start_ts = {start}")


@solver('data', 'SimpleCalendarDeleteEvents')
def _calendar_delete_day(env, task, args):
  p = task.params
  lo, hi = day_bounds(int(p['year']), int(p['month']), int(p['day']))
  sqlite(env, calendar_utils.DB_PATH, f'DELETE FROM events WHERE start_ts >= {lo} AND start_ts < {hi}')


@solver('data', 'SimpleCalendarDeleteEventsOnRelativeDay')
def _calendar_delete_relative(env, task, args):
  # "this Monday", counted from the device's today.
  weekday = re.search(r'scheduled for this (\w+)\.', task.goal).group(1)
  day = answers.parse_day(f'this {weekday}', answers.device_now(env).date())
  lo, hi = day_bounds(day.year, day.month, day.day)
  sqlite(env, calendar_utils.DB_PATH, f'DELETE FROM events WHERE start_ts >= {lo} AND start_ts < {hi}')


# --- Broccoli (recipes) ---------------------------------------------------------------------

RECIPE_DB = '/data/data/com.flauschcode.broccoli/databases/broccoli'
RECIPE_COLUMNS = 'title, description, servings, preparationTime, source, ingredients, directions, favorite, imageName'


@solver('data', 'RecipeAddSingleRecipe', 'RecipeAddMultipleRecipes')
def _recipe_add(env, task, args):
  # The goal lists exactly the recipes to add.
  sqlite_utils.insert_rows_to_remote_db(task.params['row_objects'], 'recipeId', 'recipes', RECIPE_DB, 'broccoli app', env)


RECIPE_FIELDS = ('title', 'description', 'servings', 'preparationTime', 'ingredients', 'directions')


def recipes_in(text):
  """The recipes of a recipes.txt, in either of AndroidWorld's formats (a | table, or "Recipe:" blocks)."""
  from android_world.task_evals.utils import sqlite_schema_utils  # pylint: disable=g-import-not-at-top
  lines = text.split('\n')
  out = []
  if lines and lines[0].startswith('title|'):
    cols = lines[0].split('|')
    out = [dict(zip(cols, l.split('|'))) for l in lines[1:] if l.strip()]
  else:
    for line in lines:
      if line.startswith('Recipe:'):
        out.append({'title': line[len('Recipe:'):].strip()})
      elif out and re.match(r'^\s+(\w+):', line):
        k, v = line.strip().split(':', 1)
        out[-1][k] = v.strip()
  return [sqlite_schema_utils.Recipe(**{k: r.get(k, '') for k in RECIPE_FIELDS}) for r in out]


@solver('data', 'RecipeAddMultipleRecipesFromMarkor', 'RecipeAddMultipleRecipesFromMarkor2')
def _recipe_add_from_markor(env, task, args):
  # recipes.txt as the device holds it; the goal may ask only for those that take a given time.
  m = re.search(r'recipes from (\S+) in Markor(?: that take (.+?) to prepare)?', task.goal)
  rows = recipes_in(cat(env, markor(m.group(1))))
  if m.group(2):
    rows = [r for r in rows if r.preparationTime == m.group(2)]
  sqlite_utils.insert_rows_to_remote_db(rows, 'recipeId', 'recipes', RECIPE_DB, 'broccoli app', env)


@solver('data', 'RecipeDeleteSingleRecipe', 'RecipeDeleteSingleWithRecipeWithNoise', 'RecipeDeleteMultipleRecipes',
        'RecipeDeleteMultipleRecipesWithNoise')
def _recipe_delete(env, task, args):
  names = ', '.join(sql_text(r.title) for r in task.params['row_objects'])  # the titles the goal names
  sqlite(env, RECIPE_DB, f'DELETE FROM recipes WHERE title IN ({names})')


@solver('data', 'RecipeDeleteMultipleRecipesWithConstraint')
def _recipe_delete_by_ingredient(env, task, args):
  ingredient = task.params['ingredient'].lower()  # "… that use {ingredient} in the directions"
  sqlite(env, RECIPE_DB, f"DELETE FROM recipes WHERE instr(lower(directions), {sql_text(ingredient)}) > 0")


@solver('data', 'RecipeDeleteDuplicateRecipes', 'RecipeDeleteDuplicateRecipes2', 'RecipeDeleteDuplicateRecipes3')
def _recipe_dedupe(env, task, args):
  sqlite(env, RECIPE_DB, f'DELETE FROM recipes WHERE recipeId NOT IN (SELECT MIN(recipeId) FROM recipes GROUP BY {RECIPE_COLUMNS})')


# --- Clipper (the clipboard) ------------------------------------------------------------------

@solver('data', 'SystemCopyToClipboard')
def _copy_to_clipboard(env, task, args):
  adb_utils.set_clipboard_contents(task.params['clipboard_content'], env.controller)


@solver('data', 'MarkorCreateNoteFromClipboard')
def _markor_paste(env, task, args):
  push_text(env, markor(task.params['file_name']), adb_utils.get_clipboard_contents(env.controller))


@solver('data', 'SimpleSmsSendClipboardContent')
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
  SOLVERS[_name] = Solver('answer-from-data', answers.solve_calendar)
for _name in answers.TASKS_IR:
  SOLVERS[_name] = Solver('answer-from-data', answers.solve_tasks)
