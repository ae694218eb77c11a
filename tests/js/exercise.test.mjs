import assert from "node:assert/strict";
import { test } from "node:test";

import {
  EXERCISES, ExerciseRunner, caseGrids, caseState, dedent, indent, mismatchMarks, newline, panelMarks, parseAnswer, resultText,
  shownPair, storageKey,
} from "../../web/exercise/exercise.js";
import { serialiseState } from "../../web/widget/state.js";

// The checker's answer for last_max_wins (tests/exercise_solutions.py) on the ties case,
// as poolgrad.exercise_check writes it.
const TIES = {
  state: "fail",
  exercise: "backward",
  rule: "ties",
  sentence: "Case 6 of 13 fails on ties: the first maximum in reading order wins. 2 cells differ from the reference: the case is loaded into the grids, wrong input-gradient cells marked.",
  case: {
    number: 6, total: 13, rule: "ties",
    x: [[5, 5], [5, 5]], dtype: null, pool_size: 2, stride: 2, grad_output: [[1]],
    expected: [[1.0, 0.0], [0.0, 0.0]], got: [[0.0, 0.0], [0.0, 1.0]],
  },
  mismatches: [
    { grid: "grad-input", row: 0, col: 0, expected: 1.0, got: 0.0 },
    { grid: "grad-input", row: 1, col: 1, expected: 0.0, got: 1.0 },
  ],
};

test("a failing backward case becomes the widget state that shows it, through the hash", () => {
  const answer = parseAnswer(JSON.stringify(TIES), "backward");
  const state = caseState("backward", answer.case, answer.mismatches);
  assert.equal(serialiseState(state), "#k=2&s=2&p=0&d=1&mode=max&grad=1&x=5,5;5,5&g=1");
  assert.deepEqual([...mismatchMarks(answer.mismatches)], [
    ["grad-input:0,0", { expected: "1", got: "0" }],
    ["grad-input:1,1", { expected: "0", got: "1" }],
  ]);
  assert.equal(resultText("backward", answer), `${TIES.sentence} The case: a 2 × 2 input_map, pool_size=2, stride=2. Wrong: input gradient (0,0) expected 1, got 0; input gradient (1,1) expected 0, got 1. The grids show the right answer; cells marked ≠ are where yours differs.`);
});

// The checker's answer for CONV["unweighted"] (tests/exercise_solutions.py): dL/dW as if
// dL/dY were ones, on the lesson's conv example, as poolgrad.exercise_check writes it (the
// mismatches cut to two).
const LESSON_X = [[3, 0, 1, 2, 7], [1, 5, 8, 9, 3], [2, 7, 2, 5, 1], [0, 1, 3, 1, 7], [4, 2, 1, 6, 2]];
const LESSON_GRAD_X = [[1, 2, 2, -2, -3], [5, 7, 4, -7, -9], [12, 15, 6, -15, -18], [11, 13, 4, -13, -15], [7, 8, 2, -8, -9]];
const UNWEIGHTED = {
  state: "fail",
  exercise: "conv2d_backward",
  rule: "example",
  sentence: "Case 1 of 8 fails on the lesson's example. 9 cells differ from the reference (9 of dL/dW): the case is shown below, wrong cells marked.",
  case: {
    number: 1, total: 8, rule: "example",
    x: LESSON_X, w: [[1, 0, -1], [1, 0, -1], [1, 0, -1]], grad_output: [[1, 2, 3], [4, 5, 6], [7, 8, 9]],
    expected: { grad_w: [[171, 232, 184], [125, 156, 166], [98, 127, 147]], grad_x: LESSON_GRAD_X },
    got: { grad_w: [[29, 39, 38], [29, 41, 39], [22, 28, 28]], grad_x: LESSON_GRAD_X },
  },
  mismatches: [
    { grid: "grad-weight", row: 0, col: 0, expected: 171.0, got: 29.0 },
    { grid: "grad-weight", row: 0, col: 1, expected: 232.0, got: 39.0 },
  ],
};

