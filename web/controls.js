// The parameter panel: reads the form controls into state changes and writes the state
// back into them. Controls stay usable while Python boots; their changes queue.

import { pairText } from "./format.js";
import { PRESETS } from "./presets.js";
import { HashError, MAX_SIDE, parseNumberToken, parsePair, quote } from "./state.js";

const PAIR_CONTROLS = { kernel: "k", stride: "s", padding: "p", dilation: "d" };

export function controlElements() {
  const byId = (id) => document.getElementById(id);
  return {
    kernel: byId("kernel"),
    stride: byId("stride"),
    padding: byId("padding"),
    dilation: byId("dilation"),
    mode: byId("mode"),
    ceil: byId("ceil"),
    cip: byId("cip"),
    gradient: byId("gradient"),
    preset: byId("preset"),
    presetApply: byId("preset-apply"),
    rows: byId("rows"),
    cols: byId("cols"),
    paste: byId("paste"),
    pasteApply: byId("paste-apply"),
    pasteMessage: byId("paste-message"),
    gradOnes: byId("grad-ones"),
    gradCount: byId("grad-count"),
  };
}

export function fillPresetOptions(select) {
  for (const [value, preset] of Object.entries(PRESETS)) {
    const option = document.createElement("option");
    option.value = value;
    option.textContent = preset.label;
    select.append(option);
  }
}

const matrixText = (matrix) => JSON.stringify(matrix);

// The last random input loaded, so #preset can keep saying "random" until it is edited.
let lastRandomInput = null;

// The preset whose matrix is on screen, or "" for an input of the learner's own.
function presetShowing(x) {
  const text = matrixText(x);
  if (text === lastRandomInput) return "random";
  const shape = [x.length, x[0].length];
  const match = Object.entries(PRESETS).find(([name, preset]) => name !== "random" && matrixText(preset.make(shape)) === text);
  return match ? match[0] : "";
}

// Reflect the state in the controls, leaving alone a field the user is typing in whose
// text already means the current value (so "3," mid-typing is not overwritten).
export function syncControls(controls, state) {
  for (const [id, key] of Object.entries(PAIR_CONTROLS)) {
    const input = controls[id];
    let typedValue = null;
    try {
      typedValue = pairText(parsePair(input.value, key));
    } catch (error) {
      if (!(error instanceof HashError)) throw error;
    }
    if (document.activeElement === input && (typedValue === pairText(state[key]) || typedValue === null)) continue;
    input.value = pairText(state[key]);
  }
  controls.dilation.disabled = state.mode === "avg";
  controls.mode.value = state.mode;
  controls.ceil.checked = state.ceil;
  controls.cip.checked = state.cip;
  controls.cip.disabled = state.mode !== "avg";
  controls.gradient.checked = state.grad;
  const preset = presetShowing(state.x);
  if (preset) controls.preset.value = preset;
  else controls.preset.selectedIndex = -1;
  controls.rows.value = String(state.x.length);
  controls.cols.value = String(state.x[0].length);
}

function resized(matrix, rows, cols) {
  return Array.from({ length: rows }, (_, r) => Array.from({ length: cols }, (_, c) => matrix[r]?.[c] ?? 0));
}

// Rows on lines, numbers separated by spaces or commas (what a spreadsheet prints), or
// bracketed rows, whatever the line breaks ([[1, 2], [3, 4]], NumPy's [[1 2]\n [3 4]] and
// array([[...]])): each innermost [...] is one row.
function pastedRows(text) {
  if (!text.includes("[")) return text.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== "");
  const rows = [...text.matchAll(/\[([^[\]]*)\]/g)].map((match) => match[1].trim());
  const rest = text.replace(/\[([^[\]]*)\]/g, " ").replace(/^\s*array\(/, "").replace(/\)\s*$/, "");
  if (/[^\s,[\]]/.test(rest)) {
    throw new HashError("The pasted matrix has numbers outside the brackets of its rows; write every row in brackets, like [[1, 2], [3, 4]], or one row per line without brackets.");
  }
  return rows;
}

function parsePastedMatrix(text) {
  const lines = pastedRows(text);
  if (lines.length === 0 || lines.every((line) => line === "")) throw new HashError("Paste some numbers first: one row per line, separated by spaces or commas.");
  if (lines.length > MAX_SIDE) throw new HashError(`The pasted matrix has ${lines.length} rows; the limit is ${MAX_SIDE} x ${MAX_SIDE}.`);
  const rows = lines.map((line) => line.split(/[\s,]+/).filter((token) => token !== ""));
  const width = rows[0].length;
  if (width > MAX_SIDE) throw new HashError(`The pasted matrix has ${width} columns; the limit is ${MAX_SIDE} x ${MAX_SIDE}.`);
  rows.forEach((row, r) => {
    if (row.length !== width) throw new HashError(`Row ${r} has ${row.length} numbers but row 0 has ${width}; every row needs the same count.`);
  });
  return rows.map((row, r) => row.map((token, c) => parseNumberToken(token, `Row ${r}, col ${c}`)));
}

