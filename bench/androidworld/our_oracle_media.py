"""Our oracle's counterparts for AndroidWorld's VLC, OsmAnd, Simple Gallery Pro and Simple Draw Pro templates (see
our_oracle.py): playlist names and files, places and waypoints, file names and folders, as the goals state them."""

from our_oracle import UNSTATED, counterpart, goal_words


# --- VLC ---------------------------------------------------------------------------------------

def playlist(name, files):
  # The noise videos are not stated; our oracle finds the named files in VLC's video list.
  return {'playlist_name': name, 'files': list(files), 'noise_files': []}


@counterpart('VlcCreatePlaylist', 'VlcCreatePlaylist')
def _vlc_playlist(task):
  return playlist(task.params['playlist_name'], task.params['files'])


@counterpart('VlcCreateTwoPlaylists', 'VlcCreateTwoPlaylists')
def _vlc_two(task):
  p = task.params
  return {'playlist_name1': p['playlist_name1'], 'files1': list(p['files1']), 'noise_files1': [],
          'playlist_name2': p['playlist_name2'], 'files2': list(p['files2']), 'noise_files2': []}


# --- OsmAnd ------------------------------------------------------------------------------------

@counterpart('OsmAndFavorite', 'OsmAndFavorite')
@counterpart('OsmAndMarker', 'OsmAndMarker')
def _osmand_place(task):
  return {'location': task.params['location']}  # a place name or "lat, lon", as the goal writes it


@counterpart('OsmAndTrack', 'OsmAndTrack')
def _osmand_track(task):
  return {'waypoints': list(task.params['waypoints'])}


# --- Simple Gallery Pro and Simple Draw Pro -----------------------------------------------------

UNSTATED_RECEIPT = {'shop': UNSTATED, 'date': UNSTATED, 'lines': [{'item': UNSTATED, 'amount': 0}]}


@counterpart('GallerySaveCopyOfPicture', 'SaveCopyOfReceiptTaskEval')
def _gallery_copy(task):
  name, source, destination = goal_words(task, r'copy (\S+) in (\S+) and save a copy with the same name in (\S+)')
  return {'target': {'name': name, 'receipt': UNSTATED_RECEIPT}, 'source': source, 'destination': destination, 'others': []}


@counterpart('DrawCreateDrawing', 'SimpleDrawProCreateDrawing')
def _draw(task):
  name, ext, folder = goal_words(task, r'Name it (.+)\.(png|svg|jpg)\. Save it in the (\S+) folder')
  return {'name': name, 'ext': ext, 'folder': folder, 'existing': []}