test("a failing conv2d_backward case becomes the panel's grids, its wrong dL/dW cells marked", () => {
  const answer = parseAnswer(JSON.stringify(UNWEIGHTED), "conv2d_backward");
  assert.deepEqual(caseGrids("conv2d_backward", answer.case).map(({ name, title, values }) => [name, title, values.length, values[0].length]), [
    ["exercise-x", "x", 5, 5],
    ["exercise-w", "w", 3, 3],
    ["exercise-grad-output", "grad_output (dL/dY)", 3, 3],
    ["exercise-grad-weight", "dL/dW, the right answer", 3, 3],
    ["exercise-grad-input", "dL/dX, the right answer", 5, 5],
  ]);
  assert.deepEqual(caseGrids("conv2d_backward", answer.case)[3].values[0], [171, 232, 184]);
  assert.deepEqual([...panelMarks(answer.mismatches)], [
    ["exercise-grad-weight:0,0", { expected: "171", got: "29" }],
    ["exercise-grad-weight:0,1", { expected: "232", got: "39" }],
  ]);
  assert.equal(resultText("conv2d_backward", answer), `${UNWEIGHTED.sentence} The case: x 5 × 5, w 3 × 3, grad_output 3 × 3. Wrong: dL/dW (0,0) expected 171, got 29; dL/dW (0,1) expected 232, got 39. The grids show the right answer; cells marked ≠ are where yours differs.`);
  // A pooling grid's name is not one of conv2d_backward's, and a case without its dL/dX is not drawn.
  assert.deepEqual(parseAnswer(JSON.stringify({ ...UNWEIGHTED, mismatches: [{ grid: "output", row: 0, col: 0, expected: 1, got: 2 }] }), "conv2d_backward").mismatches, []);
  const noGradX = { ...UNWEIGHTED, case: { ...UNWEIGHTED.case, expected: { grad_w: UNWEIGHTED.case.expected.grad_w } } };
  assert.equal(parseAnswer(JSON.stringify(noGradX), "conv2d_backward").case, null);
});

test("a failing mse_loss_backward case shows prediction, target and the right gradient", () => {
  const answer = parseAnswer(JSON.stringify({
    state: "fail", sentence: "Case 2 of 8 fails on the mean.",
    case: { number: 2, total: 8, rule: "mean", prediction: [[1, 2, 3], [4, 5, 6]], target: [[0, 0, 0], [0, 0, 0]],
      expected: [[1 / 3, 2 / 3, 1], [4 / 3, 5 / 3, 2]], got: [[0.5, 1, 1.5], [2, 2.5, 3]] },
    mismatches: [{ grid: "grad-prediction", row: 0, col: 0, expected: 1 / 3, got: 0.5 }],
  }), "mse_loss_backward");
  assert.deepEqual(caseGrids("mse_loss_backward", answer.case).map(({ name }) => name),
    ["exercise-prediction", "exercise-target", "exercise-grad-prediction"]);
  assert.deepEqual(panelMarks(answer.mismatches).get("exercise-grad-prediction:0,0"), { expected: "0.3333", got: "0.5" });
  assert.equal(resultText("mse_loss_backward", answer), "Case 2 of 8 fails on the mean. The case: prediction and target 2 × 3. Wrong: dL/dprediction (0,0) expected 0.3333, got 0.5. The grids show the right answer; cells marked ≠ are where yours differs.");
});

test("a failing forward case selects its first wrong output and keeps gradients off", () => {
  const answer = parseAnswer(JSON.stringify({
    state: "fail", sentence: "Case 4 of 13 fails on sizes that do not divide.", line: null,
    case: { number: 4, total: 13, x: [[0, 0.5, 1], [1.5, 2, 2.5]], dtype: "float64", pool_size: 1, stride: 1, grad_output: null },
    mismatches: [{ grid: "output", row: 1, col: 2, expected: 2.5, got: "NaN" }],
  }), "forward");
  const state = caseState("forward", answer.case, answer.mismatches);
  assert.equal(serialiseState(state), "#k=1&s=1&p=0&d=1&mode=max&grad=0&sel=1,2&x=0,0.5,1;1.5,2,2.5");
  assert.deepEqual(mismatchMarks(answer.mismatches).get("output:1,2"), { expected: "2.5", got: "NaN" });
});

test("a wrong cell shows every digit when 4 decimals would hide the difference", () => {
  assert.deepEqual(shownPair(0.6667, 2 / 3), { expected: "0.6667", got: "0.6666666666666666" });
  assert.deepEqual(shownPair(3, 2), { expected: "3", got: "2" });
  assert.deepEqual(shownPair(1, "Infinity"), { expected: "1", got: "∞" });
});

