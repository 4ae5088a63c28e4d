"""The screen-only solver: our workbench's own oracle on AndroidWorld's task instances.

For each AndroidWorld template, AndroidWorld initializes its instance on the SimDroid; this module
gives our template's oracle what a person reads in AndroidWorld's goal, and runs
`awb run --task OURS --params JSON --no-init --device emulator-PORT`: our oracle reads the screen
(uiautomator dump) and acts through adb with AndroidWorld's action space (click, long_press,
input_text, scroll, swipe, navigate_back/home, open_app, keyboard_enter, wait, answer, status). An
`answer` it gives is passed to AndroidWorld's env as its answer action; AndroidWorld's
is_successful then judges.

What our oracle is given comes from the goal only: AndroidWorld's params that its goal states, or
words taken from the goal text after initialize_task (AndroidWorld rewrites dates there). Our
templates' other params (distractors our own initialize and check use) get placeholders, marked
UNSTATED: our oracles never read them, so what the device holds is found on its screen. Our own
check's verdict (`our_check`) compares those placeholders and is for information only.
"""

import json
import re
import subprocess

from android_world.env import json_action

# AndroidWorld template -> (our template, mapper(task) -> our params).
COUNTERPARTS = {}

# Values our schemas require for what the goal does not state; our oracles do not read them.
UNSTATED = '(unstated)'
UNSTATED_NUMBER = '000'
UNSTATED_NOTE = {'name': 'unstated.md', 'text': UNSTATED}
UNSTATED_FILE = {'name': UNSTATED, 'size': 1}
UNSTATED_EXPENSE = {'name': UNSTATED, 'amount': 1, 'category': 'Others', 'note': '', 'date': 0}
UNSTATED_RECIPE = {'title': UNSTATED, 'description': '', 'servings': '', 'preparationTime': '', 'source': '', 'ingredients': '',
                   'directions': '', 'favorite': False}
UNSTATED_EVENT = {'title': UNSTATED, 'start': 0, 'end': 0, 'location': '', 'description': '', 'allDay': False}

def counterpart(ours, *aw_names):
  def register(fn):
    for n in aw_names:
      COUNTERPARTS[n] = (ours, fn)
    return fn
  return register


def goal_words(task, pattern):
  """A part of the goal text (as initialize_task left it), by a regular expression's first groups."""
  m = re.search(pattern, task.goal)
  if not m:
    raise ValueError(f'goal does not read as expected ({pattern}): {task.goal!r}')
  return m.groups() if len(m.groups()) > 1 else m.group(1)


def none(task):
  return {}


# --- Settings ----------------------------------------------------------------------------------

for _sw in ('Wifi', 'Bluetooth'):
  for _dir in ('On', 'Off'):
    # The *Verify templates say the same ("Turn wifi on.") from a device already in the goal state.
    counterpart(f'System{_sw}Turn{_dir}', f'System{_sw}Turn{_dir}', f'System{_sw}Turn{_dir}Verify')(none)
counterpart('SystemBrightnessMax', 'SystemBrightnessMax', 'SystemBrightnessMaxVerify')(none)
counterpart('SystemBrightnessMin', 'SystemBrightnessMin', 'SystemBrightnessMinVerify')(none)
counterpart('SystemWifiOffBluetoothOn', 'TurnOffWifiAndTurnOnBluetooth')(none)


# AndroidWorld's app names (system._APP_NAME_TO_PACKAGE_NAME) -> the names our catalog gives them.
AW_APP_NAMES = {'camera': 'Camera', 'clock': 'Clock', 'contacts': 'Contacts', 'settings': 'Settings', 'dialer': 'Phone'}


@counterpart('MultiWifiThenOpenApp', 'TurnOnWifiAndOpenApp')
def _wifi_app(task):
  return {'app': AW_APP_NAMES[task.params['app_name']]}


@counterpart('SystemOpenApp', 'OpenAppTaskEval')
def _open_app(task):
  return {'app': AW_APP_NAMES[task.params['app_name']]}


@counterpart('SystemCopyToClipboard', 'SystemCopyToClipboard')
def _copy(task):
  return {'text': task.params['clipboard_content']}


# --- Camera ------------------------------------------------------------------------------------

# The earlier captures are what the folders hold (AndroidWorld empties them); the oracle records 3 s of video.
_capture = lambda task: {'photos': [], 'videos': [], 'seconds': 3}
counterpart('CameraTakePhoto', 'CameraTakePhoto')(_capture)
counterpart('CameraTakeVideo', 'CameraTakeVideo')(_capture)


# --- Chrome ------------------------------------------------------------------------------------

