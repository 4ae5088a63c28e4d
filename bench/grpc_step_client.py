"""The AndroidWorld-style step through AndroidWorld's own stack, against a running SimDroid.

android_env's EmulatorSimulator (its generated gRPC stubs on grpcio: sendTouch down and up,
getScreenshot RGBA8888 → numpy, alpha dropped) and its AdbController (the adb CLI, a process per
call) for `uiautomator dump`. Prints one JSON object: per-step and per-part times in ms, and for
the screenshot, split: the raw stub call (grpcio's receive and the protobuf parse) and android_env's
conversion of the reply to numpy, each with the call's wall-clock start so bench/grpc.ts can line
it up with the server's own timings.

Usage: grpc_step_client.py ADB_PORT CONSOLE_PORT GRPC_PORT ADB_SERVER_PORT SAMPLES
"""

import json
import re
import sys
import time

import numpy as np

from absl import logging
from android_env.components import config_classes
from android_env.components.simulators.emulator import emulator_simulator
from android_env.proto import emulator_controller_pb2


def main() -> None:
  logging.set_verbosity(logging.WARNING)
  adb_port, console_port, grpc_port, server_port, n = map(int, sys.argv[1:6])
  sim = emulator_simulator.EmulatorSimulator(config_classes.EmulatorConfig(
      emulator_launcher=config_classes.EmulatorLauncherConfig(
          adb_port=adb_port, emulator_console_port=console_port, grpc_port=grpc_port),
      adb_controller=config_classes.AdbControllerConfig(adb_path='adb', adb_server_port=server_port)))
  try:
    sim.launch()
    adb = sim.create_adb_controller()
    home = lambda: sim._emulator_stub.sendKey(emulator_controller_pb2.KeyboardEvent(key='GoHome'))  # pylint: disable=protected-access
    home()
    xml = adb.execute_command(['shell', 'uiautomator', 'dump', '/dev/tty']).decode()
    m = re.search(r'text="Simple SMS Messenger"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"', xml)
    x, y = (int(m.group(1)) + int(m.group(3))) // 2, (int(m.group(2)) + int(m.group(4))) // 2
    touch = lambda: (sim.send_touch([(x, y, True, 0)]), sim.send_touch([(x, y, False, 0)]))
    dump = lambda: adb.execute_command(['shell', 'uiautomator', 'dump', '/dev/tty'])
    ms = lambda t0: (time.perf_counter() - t0) * 1000
    def split_screenshot():
      # What EmulatorSimulator._get_screenshot_impl does, in two timed halves: the stub call, then
      # the reply's bytes field (upb copies it out of the message) viewed as numpy, alpha dropped.
      t0 = time.time()
      image_proto = sim._emulator_stub.getScreenshot(sim._image_format)  # pylint: disable=protected-access
      t1 = time.time()
      h, w = image_proto.format.height, image_proto.format.width
      image = np.frombuffer(image_proto.image, dtype='uint8', count=h * w * 4)
      image.shape = (h, w, 4)
      _ = image[:, :, :3]
      t2 = time.time()
      out['screenshot_split'].append({'start': t0 * 1000, 'stub': (t1 - t0) * 1000, 'convert': (t2 - t1) * 1000})
    out = {'step': [], 'touch': [], 'screenshot': [], 'dump': [], 'adb_shell_true': [], 'screenshot_split': []}
    for _ in range(n):
      home()  # untimed: every step starts on the launcher
      t0 = time.perf_counter()
      touch()
      sim.get_screenshot()
      dump()
      out['step'].append(ms(t0))
    for _ in range(n):
      home()
      for part, fn in (('touch', touch), ('screenshot', sim.get_screenshot), ('dump', dump),
                       ('adb_shell_true', lambda: adb.execute_command(['shell', 'true']))):
        t0 = time.perf_counter()
        fn()
        out[part].append(ms(t0))
      home()
      touch()
      split_screenshot()
  finally:
    sim.close()
  print(json.dumps(out))


if __name__ == '__main__':
  main()
