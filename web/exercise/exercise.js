// The exercise panel (#exercise): the learner writes max_pool2d or max_pool2d_backward (the
// pooling exercises) or conv2d_backward or mse_loss_backward (the chain's), Run runs it in a
// fresh Python of its own (exercise-worker.js, one per Run), has what it returned judged by
// poolgrad.exercise_check in another (exercise-judge.js), and the first failing case is
// shown with its wrong cells marked: a pooling case is loaded into the widget's grids; a
// chain case is a bare function call (no pooling or loss around it, and a dL/dY of its own,
// which the chain view's made-up gradients cannot hold), so its grids are drawn in the panel
// (case-view.js), beside the code, and the chain view the learner built stays as it was.
// The checker decides everything (which case fails, which cells are wrong, the sentence);
// this module only validates its answer, turns the case into a widget state or the panel's
// grids and the wrong cells into marks, and keeps the learner's code in localStorage.
//
// The workers start when the panel is first used (focus or a tap inside it), never at page
// load. A run that takes longer than RUN_TIMEOUT_MS (an endless loop) ends in "timeout";
// every Run's worker is terminated when it ends, and the widget's own worker, which draws
// the grids, never runs learner code.

import { isSentNumber, readStored, sizeText, writeStored } from "../widget/format.js";
import { mismatchMarks, shownPair } from "./marks.js";
import { MAX_SIDE, defaultState } from "../widget/state.js";
import { siteRoot } from "../runtime/site-root.js";
import { bindCaseKeys, hideCase, showCase } from "./case-view.js";

export { mismatchMarks, shownPair };

const RUN_TIMEOUT_MS = 5000;
const BOOT_TIMEOUT_MS = 120000;
const INDENT = "    ";
const MAX_SENTENCE = 1200;
const LISTED_MISMATCHES = 3;

export const EXERCISES = {
  forward: {
    task: "Write max_pool2d(image, pool_size=2): image is a 2-D NumPy array. Slide a pool_size × pool_size window with stride pool_size, keep each window's maximum, drop leftover rows and columns, and return a NumPy array of image's dtype.",
    starter: `import numpy as np


def max_pool2d(image, pool_size=2):
    """Max pooling with a pool_size x pool_size window and stride pool_size.

    image is a 2-D NumPy array. Rows and columns that do not fill a whole
    window are dropped. The result is a NumPy array of image's dtype.

    >>> max_pool2d(np.array([[1, 2, 3, 4], [5, 6, 7, 8],
    ...                      [9, 10, 11, 12], [13, 14, 15, 16]]))
    array([[ 6,  8],
           [14, 16]])
    """
    raise NotImplementedError
`,
  },
  backward: {
    task: "Write max_pool2d_backward(input_map, grad_output, pool_size=2, stride=2): lists in, lists out. Send each grad_output value to the input cell holding its window's maximum (the first in reading order when several tie); where windows overlap, gradients add up; round the results to 4 decimals.",
    starter: `def max_pool2d_backward(input_map, grad_output, pool_size=2, stride=2):
    """Route each upstream gradient to the maximum of its window.

    input_map and grad_output are lists of rows. Returns a list of rows
    shaped like input_map: each grad_output[i][j] lands on the first
    maximum (in reading order) of window (i, j); where windows overlap,
    the gradients add up. Values are rounded to 4 decimals.

    >>> max_pool2d_backward([[10, 20], [15, 5]], [[1]], 2, 2)
    [[0.0, 1.0], [0.0, 0.0]]
    """
    raise NotImplementedError
`,
  },
  conv2d_backward: {
    task: "Write conv2d_backward(x, w, grad_output) for one channel, stride 1, no padding: y[i, j] = Σ w[a, b]·x[i+a, j+b] (a cross-correlation, as in PyTorch) and grad_output is dL/dY. Return grad_w, grad_x, NumPy arrays shaped like w and x: one weight touches every output (dL/dW = x ⋆ dL/dY); one input feeds only its region P (dL/dX is the full correlation of dL/dY with w turned 180°). No rounding.",
    starter: `import numpy as np


def conv2d_backward(x, w, grad_output):
    """The gradients of y = conv2d(x, w): one channel, stride 1, no padding.

    x (H x W), w (kh x kw) and grad_output, dL/dY ((H-kh+1) x (W-kw+1)),
    are 2-D NumPy arrays of floats. Returns (grad_w, grad_x): dL/dW shaped
    like w, then dL/dX shaped like x.

    >>> grad_w, grad_x = conv2d_backward(np.array([[1., 2.], [3., 4.]]),
    ...                                  np.array([[0., 1.], [-1., 0.]]),
    ...                                  np.array([[2.]]))
    >>> grad_w
    array([[2., 4.],
           [6., 8.]])
    >>> grad_x
    array([[ 0.,  2.],
           [-2.,  0.]])
    """
    raise NotImplementedError
`,
  },
  mse_loss_backward: {
    task: "Write mse_loss_backward(prediction, target): two NumPy arrays of the same shape, and the loss L = mean((prediction − target)²) over all n cells. Return dL/dprediction, an array shaped like prediction: 2/n · (prediction − target). No rounding.",
    starter: `import numpy as np


def mse_loss_backward(prediction, target):
    """dL/dprediction for L = mean((prediction - target) ** 2).

    prediction and target are NumPy arrays of the same shape; the result
    has that shape too: one gradient per cell.

    >>> mse_loss_backward(np.array([[4., 2.], [3.5, 3.]]),
    ...                   np.array([[2., 1.], [0., 3.]]))
    array([[1.  , 0.5 ],
           [1.75, 0.  ]])
    """
    raise NotImplementedError
`,
  },
};

