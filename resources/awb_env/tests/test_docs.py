"""The quick start a researcher copies (the package README and docs/outside-agents.md) runs and solves its task."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def quick_start(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    section = text[text.index("## Quick start"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)  # type: ignore[union-attr]


def test_the_quick_starts_are_one_text() -> None:
    assert quick_start(ROOT / "resources" / "awb_env" / "README.md") == quick_start(ROOT / "docs" / "outside-agents.md")


def test_the_quick_start_solves_its_task(capsys: pytest.CaptureFixture[str]) -> None:
    code = quick_start(ROOT / "docs" / "outside-agents.md")
    assert len(code.strip().splitlines()) <= 22
    exec(compile(code, "quick-start", "exec"), {"__name__": "__quick_start__"})
    out = capsys.readouterr().out.strip().splitlines()
    assert out[0].startswith("Create a new contact for Alice Smith.") and out[0].endswith("(1200, 540, 3)")
    assert out[-1].startswith("True [{'name': 'contact Alice Smith has number 2412043170', 'ok': True")
