"""UI-TARS's own parser (PyPI ui-tars) on every line of a reply corpus: prints, as one JSON array, what each reply executes.

Usage: python ui_tars_official.py CORPUS.jsonl

Each corpus line is {"reply", "screen": [w, h], "image"?: [w, h], "mode"?: "v1" | "1.5"}. The reply goes through
parse_action_to_structure_output (v1: relative 0-1000, factor 1000; 1.5: model_type qwen25vl, absolute pixels of the
smart-resized image, the package's own min/max pixels) and parsing_response_to_pyautogui_code with the screen as the
image and scale_factor 1, so points come out in device pixels. Before parsing, <|box_start|>/<|box_end|> are dropped:
they are special tokens the server removes from the text it returns (vLLM's skip_special_tokens), so the official
parser never sees them.

Per line: {"actions": [...]} or {"error": "..."} when the official code raises. Each action, in neutral terms:
  {"kind": "tap" | "long_press", "point": [x, y]}      click/left_single (pyautogui's click), long_press (same maths)
  {"kind": "type", "text": t, "enter": bool}            content as parsed, trailing newlines off; enter as pyautogui presses it
  {"kind": "scroll", "direction": d, "point": [x, y] | null}
  {"kind": "drag", "point": [x, y], "end": [x, y]}
  {"kind": "key", "keys": [...]}                        hotkey, as pyautogui.hotkey gets the keys
  {"kind": "open_app", "text": app}, {"kind": "home"}, {"kind": "back"}, {"kind": "wait"}
  {"kind": "finished", "text": content}, {"kind": "call_user"}
  {"kind": "noop", "name": n}                           parsed, but nothing would execute (empty type, drag without end …)
  {"kind": "other", "name": n}                          an action outside the mobile action space (left_double, hover …)
"""
import ast
import contextlib
import io
import json
import re
import sys

from ui_tars.action_parser import parse_action_to_structure_output, parsing_response_to_pyautogui_code

BOX_TOKENS = re.compile(r"<\|box_(start|end)\|>")


def pyautogui_calls(code):
    """(function, args) of each pyautogui.* line of the generated code."""
    out = []
    for m in re.finditer(r"^pyautogui\.(\w+)\((.*)\)$", code, re.M):
        node = ast.parse(f"f({m.group(2)})", mode="eval").body
        args = [ast.literal_eval(a) for a in node.args]
        out.append((m.group(1), args))
    return out


def box_point(value, width, height, centre=True):
    box = eval(value)  # the structure output's own "[x1, y1, x2, y2]" string of relative floats
    if centre:
        return [(box[0] + box[2]) / 2 * width, (box[1] + box[3]) / 2 * height]
    return [box[0] * width, box[1] * height]


def strip_newlines(content):
    while True:
        if content.endswith("\n"):
            content = content[:-1]
        elif content.endswith("\\n"):
            content = content[:-2]
        else:
            return content


def neutral(action, width, height):
    kind = action["action_type"]
    inputs = action["action_inputs"]
    code = parsing_response_to_pyautogui_code(action, height, width, scale_factor=1)
    calls = pyautogui_calls(code)
    if kind in ("click", "left_single"):
        (_, args), = [c for c in calls if c[0] == "click"]
        return {"kind": "tap", "point": args[:2]}
    if kind == "long_press":
        if "start_box" not in inputs:
            raise ValueError("long_press without start_box")
        return {"kind": "long_press", "point": box_point(inputs["start_box"], width, height)}
    if kind == "type":
        content = inputs.get("content", "")
        if not content:
            return {"kind": "noop", "name": kind}
        return {"kind": "type", "text": strip_newlines(content), "enter": ("press", ["enter"]) in calls}
    if kind == "scroll":
        point = box_point(inputs["start_box"], width, height, centre=False) if "start_box" in inputs else None
        return {"kind": "scroll", "direction": inputs.get("direction", ""), "point": point}
    if kind == "drag":
        moves = {name: args for name, args in calls if name in ("moveTo", "dragTo")}
        if not moves:
            return {"kind": "noop", "name": kind}
        return {"kind": "drag", "point": moves["moveTo"][:2], "end": moves["dragTo"][:2]}
    if kind == "hotkey":
        keys = [args for name, args in calls if name == "hotkey"]
        return {"kind": "key", "keys": keys[0]} if keys else {"kind": "noop", "name": kind}
    if kind == "open_app":
        return {"kind": "open_app", "text": inputs["app_name"]} if inputs.get("app_name") else {"kind": "noop", "name": kind}
    simple = {"press_home": "home", "press_back": "back", "wait": "wait", "call_user": "call_user"}
    if kind in simple:
        return {"kind": simple[kind]}
    if kind == "finished":
        return {"kind": "finished", "text": inputs.get("content", "")}
    return {"kind": "other", "name": kind}


def run(line):
    width, height = line["screen"]
    image_w, image_h = line.get("image", line["screen"])
    v15 = line.get("mode", "v1") == "1.5"
    reply = BOX_TOKENS.sub("", line["reply"])
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # the parser prints its failures
            parsed = parse_action_to_structure_output(
                reply, 1000, image_h, image_w, model_type="qwen25vl" if v15 else "qwen2vl")
            return {"actions": [neutral(a, width, height) for a in parsed]}
    except Exception as e:  # the official code raising is a result: ours must refuse the reply too
        return {"error": f"{type(e).__name__}: {e}"}


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        lines = [json.loads(t) for t in f if t.strip()]
    json.dump([run(line) for line in lines], sys.stdout)


if __name__ == "__main__":
    main()