// The chain's exercises: their cases are drawn in the panel, not loaded into the widget.
const IN_PANEL = new Set(["conv2d_backward", "mse_loss_backward"]);

// The grids each exercise's wrong cells may be in (exercise_check's mismatches), and what
// the result line calls them.
const MISMATCH_GRIDS = {
  forward: { output: "output" },
  backward: { "grad-input": "input gradient" },
  conv2d_backward: { "grad-weight": "dL/dW", "grad-input": "dL/dX" },
  mse_loss_backward: { "grad-prediction": "dL/dprediction" },
};

// ---- the checker's answer: validated, then turned into a widget state and marks ----

const isCount = (value, max) => Number.isInteger(value) && value >= 0 && value <= max;

// A case holds numbers the hash can carry (state.js accepts magnitudes up to 1e15).
const finite = (value) => typeof value === "number" && Number.isFinite(value) && Math.abs(value) <= 1e15;

function isMatrix(value) {
  return Array.isArray(value) && value.length >= 1 && value.length <= MAX_SIDE
    && value.every((row) => Array.isArray(row) && row.length === value[0].length && row.length >= 1
      && row.length <= MAX_SIDE && row.every(finite));
}

function validCase(exercise, found) {
  if (!found || typeof found !== "object") return null;
  const counted = isCount(found.number, 1000) && isCount(found.total, 1000);
  if (exercise === "conv2d_backward") {
    return counted && [found.x, found.w, found.grad_output, found.expected?.grad_w, found.expected?.grad_x].every(isMatrix)
      ? found : null;
  }
  if (exercise === "mse_loss_backward") {
    return counted && [found.prediction, found.target, found.expected].every(isMatrix) ? found : null;
  }
  const backward = exercise === "backward";
  const ok = isMatrix(found.x)
    && isCount(found.pool_size, MAX_SIDE) && found.pool_size >= 1
    && isCount(found.stride, MAX_SIDE) && found.stride >= 1
    && (backward ? isMatrix(found.grad_output) : found.grad_output === null)
    && isCount(found.number, 1000) && isCount(found.total, 1000)
    && (found.dtype === null || typeof found.dtype === "string");
  return ok ? found : null;
}