test("only answers the checker could have written are accepted", () => {
  assert.equal(parseAnswer("not json", "forward"), null);
  assert.equal(parseAnswer(JSON.stringify({ state: "pass" }), "forward"), null, "no sentence");
  assert.equal(parseAnswer(JSON.stringify({ state: "hacked", sentence: "x" }), "forward"), null);
  assert.equal(parseAnswer("[1, 2]", "forward"), null);
  // A case that does not fit the widget (too large, not numbers, a bad window) is not loaded.
  const huge = { ...TIES, case: { ...TIES.case, x: Array.from({ length: 17 }, () => [1]) } };
  assert.equal(parseAnswer(JSON.stringify(huge), "backward").case, null);
  assert.deepEqual(parseAnswer(JSON.stringify(huge), "backward").mismatches, []);
  const text = { ...TIES, case: { ...TIES.case, x: [["<img>", 1], [1, 1]] } };
  assert.equal(parseAnswer(JSON.stringify(text), "backward").case, null);
  const window = { ...TIES, case: { ...TIES.case, pool_size: 0 } };
  assert.equal(parseAnswer(JSON.stringify(window), "backward").case, null);
  const noGradient = { ...TIES, case: { ...TIES.case, grad_output: null } };
  assert.equal(parseAnswer(JSON.stringify(noGradient), "backward").case, null);
  // Wrong cells of another grid, or with a non-number, are dropped.
  const marks = { ...TIES, mismatches: [...TIES.mismatches, { grid: "input", row: 0, col: 0, expected: 1, got: 2 }, { grid: "output", row: 0, col: 0, expected: "x", got: 1 }] };
  assert.equal(parseAnswer(JSON.stringify(marks), "backward").mismatches.length, 2);
  assert.equal(parseAnswer(JSON.stringify({ state: "pass", sentence: "x".repeat(5000) }), "forward").sentence.length, 1200);
});

test("Tab indents to the next stop or the selected lines; Shift+Tab takes one level off", () => {
  assert.deepEqual(indent("ab", 1, 1), { text: "a   b", start: 4, end: 4 });
  assert.deepEqual(indent("x = 1", 0, 0), { text: "    x = 1", start: 4, end: 4 });
  assert.deepEqual(indent("a\nb\nc", 0, 3), { text: "    a\n    b\nc", start: 4, end: 11 });
  assert.deepEqual(dedent("    a\n  b", 6, 9), { text: "    a\nb", start: 6, end: 7 });
  assert.deepEqual(dedent("        x", 9, 9), { text: "    x", start: 5, end: 5 });
  assert.deepEqual(dedent("    a\n    b", 2, 11), { text: "a\nb", start: 0, end: 3 });
  assert.deepEqual(dedent("x", 1, 1), { text: "x", start: 1, end: 1 });
});

test("Enter keeps the indentation, one level more after a colon", () => {
  assert.deepEqual(newline("def f():", 8, 8), { text: "def f():\n    ", start: 13, end: 13 });
  assert.deepEqual(newline("    x = 1", 9, 9), { text: "    x = 1\n    ", start: 14, end: 14 });
});

test("the starters define the exercise's function with a docstring and a stub body", () => {
  assert.match(EXERCISES.forward.starter, /^def max_pool2d\(image, pool_size=2\):$/m);
  assert.match(EXERCISES.backward.starter, /^def max_pool2d_backward\(input_map, grad_output, pool_size=2, stride=2\):$/m);
  assert.match(EXERCISES.conv2d_backward.starter, /^def conv2d_backward\(x, w, grad_output\):$/m);
  assert.match(EXERCISES.mse_loss_backward.starter, /^def mse_loss_backward\(prediction, target\):$/m);
  for (const exercise of Object.values(EXERCISES)) assert.match(exercise.starter, /"""[\s\S]+"""\n    raise NotImplementedError\n$/);
  assert.equal(storageKey("/course/pooling/", "forward"), "poolgrad:/course/pooling/:exercise:forward");
});

// Stand-ins for the two workers. The learner's answers each run with `reply(run)` (a list
// of messages; null: never); the judge with `judge(request)` (the request parsed).
class FakeWorker extends EventTarget {
  constructor(ready, reply) {
    super();
    this.reply = reply;
    this.terminated = false;
    this.posted = [];
    queueMicrotask(() => this.emit(ready));
  }

  emit(data) {
    this.dispatchEvent(Object.assign(new Event("message"), { data }));
  }

  postMessage(message) {
    this.posted.push(message);
    const answer = this.reply(message);
    if (answer !== null) setTimeout(() => !this.terminated && answer.forEach((data) => this.emit(data)), 1);
  }

  terminate() {
    this.terminated = true;
  }
}

const CASES = { forward: "[\"forward inputs\"]", backward: "[]", conv2d_backward: "[]", mse_loss_backward: "[]" };

// A runner whose learners answer with `reply` and whose judge answers with `judge`;
// `starts` (per role, a list) replaces the first workers' ready messages, in order.
function fakeRunner(reply, judge, { locked = [], timeoutMs = 1000, starts = {} } = {}) {
  const workers = { judge: [], learner: [] };
  const runner = new ExerciseRunner((role) => {
    const first = (starts[role] ?? [])[workers[role].length];
    const worker = role === "judge"
      ? new FakeWorker(first ?? { type: "ready", cases: CASES }, (message) => [{ type: "verdict", id: message.id, answer: JSON.stringify(judge(JSON.parse(message.request))) }])
      : new FakeWorker(first ?? { type: "ready", locked }, reply);
    workers[role].push(worker);
    return worker;
  }, timeoutMs);
  return { runner, workers };
}

