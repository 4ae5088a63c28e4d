"""The environment API's step through awb_env, against a running `awb env serve` (bench/env.ts starts it).

Prints one JSON object: per-step round trips (the Session API's step, in ms) with a tree-only observation, with a
540x1200 PNG (decoded to an array, as an agent reads it; and kept as bytes), and with what AndroidWorld's get_state
gives (full-size raw RGB pixels + the UI elements); and the Gymnasium vector env's throughput with 8 sessions,
tree only. Every step changes the screen (home, then an app, in turn), so nothing is served from a cache.

Usage: env_step.py URL SAMPLES VECTOR_SECONDS
"""

import json
import sys
import time

import gymnasium as gym
import numpy as np

import awb_env
from awb_env import EnvClient

APPS = ["Contacts", "Clock", "Settings", "Markor", "Files"]


def step_times(client: EnvClient, n: int, observation: dict, png: str = "array") -> list[float]:
    s = client.create({"template": "ClockStopwatchRun", "seed": 0}, png=png, agent="bench", run="bench env steps",
                      observation=observation, max_steps=1000, record={"screenshots": "none"})
    s.reset()
    out = []
    for i in range(n):
        action = {"action_type": "navigate_home"} if i % 2 else {"action_type": "open_app", "app_name": APPS[(i // 2) % len(APPS)]}
        t0 = time.perf_counter()
        r = s.step(action)
        out.append((time.perf_counter() - t0) * 1000)
        assert not r.info.get("error"), r.info
    s.close()
    return out[2:]  # the first two warm the server's caches of each app


def vector_rate(url: str, seconds: float) -> dict:
    envs = gym.make_vec("awb/AndroidTask-v0", num_envs=8, server=url, split="unseen-instance", part="train", agent="bench-vec",
                        run="bench env vector", tree="xml", record="none")
    envs.reset(seed=0)
    actions = [{"action_type": "scroll", "direction": "down"}, {"action_type": "scroll", "direction": "up"},
               {"action_type": "navigate_back"}, {"action_type": "wait"}]
    steps = 0
    i = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        envs.step([actions[(i + k) % len(actions)] for k in range(8)])
        steps += 8
        i += 1
    rate = steps / (time.perf_counter() - t0)
    envs.close()
    return {"steps_per_s": rate, "steps": steps}


def main() -> None:
    url, n, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    client = EnvClient(url)
    out = {
        "tree_only": step_times(client, n, {"screenshot": "none", "tree": "xml"}),
        "png_half_decoded": step_times(client, max(20, n // 3), {"screenshot": "png", "scale": 0.5, "tree": "xml"}),
        "png_half_bytes": step_times(client, max(20, n // 3), {"screenshot": "png", "scale": 0.5, "tree": "xml"}, png="bytes"),
        "raw_full_elements": step_times(client, max(12, n // 8), {"screenshot": "raw", "scale": 1, "tree": "elements"}),
    }
    client.close()
    out["vector8_tree_only"] = vector_rate(url, seconds)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