function validMismatch(exercise, item) {
  return item && Object.hasOwn(MISMATCH_GRIDS[exercise] ?? {}, item.grid)
    && isCount(item.row, MAX_SIDE) && isCount(item.col, MAX_SIDE) && isSentNumber(item.expected) && isSentNumber(item.got);
}

// The worker's answer (JSON text) if it is one the checker could have written: a state,
// a sentence, and for a failing case the case and its wrong cells; otherwise null.
export function parseAnswer(text, exercise) {
  let answer;
  try {
    answer = JSON.parse(text);
  } catch {
    return null;
  }
  if (!answer || typeof answer !== "object" || !["pass", "fail", "error", "timeout"].includes(answer.state)) return null;
  if (typeof answer.sentence !== "string") return null;
  const found = answer.case === undefined ? null : validCase(exercise, answer.case);
  const mismatches = Array.isArray(answer.mismatches) ? answer.mismatches.filter((item) => validMismatch(exercise, item)) : [];
  return {
    state: answer.state,
    sentence: answer.sentence.slice(0, MAX_SENTENCE),
    line: Number.isInteger(answer.line) ? answer.line : null,
    case: found,
    mismatches: found ? mismatches : [],
  };
}

// The widget state that shows a case: its input, a pool_size window with its stride, max
// pooling, and for the backward exercise the gradient with the case's upstream values.
// The widget shows it as a state of its own. A forward case selects its first wrong output
// on purpose, so the link names it; otherwise the first output is selected implicitly, as
// on any fresh view, and the link leaves the selection out.
export function caseState(exercise, found, mismatches) {
  const backward = exercise === "backward";
  const picked = !backward && mismatches.length ? [mismatches[0].row, mismatches[0].col] : null;
  return Object.assign(defaultState(), {
    x: found.x.map((row) => row.slice()),
    k: [found.pool_size, found.pool_size],
    s: [found.stride, found.stride],
    mode: "max",
    grad: backward,
    g: backward ? found.grad_output.map((row) => row.slice()) : null,
    sel: picked ?? [0, 0],
    selImplicit: picked === null,
  });
}

// A chain case's grids, as the panel draws them ({name, title, values}): the function's
// arguments, then the right answer; `name` is the grid's data-grid, "exercise-" and the
// checker's name for a grid that can hold wrong cells.
export function caseGrids(exercise, found) {
  if (exercise === "conv2d_backward") {
    return [
      { name: "exercise-x", title: "x", values: found.x },
      { name: "exercise-w", title: "w", values: found.w },
      { name: "exercise-grad-output", title: "grad_output (dL/dY)", values: found.grad_output },
      { name: "exercise-grad-weight", title: "dL/dW, the right answer", values: found.expected.grad_w },
      { name: "exercise-grad-input", title: "dL/dX, the right answer", values: found.expected.grad_x },
    ];
  }
  return [
    { name: "exercise-prediction", title: "prediction", values: found.prediction },
    { name: "exercise-target", title: "target", values: found.target },
    { name: "exercise-grad-prediction", title: "dL/dprediction, the right answer", values: found.expected },
  ];
}

// The marks of a chain case's wrong cells, on the panel's grids.
export const panelMarks = (mismatches) => mismatchMarks(mismatches.map((item) => ({ ...item, grid: `exercise-${item.grid}` })));

function caseText(exercise, found) {
  const size = (matrix) => sizeText([matrix.length, matrix[0].length]);
  if (exercise === "forward") return `The case: a ${size(found.x)} image of dtype ${found.dtype}, pool_size=${found.pool_size}.`;
  if (exercise === "backward") return `The case: a ${size(found.x)} input_map, pool_size=${found.pool_size}, stride=${found.stride}.`;
  if (exercise === "conv2d_backward") return `The case: x ${size(found.x)}, w ${size(found.w)}, grad_output ${size(found.grad_output)}.`;
  return `The case: prediction and target ${size(found.prediction)}.`;
}

