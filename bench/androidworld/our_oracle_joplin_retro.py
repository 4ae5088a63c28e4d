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


# --- Retro Music -------------------------------------------------------------------------------

def songs(names):
  # Each song by its title as the goal lists it; its artist and length are read on the screen.
  return [{'title': n.strip(), 'artist': UNSTATED, 'durationMs': 1000} for n in names.split(', ')]


@counterpart('RetroCreatePlaylist', 'RetroCreatePlaylist')
def _retro_playlist(task):
  name, names = goal_words(task, r'titled "(.+?)" with the following songs, in order: (.+)$')
  return {'playlist': name, 'songs': songs(names), 'others': []}


@counterpart('RetroSavePlaylist', 'RetroSavePlaylist')
def _retro_save(task):
  name, names = goal_words(task, r'titled "(.+?)" with the following songs, in order: (.+?)\. Then export the playlist')
  return {'playlist': name, 'songs': songs(names), 'others': []}


counterpart('RetroPlayingQueue', 'RetroPlayingQueue')(
    lambda task: {'playlist': UNSTATED, 'songs': songs(goal_words(task, r'Add the following songs, in order, (.+?) to my playing queue')),
                  'others': []})
counterpart('RetroPlaylistDuration', 'RetroPlaylistDuration')(
    lambda task: {'playlist': goal_words(task, r'titled "(.+?)" with a duration between'), 'songs': songs(UNSTATED)})