# The page is AndroidWorld's own (pushed by initialize_task); our oracles read it off the screen.
counterpart('ChromeMultiply', 'BrowserMultiply')(lambda task: {'numbers': [1, 1, 1, 1, 1]})
counterpart('ChromeMaze', 'BrowserMaze')(lambda task: {'rows': ['..', '..']})
counterpart('ChromeDraw', 'BrowserDraw')(lambda task: {'targets': ['#000000'] * 3, 'palette': ['#000000'] * 3})


# --- Clock -------------------------------------------------------------------------------------

@counterpart('ClockStopwatchRun', 'ClockStopWatchRunning')
def _stopwatch_run(task):
  return {'from': 'reset', 'elapsedMs': 0, 'laps': 0}


@counterpart('ClockStopwatchPause', 'ClockStopWatchPausedVerify')
def _stopwatch_pause(task):
  return {'elapsedMs': 1000, 'laps': 0}  # read only by our check


@counterpart('ClockTimerEntry', 'ClockTimerEntry')
def _timer(task):
  return {k: int(task.params[k]) for k in ('hours', 'minutes', 'seconds')}


# --- Contacts and SMS --------------------------------------------------------------------------

@counterpart('ContactsAddContact', 'ContactsAddContact')
def _contact(task):
  p = task.params
  first, _, last = p['name'].partition(' ')
  # person.phone is our stored form (ten digits, for our check); the oracle types the goal's number as written.
  digits = ''.join(c for c in p['number'] if c.isdigit())[-10:]
  return {'person': {'first': first, 'last': last, 'name': p['name'], 'phone': digits}, 'number': p['number'], 'others': []}


@counterpart('ContactsNewContactDraft', 'ContactsNewContactDraft')
def _draft(task):
  p = task.params
  return {'first': p['first'], 'last': p['last'], 'phone': p['phone'], 'label': p['phone_label'], 'others': []}


@counterpart('SmsSendMessage', 'SimpleSmsSend')
def _sms_send(task):
  return {'number': task.params['number'], 'message': task.params['message'], 'messages': []}


@counterpart('SmsReply', 'SimpleSmsReply')
def _sms_reply(task):
  return {'number': task.params['number'], 'message': task.params['message'], 'messages': []}


@counterpart('SmsReplyToMostRecent', 'SimpleSmsReplyMostRecent')
def _sms_reply_recent(task):
  # Whose text is the most recent is read off the conversation list.
  return {'target': UNSTATED_NUMBER, 'message': task.params['message'], 'messages': []}


@counterpart('SmsResendLastMessage', 'SimpleSmsResend')
def _sms_resend(task):
  # The number and the text are read in the conversation with the contact the goal names.
  return {'name': task.params['name'], 'phone': UNSTATED_NUMBER, 'body': UNSTATED, 'contacts': [], 'messages': []}


@counterpart('SmsSendClipboard', 'SimpleSmsSendClipboardContent')
def _sms_clip(task):
  return {'number': task.params['number'], 'clip': UNSTATED, 'messages': []}


@counterpart('SmsForwardAddress', 'SimpleSmsSendReceivedAddress')
def _sms_address(task):
  p = task.params
  return {'to': {'name': p['name1'], 'phone': UNSTATED_NUMBER}, 'from': {'name': p['name2'], 'phone': UNSTATED_NUMBER},
          'address': UNSTATED, 'contacts': [], 'messages': []}


@counterpart('MultiMarkorNoteThenSms', 'MarkorCreateNoteAndSms')
def _note_sms(task):
  p = task.params
  return {'file_name': p['file_name'], 'text': p['text'], 'number': p['number'], 'others': []}


# --- Audio Recorder ----------------------------------------------------------------------------

@counterpart('AudioRecorderRecordAudio', 'AudioRecorderRecordAudio')
def _record(task):
  return {'seeded': [], 'askRename': True, 'seconds': 3}


@counterpart('AudioRecorderRecordAudioWithFileName', 'AudioRecorderRecordAudioWithFileName')
def _record_named(task):
  return {'seeded': [], 'askRename': True, 'seconds': 3, 'name': task.params['file_name']}


# --- Markor ------------------------------------------------------------------------------------

@counterpart('MarkorCreateNote', 'MarkorCreateNote')
def _markor_create(task):
  return {'file_name': task.params['file_name'], 'text': task.params['text'], 'others': []}


@counterpart('MarkorCreateFolder', 'MarkorCreateFolder')
def _markor_folder(task):
  return {'folder_name': task.params['folder_name'], 'folders': [], 'others': []}


@counterpart('MarkorDeleteNote', 'MarkorDeleteNote')
def _markor_delete(task):
  return {'file_name': task.params['file_name'], 'text': '', 'others': []}