// What the result line says: the checker's sentence, then the case and the first wrong cells
// (a failed run has neither: its sentence alone).
export function resultText(exercise, answer) {
  const parts = [answer.sentence];
  if (answer.case) parts.push(caseText(exercise, answer.case));
  if (answer.mismatches.length) {
    const listed = answer.mismatches.slice(0, LISTED_MISMATCHES).map((item) => {
      const { expected, got } = shownPair(item.expected, item.got);
      return `${MISMATCH_GRIDS[exercise][item.grid]} (${item.row},${item.col}) expected ${expected}, got ${got}`;
    });
    const more = answer.mismatches.length - listed.length;
    parts.push(`Wrong: ${listed.join("; ")}${more > 0 ? `; and ${more} more` : ""}. The grids show the right answer; cells marked ≠ are where yours differs.`);
  }
  return parts.join(" ");
}

// ---- the editor's keys: Tab indents, Shift+Tab dedents (pure, on text and a selection) ----

function lineBlock(text, start, end) {
  const blockStart = text.lastIndexOf("\n", start - 1) + 1;
  const stop = end > start && text[end - 1] === "\n" ? end - 1 : end;
  const newline = text.indexOf("\n", stop);
  return [blockStart, newline < 0 ? text.length : newline];
}

// Tab: with no selection across lines, spaces up to the next indent stop at the caret;
// otherwise every selected line moves right. Returns {text, start, end}.
export function indent(text, start, end) {
  const [blockStart, blockEnd] = lineBlock(text, start, end);
  if (!text.slice(start, end).includes("\n")) {
    const column = start - blockStart;
    const spaces = INDENT.slice(column % INDENT.length);
    return { text: text.slice(0, start) + spaces + text.slice(end), start: start + spaces.length, end: start + spaces.length };
  }
  const lines = text.slice(blockStart, blockEnd).split("\n");
  const block = lines.map((line) => INDENT + line).join("\n");
  return { text: text.slice(0, blockStart) + block + text.slice(blockEnd), start: start + INDENT.length, end: end + INDENT.length * lines.length };
}

// Shift+Tab: every line the selection touches moves left by up to one indent.
export function dedent(text, start, end) {
  const [blockStart, blockEnd] = lineBlock(text, start, end);
  const lines = text.slice(blockStart, blockEnd).split("\n");
  const removed = lines.map((line) => /^ {0,4}/.exec(line)[0].length);
  const block = lines.map((line, i) => line.slice(removed[i])).join("\n");
  const firstShift = Math.min(removed[0], start - blockStart);
  const total = removed.reduce((a, b) => a + b, 0);
  return {
    text: text.slice(0, blockStart) + block + text.slice(blockEnd),
    start: start - firstShift,
    end: Math.max(start - firstShift, end - total),
  };
}

// Enter keeps the line's indentation, one level more after a line ending in ":".
export function newline(text, start, end) {
  const lineStart = text.lastIndexOf("\n", start - 1) + 1;
  const line = text.slice(lineStart, start);
  const spaces = /^ */.exec(line)[0] + (line.trimEnd().endsWith(":") ? INDENT : "");
  const inserted = `\n${spaces}`;
  return { text: text.slice(0, start) + inserted + text.slice(end), start: start + inserted.length, end: start + inserted.length };
}

// ---- the workers: the judge, started on first use and kept; the learner's, one per Run ----

// A run that ended without the judge's answer.
const failed = (sentence, state = "error") => ({ state, sentence, mismatches: [] });

const JUDGE_TIMEOUT_MS = 15000;

