// Module worker that judges the exercise panel's Runs: it holds every case's expected
// answer (poolgrad.exercise_check computes them on import) and compares what the learner's
// code returned, as plain data, with them. It never runs learner code: that runs in a
// fresh worker per Run (exercise-worker.js), so nothing a Run does can reach the judge.
// Started by the panel on first use, with the site's root as its name, and kept.
//
// Protocol: it posts {type: "ready", cases: {forward, backward, conv2d_backward,
// mse_loss_backward}} (each the JSON text of the cases' inputs, which the page hands on untouched) or {type: "boot-error", error}; the page
// posts {id, request} (exercise_check.run_check's JSON: the exercise, the Run's reports and
// how it ended) and gets {type: "verdict", id, answer} ({type: "verdict", id, failure} if the judge broke).

import { startExercisePython } from "./exercise-python.js";

const booted = startExercisePython(self.name, "from poolgrad.exercise_check import FUNCTION_NAMES, case_inputs_json, run_check\n")
  .then(({ pyodide }) => {
    // Every exercise the checker knows (FUNCTION_NAMES), its cases' inputs as JSON text.
    const cases = JSON.parse(pyodide.runPython("import json\njson.dumps({name: case_inputs_json(name) for name in FUNCTION_NAMES})"));
    self.postMessage({ type: "ready", cases });
    return pyodide.globals.get("run_check");
  });
booted.catch((error) => self.postMessage({ type: "boot-error", error: String(error?.message ?? error) }));

self.addEventListener("message", async (event) => {
  const { id, request } = event.data ?? {};
  const runCheck = await booted;
  try {
    self.postMessage({ type: "verdict", id, answer: runCheck(String(request)) });
  } catch (error) {
    self.postMessage({ type: "verdict", id, failure: String(error?.message ?? error).split("\n").slice(-2).join(" ").slice(0, 300) });
  }
});
