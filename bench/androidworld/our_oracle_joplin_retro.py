"""Our oracle's counterparts for AndroidWorld's Joplin and Retro Music templates (see our_oracle.py):
titles, folders, ingredients, playlist names and song titles taken from the goal's words."""

from our_oracle import UNSTATED, counterpart, goal_words

# --- Joplin ------------------------------------------------------------------------------------

counterpart('JoplinIsTodoQuestion', 'NotesIsTodo')(
    lambda task: {'title': goal_words(task, r"note titled '(.+?)' in the Joplin app"), 'isTodo': False, 'notes': []})
counterpart('JoplinMeetingAttendeesQuestion', 'NotesMeetingAttendeeCount')(
    lambda task: {'title': goal_words(task, r"meeting titled '(.+?)' in the Joplin app"), 'attendees': 1, 'notes': []})


@counterpart('JoplinRecipeQuantityQuestion', 'NotesRecipeIngredientCount')
def _recipe_quantity(task):
  ingredient, title = goal_words(task, r"What quantity of (.+?) do I need for the recipe '(.+?)' in the Joplin app")
  return {'title': title, 'ingredient': ingredient, 'quantity': UNSTATED, 'notes': []}


counterpart('JoplinTodoCountQuestion', 'NotesTodoItemCount')(
    lambda task: {'folder': goal_words(task, r"to-dos do I have in the '(.+?)' folder in the Joplin app"), 'count': 0, 'notes': []})
