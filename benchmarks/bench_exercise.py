"""Benchmark of the exercise panel: how long Run takes, cold and warm, in headless Chromium.

Run it with `python benchmarks/bench_exercise.py [--runs N]` or through `python build.py
bench`. It builds dist/ when dist/build-info.json is missing and serves it on 127.0.0.1
with a request log. Each run opens a fresh browser context (empty HTTP cache, no service
worker), waits for the widget to be ready, and then:

* cold: puts a correct max_pool2d in the editor and presses Run without focusing the panel
  first, so the exercise worker starts at Run. The figure is the page's own
  window.poolgradWidget.exerciseTimings.lastRunMs: from the click to the result, Python's
  start included. The files the server sent after Run (the worker's script; the runtime
  and the NumPy snapshot again only when the HTTP cache did not keep them) are counted.
* warm: five more runs of each of the four exercises, each once the next Run's worker (started in the
  background when a Run ends) is up, as after a learner's edit: from the click to the
  result (lastRunMs) and the learner's code on every case inside its worker (lastCheckMs).
* back to back: the same, each Run pressed the moment the previous one ended, so that it
  waits for its fresh worker's start.

Medians over the runs are printed; nothing is asserted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import sitebuild  # noqa: E402
from exercise_solutions import BACKWARD, CONV, FORWARD, MSE  # noqa: E402

WARM_RUNS = 5

#: A correct answer to each exercise, the code the warm runs put in the editor.
ANSWERS = {"forward": FORWARD["numpy"], "backward": BACKWARD["loops"], "conv2d_backward": CONV["scatter"],
           "mse_loss_backward": MSE["right"]}

RUN_AND_WAIT = """async ([exercise, code, whenReady]) => {
    while (whenReady && !window.poolgradWidget.exerciseTimings.nextRunReady) await new Promise((resolve) => setTimeout(resolve, 5));
    const pick = document.querySelector('#exercise-pick');
    if (pick.value !== exercise) {
        pick.value = exercise;
        pick.dispatchEvent(new Event('change'));
    }
    document.querySelector('#exercise-code').value = code;
    const result = document.querySelector('#exercise-result');
    document.querySelector('#exercise-run').click();
    while (result.dataset.state === 'running') await new Promise((resolve) => setTimeout(resolve, 5));
    const { lastRunMs, lastCheckMs } = window.poolgradWidget.exerciseTimings;
    return { state: result.dataset.state, lastRunMs, lastCheckMs };
}"""


def one_run(browser, url, server_log):
    context = browser.new_context(service_workers="block")
    page = context.new_page()
    page.goto(url)
    page.locator('#status[data-state="ready"]').wait_for(timeout=180_000)
    before = len(server_log)
    cold = page.evaluate(RUN_AND_WAIT, ["forward", FORWARD["numpy"], False])
    served = [str(request) for request in server_log[before:]]
    warm = {**{exercise: [] for exercise in ANSWERS}, "back to back": []}
    for _ in range(WARM_RUNS):
        for exercise, code in ANSWERS.items():
            warm[exercise].append(page.evaluate(RUN_AND_WAIT, [exercise, code, True]))
        warm["back to back"].append(page.evaluate(RUN_AND_WAIT, ["forward", FORWARD["numpy"], False]))
    context.close()
    for timing in [cold, *(timing for timings in warm.values() for timing in timings)]:
        if timing["state"] != "pass":
            raise SystemExit(f"bench_exercise: a correct answer did not pass: {timing}")
    return cold, served, warm


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="cold runs, each in a fresh browser context (default 3)")
    # `python build.py bench` hands every benchmark the same arguments: others' are ignored.
    args, _ = parser.parse_known_args(argv)
    dist = Path(sitebuild.paths.DIST)
    if not (dist / "build-info.json").is_file():
        sitebuild.build(quiet=True)
    executable = sitebuild.find_chromium()
    if not executable:
        raise SystemExit("bench_exercise: no Chromium (install Debian's chromium or set POOLGRAD_CHROMIUM)")
    from playwright.sync_api import sync_playwright

    server_log = []
    colds, warms = [], {**{exercise: [] for exercise in ANSWERS}, "back to back": []}
    with sitebuild.serving(dist, request_log=server_log) as site, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=sitebuild.CHROMIUM_ARGS)
        for number in range(1, args.runs + 1):
            cold, served, warm = one_run(browser, site + "index.html", server_log)
            colds.append(cold)
            for exercise in warms:
                warms[exercise] += warm[exercise]
            names = ", ".join(sorted({path.rsplit("/", 1)[-1] for path in served}))
            print(f"run {number}: first Run to result {cold['lastRunMs']:.0f} ms "
                  f"(check {cold['lastCheckMs']:.0f} ms); served after Run: {names}", flush=True)
        browser.close()

    def median(values):
        return f"{statistics.median(values):.0f} ms"

    print(f"cold (worker starts at Run): {median([c['lastRunMs'] for c in colds])} from Run to result, "
          f"median of {len(colds)}")
    for exercise, timings in warms.items():
        print(f"warm {exercise}: {median([t['lastRunMs'] for t in timings])} from Run to result, "
              f"{median([t['lastCheckMs'] for t in timings if t['lastCheckMs'] is not None])} running the cases, "
              f"median of {len(timings)}")


if __name__ == "__main__":
    main()