@counterpart('MarkorDeleteNewestNote', 'MarkorDeleteNewestNote')
def _markor_newest(task):
  # Which note is newest is read in Markor, sorted by date.
  return {'notes': [dict(UNSTATED_NOTE, age_minutes=60), dict(UNSTATED_NOTE, name='unstated2.md', age_minutes=120)]}


@counterpart('MarkorDeleteAllNotes', 'MarkorDeleteAllNotes')
def _markor_all(task):
  return {'notes': [UNSTATED_NOTE]}


@counterpart('MarkorEditNote', 'MarkorEditNote')
def _markor_edit(task):
  p = task.params
  kind = p['edit_type']
  new = {'header': p.get('header'), 'footer': p.get('footer'), 'replace': p.get('replace_text')}[kind]
  return {'file_name': p['file_name'], 'original': UNSTATED, 'edit_type': kind, 'new_text': new, 'others': []}


@counterpart('MarkorMoveNote', 'MarkorMoveNote')
def _markor_move(task):
  p = task.params
  return {'file_name': p['file_name'], 'text': UNSTATED, 'source_folder': p['source_folder'], 'destination_folder': p['destination_folder'],
          'folders': [], 'root_notes': []}


@counterpart('MarkorAddNoteHeader', 'MarkorAddNoteHeader')
def _markor_header(task):
  p = task.params
  return {'original_name': p['original_name'], 'new_name': p['new_name'], 'header': p['header'], 'original': UNSTATED,
          'trailing_newline': False, 'others': []}


@counterpart('MarkorChangeNoteContent', 'MarkorChangeNoteContent')
def _markor_change(task):
  p = task.params
  return {'original_name': p['original_name'], 'new_name': p['new_name'], 'content': p['updated_content'], 'original': UNSTATED, 'others': []}


@counterpart('MarkorMergeNotes', 'MarkorMergeNotes')
def _markor_merge(task):
  p = task.params
  return {'sources': [{'name': p[f'file{i}_name'], 'text': UNSTATED} for i in (1, 2, 3)], 'new_file_name': p['new_file_name'], 'others': []}


@counterpart('MarkorCreateNoteFromClipboard', 'MarkorCreateNoteFromClipboard')
def _markor_clip(task):
  return {'file_name': task.params['file_name'], 'clip': UNSTATED, 'others': []}


# --- Files -------------------------------------------------------------------------------------

@counterpart('FilesDeleteFile', 'FilesDeleteFile')
def _files_delete(task):
  p = task.params
  return {'folder': p['subfolder'], 'target': {'name': p['file_name'], 'size': 1}, 'others': []}


@counterpart('FilesMoveFile', 'FilesMoveFile')
def _files_move(task):
  p = task.params
  return {'target': {'name': p['file_name'], 'size': 1}, 'source': p['source_folder'], 'destination': p['destination_folder'],
          'others': [], 'dest': [], 'siblings': []}


# --- Pro Expense -------------------------------------------------------------------------------

EXPENSE_CATEGORIES = ['Others', 'Income', 'Food', 'Housing', 'Social', 'Entertainment', 'Transportation', 'Clothes', 'Health Care',
                      'Education', 'Donation']  # Pro Expense's category ids 1..11


def expense(r):
  """An expense as the goal lists it: name, amount, category and note (its date is not stated)."""
  return {'name': r.name, 'amount': int(r.amount), 'category': EXPENSE_CATEGORIES[int(r.category) - 1], 'note': r.note, 'date': 0}


@counterpart('ExpenseAddSingle', 'ExpenseAddSingle')
@counterpart('ExpenseAddMultiple', 'ExpenseAddMultiple')
def _expense_add(task):
  return {'targets': [expense(r) for r in task.params['row_objects']], 'noise': []}


@counterpart('ExpenseDeleteSingle', 'ExpenseDeleteSingle')
@counterpart('ExpenseDeleteMultiple', 'ExpenseDeleteMultiple', 'ExpenseDeleteMultiple2')
def _expense_delete(task):
  # The goal names the expenses; the rest of each row is found in the app.
  return {'targets': [dict(UNSTATED_EXPENSE, name=r.name) for r in task.params['row_objects']], 'noise': []}


@counterpart('ExpenseDeleteDuplicates', 'ExpenseDeleteDuplicates', 'ExpenseDeleteDuplicates2')
def _expense_dupes(task):
  return {'target': UNSTATED_EXPENSE, 'near': UNSTATED_EXPENSE, 'noise': []}


@counterpart('MultiMarkorExpensesToExpense', 'ExpenseAddMultipleFromMarkor')
def _expense_markor(task):
  return {'file': goal_words(task, r'transactions in (\S+) in Markor'), 'targets': [UNSTATED_EXPENSE], 'noise': [], 'logged': []}