// `actions`: change(mutator) applies a state change; reportControlError(text|null).
export function bindControls(controls, { getState, change, reportControlError, gradientShape }) {
  for (const [id, key] of Object.entries(PAIR_CONTROLS)) {
    const input = controls[id];
    const apply = () => {
      let value;
      try {
        value = parsePair(input.value.trim(), key);
      } catch (error) {
        if (!(error instanceof HashError)) throw error;
        reportControlError(error.message);
        return;
      }
      reportControlError(null);
      if (pairText(value) === pairText(getState()[key])) return;
      change((state) => {
        state[key] = value;
        state.g = null;
      });
    };
    // Typing fires "input"; a value set without typing (WebDriver's clear() then keys,
    // autofill, some mobile keyboards) may only fire "change" when the field is committed.
    input.addEventListener("input", apply);
    input.addEventListener("change", apply);
    // Arrow keys step a square value, like a number field, without losing pair support.
    input.addEventListener("keydown", (event) => {
      if (event.key !== "ArrowUp" && event.key !== "ArrowDown") return;
      const [first, second] = getState()[key];
      if (first !== second) return;
      event.preventDefault();
      input.value = String(Math.max(0, first + (event.key === "ArrowUp" ? 1 : -1)));
      input.dispatchEvent(new Event("input"));
    });
    input.addEventListener("blur", () => {
      reportControlError(null);
      syncControls(controls, getState());
    });
  }
  controls.mode.addEventListener("change", () => change((state) => {
    state.mode = controls.mode.value;
    // Average pooling has no dilation (as in PyTorch's avg_pool2d).
    if (state.mode === "avg") state.d = [1, 1];
    state.g = null;
  }));
  controls.ceil.addEventListener("change", () => change((state) => {
    state.ceil = controls.ceil.checked;
    state.g = null;
  }));
  controls.cip.addEventListener("change", () => change((state) => { state.cip = controls.cip.checked; }));
  controls.gradient.addEventListener("change", () => change((state) => { state.grad = controls.gradient.checked; }));

  const loadPreset = () => change((state) => {
    const shape = [state.x.length, state.x[0].length];
    const name = controls.preset.value || "fixture";
    state.x = PRESETS[name].make(shape);
    if (name === "random") lastRandomInput = matrixText(state.x);
    state.g = null;
  });
  controls.preset.addEventListener("change", loadPreset);
  controls.presetApply.addEventListener("click", loadPreset);

  const resize = () => {
    const rows = Number(controls.rows.value);
    const cols = Number(controls.cols.value);
    const valid = (n) => Number.isInteger(n) && n >= 1 && n <= MAX_SIDE;
    if (!valid(rows) || !valid(cols)) {
      reportControlError(`Rows and columns must be whole numbers from 1 to ${MAX_SIDE}; got ${quote(controls.rows.value)} x ${quote(controls.cols.value)}.`);
      return;
    }
    reportControlError(null);
    change((state) => {
      state.x = resized(state.x, rows, cols);
      state.g = null;
    });
  };
  controls.rows.addEventListener("change", resize);
  controls.cols.addEventListener("change", resize);

  controls.pasteApply.addEventListener("click", () => {
    let matrix;
    try {
      matrix = parsePastedMatrix(controls.paste.value);
    } catch (error) {
      if (!(error instanceof HashError)) throw error;
      controls.pasteMessage.dataset.kind = "error";
      controls.pasteMessage.textContent = error.message;
      reportControlError(`The pasted matrix was not loaded: ${error.message}`);
      return;
    }
    reportControlError(null);
    controls.pasteMessage.dataset.kind = "ok";
    controls.pasteMessage.textContent = `Loaded a ${matrix.length} × ${matrix[0].length} matrix.`;
    change((state) => {
      state.x = matrix;
      state.g = null;
    });
  });

  controls.gradOnes.addEventListener("click", () => change((state) => { state.g = null; }));
  controls.gradCount.addEventListener("click", () => {
    const shape = gradientShape();
    if (!shape) return;
    change((state) => {
      state.g = Array.from({ length: shape[0] }, (_, i) => Array.from({ length: shape[1] }, (_, j) => i * shape[1] + j + 1));
    });
  });
}
