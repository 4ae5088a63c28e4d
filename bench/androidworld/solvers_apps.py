"""The harness's solvers for Markor, Files, Pro Expense, Simple Calendar Pro and Broccoli (see solvers.py):
by the `data` route, from what the goal states and what the device holds."""

import re
import shlex

from android_world.env import device_constants
from android_world.task_evals.single.calendar import calendar_utils
from android_world.task_evals.utils import sqlite_utils

import answers
from solvers import EXPENSE_DB, MARKOR, cat, markor, push_text, send_sms, shell, solver, sql_text, sqlite

# --- Markor and Files -------------------------------------------------------------------------

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
