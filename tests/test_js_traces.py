"""The front end's fast tests (tests/js/, run under node --test) read traces recorded from
poolgrad.trace(); they must be what poolgrad answers today."""

import importlib.util
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _recorder():
    spec = importlib.util.spec_from_file_location("record_traces", REPO / "scripts" / "record_traces.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_recorded_traces_are_what_poolgrad_answers_now():
    recorder = _recorder()
    assert recorder.OUTPUT.read_text(encoding="utf-8") == recorder.record(), (
        "tests/js/traces.json is out of date: run python scripts/record_traces.py")
