"""The front end's fast tests (tests/js/, run under node --test) read traces recorded from
poolgrad.trace(); they must be what poolgrad answers today."""

from scripts import record_traces as recorder  # the repository is on the import path (tests/conftest.py)


def test_recorded_traces_are_what_poolgrad_answers_now():
    assert recorder.OUTPUT.read_text(encoding="utf-8") == recorder.record(), (
        "tests/js/traces.json is out of date: run python scripts/record_traces.py")