// A started worker: `ready` resolves with its ready message once it is up, and rejects
// with why it could not start (an error, a boot error, no answer in time, or, for the
// learner's worker, anything it could not lock away). `crashed` says whether its start
// failed inside the worker (an error or a boot error), which another start may not meet.
function started(worker, checkReady) {
  const handle = { worker, isReady: false, crashed: false };
  const crash = (reject, message) => {
    handle.crashed = true;
    reject(new Error(message));
  };
  const ready = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${BOOT_TIMEOUT_MS / 1000} s`)), BOOT_TIMEOUT_MS);
    const listen = (event) => {
      const message = event.data;
      if (message?.type === "ready") {
        clearTimeout(timer);
        worker.removeEventListener("message", listen);
        const refusal = checkReady(message);
        if (refusal) reject(new Error(refusal));
        else resolve(message);
      } else if (message?.type === "boot-error") {
        clearTimeout(timer);
        crash(reject, String(message.error).slice(0, 300));
      }
    };
    worker.addEventListener("message", listen);
    worker.addEventListener("error", (event) => {
      event.preventDefault();
      clearTimeout(timer);
      crash(reject, event.message || "the worker's script failed");
    });
  });
  handle.ready = ready;
  ready.then(() => { handle.isReady = true; }, () => {});
  return handle;
}

// The judge's ready message carries each exercise's case inputs as JSON text.
const judgeReady = (message) => (Object.keys(EXERCISES).every((exercise) => typeof message.cases?.[exercise] === "string")
  ? null : "its judge sent no cases");

// A learner's worker that could not lock everything away must not run learner code.
const learnerReady = (message) => (Array.isArray(message.locked) && message.locked.length === 0
  ? null : `its worker could not shut away ${Array.isArray(message.locked) ? message.locked.join(", ") : "storage and network"}`);

// Runs the learner's code in a fresh worker per Run (`createWorker("learner")`, started in
// the background as soon as the previous Run ends) and has it judged by the judge's worker
// (`createWorker("judge")`), which never runs learner code. The learner's worker is
// terminated after its Run, whatever it did.
export class ExerciseRunner {
  constructor(createWorker, timeoutMs = RUN_TIMEOUT_MS) {
    this.createWorker = createWorker;
    this.timeoutMs = timeoutMs;
    this.judge = null;
    this.learner = null;
    this.nextId = 1;
  }

  get isReady() {
    return Boolean(this.judge?.isReady && this.learner?.isReady);
  }

  // Starts the judge (once) and the next Run's worker (when none is waiting).
  start() {
    this.judge ??= started(this.createWorker("judge"), judgeReady);
    this.learner ??= started(this.createWorker("learner"), learnerReady);
  }

  drop(role) {
    this[role]?.worker.terminate();
    this[role] = null;
  }

  // Resolves with a parsed answer (parseAnswer's form), or a failed(...) one: a sentence alone.
  async run(exercise, source) {
    this.start();
    let { judge, learner } = this;
    this.learner = null;
    let cases;
    // A worker whose start crashed is started once more before the Run says so: a start can
    // fail for a reason of the engine's own that the next one does not meet (a WPE WebKit
    // start once failed with "call_indirect to a null table entry" while Pyodide's libraries
    // loaded; WebKit bug 285626 fixed stale table entries of this kind). No answer in time,
    // or a worker that could not lock everything away, is not retried.
    for (let retried = false; ; retried = true) {
      try {
        [{ cases }] = await Promise.all([judge.ready, learner.ready]);
        break;
      } catch (error) {
        await Promise.allSettled([judge.ready, learner.ready]);
        const again = !retried && [judge, learner].some((handle) => handle.crashed)
          && ![judge, learner].some((handle) => !handle.isReady && !handle.crashed);
        if (!again) {
          learner.worker.terminate();
          judge.ready.catch(() => { if (this.judge === judge) this.drop("judge"); });
          return failed(`Python for the exercises could not start: ${error.message}. Run again to retry.`);
        }
        if (judge.crashed) {
          this.drop("judge");
          judge = this.judge = started(this.createWorker("judge"), judgeReady);
        }
        if (learner.crashed) {
          learner.worker.terminate();
          learner = started(this.createWorker("learner"), learnerReady);
        }
      }
    }
    const { reports, ended, ms } = await this.collect(learner.worker, exercise, source, cases[exercise]);
    learner.worker.terminate();
    this.start();
    const verdict = await this.verdict(judge, { exercise, reports, ended });
    if (verdict.failure !== undefined) {
      this.drop("judge");
      this.start();
      return failed(verdict.failure);
    }
    const answer = parseAnswer(verdict.answer, exercise);
    return answer ? { ...answer, ms } : failed("The checker's answer was not readable; run again.");
  }

  // The Run's reports, in case order, and how it ended: null when every case ran, else
  // {how: "timeout", seconds} or {how: "crash", detail}.
  collect(worker, exercise, source, cases) {
    const id = this.nextId++;
    return new Promise((resolve) => {
      const reports = [];
      const finish = (ended, ms = null) => {
        clearTimeout(deadline);
        worker.removeEventListener("message", listen);
        worker.removeEventListener("error", crashed);
        resolve({ reports, ended, ms });
      };
      const listen = (event) => {
        const message = event.data;
        if (!message || message.id !== id) return;
        if (message.type === "report" && typeof message.report === "string") reports.push(message.report);
        else if (message.type === "done") finish(null, typeof message.ms === "number" ? message.ms : null);
        else if (message.type === "crashed") finish({ how: "crash", detail: String(message.error).slice(0, 300) });
      };
      const crashed = (event) => {
        event.preventDefault();
        finish({ how: "crash", detail: String(event.message || "the worker crashed").slice(0, 300) });
      };
      const deadline = setTimeout(() => finish({ how: "timeout", seconds: this.timeoutMs / 1000 }), this.timeoutMs);
      worker.addEventListener("message", listen);
      worker.addEventListener("error", crashed);
      worker.postMessage({ id, exercise, source, cases });
    });
  }

  // The judge's {answer} (JSON text) for a Run, or {failure} (a sentence) when it broke.
  verdict(judge, request) {
    const id = this.nextId++;
    return new Promise((resolve) => {
      const finish = (result) => {
        clearTimeout(deadline);
        judge.worker.removeEventListener("message", listen);
        resolve(result);
      };
      const listen = (event) => {
        const message = event.data;
        if (message?.type !== "verdict" || message.id !== id) return;
        if (typeof message.answer === "string") finish({ answer: message.answer });
        else finish({ failure: `The checker itself failed (${String(message.failure).slice(0, 300)}); it was restarted, so run again.` });
      };
      const deadline = setTimeout(() => finish({ failure: "The checker did not answer; it was restarted, so run again." }), JUDGE_TIMEOUT_MS);
      judge.worker.addEventListener("message", listen);
      judge.worker.postMessage({ id, request: JSON.stringify(request) });
    });
  }
}

// ---- the panel ----

// The workers' scripts sit in the front end's content-hashed folder, and their name tells
// them where the site's root is (as early.js's startPython does). `role` is "judge" or "learner".
const WORKER_SCRIPTS = { judge: "./exercise-judge.js", learner: "./exercise-worker.js" };

function startExerciseWorker(role) {
  return new Worker(new URL(WORKER_SCRIPTS[role], import.meta.url), { type: "module", name: siteRoot() });
}

// Keys carry the widget page's path (location.pathname alone: no query, not the page that
// frames it), so widget pages at different paths keep their own code, while every lesson
// page that frames the same widget page shares it.
export const storageKey = (path, exercise) => `poolgrad:${path}:exercise:${exercise}`;

// Wires the panel. `hooks.showCase(state, marks)` loads a case into the widget with its
// marks; `hooks.clearMarks()` drops them. Returns {timings} (tests and benchmarks read them
// through window.poolgradWidget.exerciseTimings).
export function mountExercise(root, hooks, createWorker = startExerciseWorker) {
  const pick = root.querySelector("#exercise-pick");
  const code = root.querySelector("#exercise-code");
  const runButton = root.querySelector("#exercise-run");
  const resetButton = root.querySelector("#exercise-reset");
  const result = root.querySelector("#exercise-result");
  const task = root.querySelector("#exercise-task");
  const caseBox = root.querySelector("#exercise-case");
  bindCaseKeys(caseBox);
  const path = location.pathname;
  const runner = new ExerciseRunner(createWorker);
  // nextRunReady: the next Run's worker (started when a Run ends) and the judge are up.
  const timings = { lastRunMs: null, lastCheckMs: null, get nextRunReady() { return runner.isReady; } };
  let running = false;
  let escaped = false;

  const save = () => writeStored(storageKey(path, pick.value), code.value);

  function show(exercise) {
    task.textContent = EXERCISES[exercise].task;
    code.value = readStored(storageKey(path, exercise)) ?? EXERCISES[exercise].starter;
  }

  function setResult(state, text) {
    if (state === null) result.removeAttribute("data-state");
    else result.dataset.state = state;
    result.textContent = text;
  }

  const savedPick = readStored(storageKey(path, "pick"));
  if (savedPick in EXERCISES) pick.value = savedPick;
  show(pick.value);

  // The worker starts on first use, not at page load.
  const startOnce = () => {
    runner.start();
    root.removeEventListener("focusin", startOnce);
    root.removeEventListener("pointerdown", startOnce);
  };
  root.addEventListener("focusin", startOnce);
  root.addEventListener("pointerdown", startOnce);

  pick.addEventListener("change", () => {
    writeStored(storageKey(path, "pick"), pick.value);
    show(pick.value);
    setResult(null, "");
    hideCase(caseBox);
  });

  code.addEventListener("input", save);

  function apply(edit) {
    code.value = edit.text;
    code.setSelectionRange(edit.start, edit.end);
    save();
  }

  code.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      escaped = true; // the next Tab leaves the editor
      return;
    }
    if (event.key === "Tab" && !escaped && !event.ctrlKey && !event.altKey && !event.metaKey) {
      event.preventDefault();
      apply((event.shiftKey ? dedent : indent)(code.value, code.selectionStart, code.selectionEnd));
      return;
    }
    escaped = false;
    if (event.key === "Enter" && !event.shiftKey && !event.ctrlKey && !event.altKey && !event.metaKey && !event.isComposing) {
      event.preventDefault();
      apply(newline(code.value, code.selectionStart, code.selectionEnd));
    }
  });
  code.addEventListener("focus", () => { escaped = false; });

  resetButton.addEventListener("click", () => {
    code.value = EXERCISES[pick.value].starter;
    writeStored(storageKey(path, pick.value), null);
    hooks.clearMarks();
    hideCase(caseBox);
    setResult(null, "");
  });

  runButton.addEventListener("click", async () => {
    if (running) return;
    running = true;
    runButton.setAttribute("aria-disabled", "true");
    const exercise = pick.value;
    hooks.clearMarks();
    hideCase(caseBox);
    setResult("running", runner.isReady
      ? "Running your code on every case…"
      : "Starting Python for your code (the first run takes a few seconds), then running it on every case…");
    const started = performance.now();
    const answer = await runner.run(exercise, code.value);
    timings.lastRunMs = performance.now() - started;
    timings.lastCheckMs = answer.ms ?? null;
    running = false;
    runButton.removeAttribute("aria-disabled");
    setResult(answer.state, resultText(exercise, answer));
    if (answer.case && IN_PANEL.has(exercise)) showCase(caseBox, caseGrids(exercise, answer.case), panelMarks(answer.mismatches));
    else if (answer.case) hooks.showCase(caseState(exercise, answer.case, answer.mismatches), mismatchMarks(answer.mismatches));
  });

  return { runner, timings };
}
