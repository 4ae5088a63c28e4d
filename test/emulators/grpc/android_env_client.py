"""android_env (and adbutils) against a running SimDroid, as against an emulator someone else started.

Usage: android_env_client.py ADB_PORT CONSOLE_PORT GRPC_PORT ADB_SERVER_PORT
Prints one JSON object of observations; the vitest file that starts SimDroid checks them.
"""

import json
import os
import re
import sys

import numpy as np
from absl import logging

from android_env import loader
from android_env.components import action_type
from android_env.components import config_classes
from android_env.components.simulators.emulator import emulator_simulator
from android_env.proto import state_pb2
import adbutils

SMS_PACKAGE = 'com.simplemobiletools.smsmessenger'
TASK = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'open_sms_task.textproto')


def centre_of(xml: str, text: str) -> tuple[int, int]:
  m = re.search(r'text="%s"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"' % re.escape(text), xml)
  if not m:
    raise SystemExit(f'no node with text {text!r} in the UI dump')
  x1, y1, x2, y2 = map(int, m.groups())
  return (x1 + x2) // 2, (y1 + y2) // 2


def screencap_rgb(adb) -> np.ndarray:
  raw = adb.execute_command(['exec-out', 'screencap'])
  w, h = int.from_bytes(raw[0:4], 'little'), int.from_bytes(raw[4:8], 'little')
  return np.frombuffer(raw[16:], dtype=np.uint8).reshape(h, w, 4)[:, :, :3]


def env_loop(emulator: config_classes.EmulatorConfig) -> dict[str, object]:
  """android_env's own environment (loader.load: simulator, coordinator, task manager) on SimDroid.

  The task (open_sms_task.textproto) resets to the launcher; the agent taps the SMS app's icon
  (TOUCH, then LIFT at the same normalised position) and the episode ends when logcat shows
  ActivityTaskManager's "Displayed" line for the app, which android_env's logcat thread reads.
  """
  env = loader.load(config_classes.AndroidEnvConfig(
      task=config_classes.FilesystemTaskConfig(path=TASK), simulator=emulator))
  out: dict[str, object] = {}
  try:
    adb = env._coordinator._simulator.create_adb_controller()  # pylint: disable=protected-access
    spec = env.observation_spec()
    out['observation_spec'] = {k: list(v.shape) for k, v in spec.items()}
    first = env.reset()
    out['reset'] = {'step_type': first.step_type.name, 'pixels_shape': list(first.observation['pixels'].shape),
                    'orientation': first.observation['orientation'].tolist(),
                    'on_launcher': f'package="{SMS_PACKAGE}"' not in adb.execute_command(['shell', 'uiautomator', 'dump', '/dev/tty']).decode()}
    x, y = centre_of(adb.execute_command(['shell', 'uiautomator', 'dump', '/dev/tty']).decode(), 'Simple SMS Messenger')
    h, w = first.observation['pixels'].shape[:2]
    position = np.array([(x + 0.5) / w, (y + 0.5) / h], dtype=np.float32)
    steps = []
    # TOUCH puts the finger down, LIFT raises it (the tap); further LIFTs are no-ops the agent sends
    # until the episode ends: the logcat line reaches android_env asynchronously, a step or two later.
    for kind in [action_type.ActionType.TOUCH] + [action_type.ActionType.LIFT] * 4:
      ts = env.step({'action_type': np.array(kind, dtype=np.int32), 'touch_position': position})
      steps.append({
          'action': kind.name, 'step_type': ts.step_type.name, 'discount': float(ts.discount),
          'timedelta_us': int(ts.observation['timedelta']), 'orientation': ts.observation['orientation'].tolist(),
          'pixels_shape': list(ts.observation['pixels'].shape),
          'pixels_equal_screencap': bool(np.array_equal(ts.observation['pixels'], screencap_rgb(adb))),
      })
      if ts.last():
        break
    out['steps'] = steps
    out['app_open_at_end'] = f'package="{SMS_PACKAGE}"' in adb.execute_command(['shell', 'uiautomator', 'dump', '/dev/tty']).decode()
    out['episode_steps'] = env.stats()['episode_steps']
  finally:
    env.close()
  return out