const judgeByReports = (request) => (request.ended
  ? { state: request.ended.how === "timeout" ? "timeout" : "error", sentence: JSON.stringify(request.ended) }
  : { state: "pass", sentence: `${request.reports.length} reports: ${request.reports.join(",")}` });

test("each run has a fresh worker, terminated after it; the judge gets its reports and the inputs went to the learner", async () => {
  const { runner, workers } = fakeRunner((run) => [
    { type: "report", id: run.id, report: "a" }, { type: "report", id: run.id, report: "b" }, { type: "done", id: run.id, ms: 3 },
  ], judgeByReports);
  const first = await runner.run("forward", "code");
  assert.deepEqual([first.state, first.sentence, first.ms], ["pass", "2 reports: a,b", 3]);
  assert.deepEqual(workers.learner[0].posted.map(({ exercise, source, cases }) => [exercise, source, cases]),
    [["forward", "code", CASES.forward]]);
  assert.equal(workers.learner[0].terminated, true);
  // The next Run's worker was started as soon as the first ended, and only one judge ever.
  assert.equal(workers.learner.length, 2);
  await runner.run("forward", "code");
  assert.equal(workers.learner.length, 3);
  assert.equal(workers.judge.length, 1);
  assert.equal(workers.judge[0].terminated, false);
});

test("a run that does not end in time is judged as a timeout with the reports it sent", async () => {
  const { runner, workers } = fakeRunner((run) => [{ type: "report", id: run.id, report: "a" }], judgeByReports, { timeoutMs: 20 });
  const timedOut = await runner.run("forward", "while True: pass");
  assert.deepEqual([timedOut.state, timedOut.sentence], ["timeout", JSON.stringify({ how: "timeout", seconds: 0.02 })]);
  assert.equal(workers.learner[0].terminated, true);
});

test("a crash is passed on to the judge; messages for another run are ignored", async () => {
  const { runner } = fakeRunner((run) => [
    { type: "report", id: run.id + 1, report: "forged" }, { type: "done", id: String(run.id) }, "a string",
    { type: "crashed", id: run.id, error: "Exit: Program terminated with exit(0)" },
  ], judgeByReports);
  const answer = await runner.run("forward", "x");
  assert.deepEqual([answer.state, answer.sentence], ["error", JSON.stringify({ how: "crash", detail: "Exit: Program terminated with exit(0)" })]);
});

test("an unreadable verdict is an error", async () => {
  const { runner } = fakeRunner((run) => [{ type: "done", id: run.id }], () => ({ state: "pass" }));
  const answer = await runner.run("forward", "x");
  assert.equal(answer.state, "error");
  assert.match(answer.sentence, /not readable/);
});

test("a worker that could not lock storage away never runs learner code", async () => {
  const { runner, workers } = fakeRunner(() => null, judgeByReports, { locked: ["indexedDB"] });
  const answer = await runner.run("forward", "x");
  assert.equal(answer.state, "error");
  assert.match(answer.sentence, /could not shut away indexedDB/);
  assert.deepEqual(workers.learner[0].posted, []);
});

const CRASHED_START = { type: "boot-error", error: "RuntimeError: call_indirect to a null table entry" };

test("a start that crashed is made once more before the Run says so, for either worker", async () => {
  const done = (run) => [{ type: "done", id: run.id }];
  for (const role of ["learner", "judge"]) {
    const { runner, workers } = fakeRunner(done, judgeByReports, { starts: { [role]: [CRASHED_START] } });
    const answer = await runner.run("forward", "x");
    assert.equal(answer.state, "pass", role);
    assert.equal(workers[role].length, role === "learner" ? 3 : 2); // the crashed, its replacement (and the next Run's)
    assert.equal(workers[role][0].terminated, true);
  }
  const { runner, workers } = fakeRunner(done, judgeByReports, { starts: { learner: [CRASHED_START, CRASHED_START] } });
  const answer = await runner.run("forward", "x");
  assert.equal(answer.state, "error");
  assert.match(answer.sentence, /^Python for the exercises could not start: RuntimeError: call_indirect to a null table entry\. Run again to retry\.$/);
  assert.deepEqual(workers.learner.slice(0, 2).map((worker) => worker.posted), [[], []]);
});

test("a worker refused for what it could not lock away is not started again", async () => {
  const { runner, workers } = fakeRunner(() => null, judgeByReports, { starts: { learner: [{ type: "ready", locked: ["caches"] }] } });
  const answer = await runner.run("forward", "x");
  assert.match(answer.sentence, /could not shut away caches/);
  assert.equal(workers.learner.length, 1);
});