# --- Broccoli ----------------------------------------------------------------------------------

def recipe(r):
  """A recipe as the goal lists it (title, description, servings, time, ingredients, directions)."""
  return {'title': r.title, 'description': r.description, 'servings': r.servings, 'preparationTime': r.preparationTime,
          'source': '', 'ingredients': r.ingredients, 'directions': r.directions, 'favorite': False}


@counterpart('RecipeAddRecipe', 'RecipeAddSingleRecipe')
def _recipe_add(task):
  return {'target': recipe(task.params['row_objects'][0]), 'noise': []}


@counterpart('RecipeAddMultipleRecipes', 'RecipeAddMultipleRecipes')
def _recipes_add(task):
  return {'targets': [recipe(r) for r in task.params['row_objects']], 'noise': []}


@counterpart('RecipeDeleteSingleRecipe', 'RecipeDeleteSingleRecipe', 'RecipeDeleteSingleWithRecipeWithNoise')
@counterpart('RecipeDeleteMultipleRecipes', 'RecipeDeleteMultipleRecipes', 'RecipeDeleteMultipleRecipesWithNoise')
def _recipe_delete(task):
  return {'targets': [dict(UNSTATED_RECIPE, title=r.title) for r in task.params['row_objects']], 'noise': []}


@counterpart('RecipeDeleteDuplicateRecipes', 'RecipeDeleteDuplicateRecipes', 'RecipeDeleteDuplicateRecipes2', 'RecipeDeleteDuplicateRecipes3')
def _recipe_dupes(task):
  return {'target': UNSTATED_RECIPE, 'variants': [], 'noise': []}


@counterpart('RecipeDeleteRecipesByIngredient', 'RecipeDeleteMultipleRecipesWithConstraint')
def _recipe_constraint(task):
  return {'ingredient': goal_words(task, r'that use (.+?) in the directions'), 'targets': [UNSTATED_RECIPE], 'noise': []}


@counterpart('MultiMarkorRecipesToBroccoli', 'RecipeAddMultipleRecipesFromMarkor')
def _recipes_markor(task):
  return {'file': goal_words(task, r'recipes from (\S+) in Markor'), 'format': 'csv', 'prep_time': None, 'targets': [UNSTATED_RECIPE],
          'others': [], 'existing': []}


@counterpart('MultiMarkorRecipesByTimeToBroccoli', 'RecipeAddMultipleRecipesFromMarkor2')
def _recipes_markor_time(task):
  file, prep = goal_words(task, r'recipes from (\S+) in Markor that take (.+?) to prepare')
  return {'file': file, 'format': 'csv', 'prep_time': prep, 'targets': [UNSTATED_RECIPE], 'others': [], 'existing': []}


# --- running it ------------------------------------------------------------------------------

def solve(env, task, name, args):
  """Runs our oracle on the device for AndroidWorld's instance; an answer it gives goes to AndroidWorld as its answer action."""
  ours, mapper = COUNTERPARTS[name]
  params = mapper(task)
  cmd = ['node', 'bin/awb.js', 'run', '--task', ours, '--params', json.dumps(params), '--no-init', '--no-record', '--json',
         '--device', f'emulator-{args.console_port}', '--adb-port', str(args.adb_server_port)]
  r = subprocess.run(cmd, cwd=args.repo, capture_output=True, text=True, timeout=1200)
  if r.returncode != 0:
    raise RuntimeError(f'awb run {ours} exited {r.returncode}: {r.stderr.strip()[-400:]}')
  out = json.loads(r.stdout.strip().split('\n')[-1])
  actions = [a['action'] for a in out['actions']]
  answers = [a.get('text', '') for a in actions if a.get('action_type') == 'answer']
  if answers:
    env.execute_action(json_action.JSONAction(action_type=json_action.ANSWER, text=answers[-1]))
  return {'ours': ours, 'our_status': out['status'], 'our_check': out['success'], 'our_steps': out['steps'],
          'our_actions': [a['description'] or json.dumps(a['action']) for a in out['actions']],
          **({'answer': answers[-1]} if answers else {}),
          'our_error': (f"{out['error']['name']}: {out['error']['message']}".split('\n')[0][:300] if out.get('error') else None)}

import our_oracle_days  # pylint: disable=unused-import,wrong-import-position  (registers the calendar and Tasks counterparts)
import our_oracle_opentracks  # pylint: disable=unused-import,wrong-import-position  (registers the OpenTracks counterparts)
import our_oracle_joplin_retro  # pylint: disable=unused-import,wrong-import-position  (registers the Joplin and Retro Music counterparts)
import our_oracle_media  # pylint: disable=unused-import,wrong-import-position  (registers the VLC, OsmAnd, Gallery and Draw counterparts)