def main() -> None:
  logging.set_verbosity(logging.WARNING)
  adb_port, console_port, grpc_port, server_port = map(int, sys.argv[1:5])
  config = config_classes.EmulatorConfig(
      emulator_launcher=config_classes.EmulatorLauncherConfig(
          adb_port=adb_port, emulator_console_port=console_port, grpc_port=grpc_port),
      adb_controller=config_classes.AdbControllerConfig(adb_path='adb', adb_server_port=server_port),
  )
  sim = emulator_simulator.EmulatorSimulator(config)
  out: dict[str, object] = {'device_name': sim.adb_device_name()}
  try:
    # With all three ports given, android_env attaches: gRPC channel, then getStatus().booted.
    sim.launch()
    adb = sim.create_adb_controller()
    out['booted'] = True

    shot = sim.get_screenshot()  # getScreenshot(RGBA8888), alpha dropped
    out['screenshot_shape'] = list(shot.shape)
    raw = adb.execute_command(['exec-out', 'screencap'])
    w, h = int.from_bytes(raw[0:4], 'little'), int.from_bytes(raw[4:8], 'little')
    pixels = np.frombuffer(raw[16:], dtype=np.uint8).reshape(h, w, 4)[:, :, :3]
    out['screencap_shape'] = [h, w, 3]
    out['pixels_equal_screencap'] = bool(np.array_equal(shot, pixels))

    # A tap, as android_env's action loop sends it: finger down, then up, one identifier.
    xml = adb.execute_command(['shell', 'uiautomator', 'dump', '/dev/tty']).decode()
    x, y = centre_of(xml, 'Simple SMS Messenger')
    sim.send_touch([(x, y, True, 0)])
    sim.send_touch([(x, y, False, 0)])
    after = adb.execute_command(['shell', 'uiautomator', 'dump', '/dev/tty']).decode()
    out['app_opened'] = f'package="{SMS_PACKAGE}"' in after
    out['screen_changed'] = not np.array_equal(sim.get_screenshot(), shot)

    # Snapshots through SnapshotService, as android_env's load_state does (ListSnapshots, LoadSnapshot).
    out['load_default_boot'] = state_pb2.LoadStateResponse.Status.Name(
        sim.load_state(state_pb2.LoadStateRequest(args={'snapshot_name': 'default_boot'})).status)
    restored = adb.execute_command(['shell', 'uiautomator', 'dump', '/dev/tty']).decode()
    out['app_gone_after_load'] = f'package="{SMS_PACKAGE}"' not in restored
    out['pixels_after_load_equal_first'] = bool(np.array_equal(sim.get_screenshot(), shot))
    out['load_missing'] = state_pb2.LoadStateResponse.Status.Name(
        sim.load_state(state_pb2.LoadStateRequest(args={'snapshot_name': 'no_such_snapshot'})).status)
    out['save'] = state_pb2.SaveStateResponse.Status.Name(
        sim.save_state(state_pb2.SaveStateRequest(args={'snapshot_name': 'android_env_saved'})).status)

    out['env'] = env_loop(config)

    # adbutils: a second, independent adb client (its own wire protocol code) on the same server.
    client = adbutils.AdbClient(host='127.0.0.1', port=server_port)
    dev = client.device(serial=sim.adb_device_name())
    out['adbutils'] = {
        'serials': sorted(d.serial for d in client.device_list()),
        'echo': dev.shell('echo hello from adbutils'),
        'model': dev.prop.model,
        'window_size': list(dev.window_size()),
        'serialno': dev.shell('getprop ro.serialno'),
    }
  finally:
    sim.close()
  print(json.dumps(out))


if __name__ == '__main__':
  main()
