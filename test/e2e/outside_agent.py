"""An outside agent for the Chromium e2e test of watching and breaking it (test/e2e/outside-agent.test.ts).

It speaks the environment protocol (docs/env-protocol.md) with the `websockets` package, as a researcher's Python agent
would, and does what the test tells it, one command a line on stdin: `reset`, `step`, `close`. It writes one JSON line
on stdout per result and per event the server sends (a step held in the workbench, released), so the test sees the
agent's side of every pause, override and takeover. Each step sends `wait` with a thought, the model reply it "came
from", and a prompt in the chat-messages form with the screenshot as a base64 data URL (what the replay must show by
its size, not its bytes).

Usage: python outside_agent.py ws://127.0.0.1:PORT/env?token=TOKEN
"""

import base64
import json
import sys

from websockets.sync.client import connect

# 36 kB of "screenshot": the data URL in every prompt (48 kB of base64).
IMAGE = base64.b64encode(bytes(range(256)) * 141).decode("ascii")


def emit(line):
    print(json.dumps(line), flush=True)


def prompt(step):
    return [
        {"role": "system", "content": "You operate an Android phone. Reply with a thought and one action."},
        {"role": "user", "content": [
            {"type": "text", "text": f"Step {step}: start the stopwatch."},
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{IMAGE}"}},
        ]},
    ]


def main(url):
    with connect(url, max_size=None, open_timeout=20) as ws:
        last_id = 0

        def request(op, **args):
            nonlocal last_id
            last_id += 1
            ws.send(json.dumps({"id": last_id, "op": op, **args}))
            while True:
                frame = ws.recv()
                if isinstance(frame, bytes):
                    raise SystemExit(f"{op}: a binary frame, though this agent asks for no images")
                msg = json.loads(frame)
                if "id" not in msg:
                    emit({"event": msg.get("event"), "session": msg.get("session"), "reason": msg.get("reason")})
                    continue
                if msg["id"] != last_id:
                    raise SystemExit(f"{op}: the answer to request {msg['id']}, expected {last_id}")
                if not msg["ok"]:
                    emit({"error": msg["error"], "op": op})
                    raise SystemExit(f"{op}: {msg['error']['name']}: {msg['error']['message']}")
                return msg["result"]

        request("hello", protocol=1, client="e2e-outside-agent")
        created = request(
            "create",
            task={"template": "ClockStopwatchRun", "seed": 2},
            agent="e2e-agent",
            run="e2e outside run",
            observation={"screenshot": "none", "tree": "none"},
            record={"screenshots": "half"},
            max_steps=40,
        )
        emit({"created": created})
        session = created["session"]
        steps = 0
        for line in sys.stdin:
            command = line.strip()
            if command == "reset":
                emit({"reset": request("reset", session=session)["info"]})
            elif command == "step":
                steps += 1
                r = request(
                    "step", session=session, action={"action_type": "wait"}, thought=f"step {steps}: wait for the screen",
                    prompt=prompt(steps), reply=f"Thought: step {steps}, the screen is loading.\nAction: wait()",
                )
                emit({"step": steps, "info": r["info"], "terminated": r["terminated"], "truncated": r["truncated"]})
            elif command == "close":
                request("close", session=session)
                emit({"closed": session})
                return
            elif command:
                raise SystemExit(f"unknown command {command!r}: reset, step or close")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: outside_agent.py ws://127.0.0.1:PORT/env?token=TOKEN")
    main(sys.argv[1])
