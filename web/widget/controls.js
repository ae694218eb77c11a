// The parameter panel: reads the form controls into state changes and writes the state
// back into them. Controls stay usable while Python boots; their changes queue.

import { pairText } from "./format.js";
import { PRESETS } from "./presets.js";
import {
  HASH_PROPERTIES, InputError, MATRIX_SPELLINGS, MAX_SIDE, applies, changedState, parseMatrix, parsePair, presetChange,
  quote, showsPreset, switchMode,
} from "./state.js";

// The text fields, by control name: each holds one state property, read and written in
// the hash's spelling of its kind (a pair, or the norm type's number).
const PAIR_CONTROLS = { kernel: "k", stride: "s", padding: "p", dilation: "d", outputSize: "o", normType: "n" };
const PROPERTY_KINDS = new Map(HASH_PROPERTIES.map((property) => [property.key, property.kind]));
const fieldText = (key, value) => (PROPERTY_KINDS.get(key) === "norm" ? String(value) : pairText(value));
// The fields' names as the reason for a disabled one says them.
const FIELD_NAMES = { k: "kernel", s: "stride", p: "padding", d: "dilation" };

// Why the disabled window fields are disabled, shown under them (the output size and norm
// type fields say "adaptive only", "LP only" in their labels): "" when every one applies.
const WINDOW_REASONS = {
  avg: "average pooling has none (avg_pool2d takes no dilation)",
  lp: "LP pooling has neither (lp_pool2d takes no padding and no dilation)",
  adaptive_max: "the adaptive modes place their windows by the output size alone",
  adaptive_avg: "the adaptive modes place their windows by the output size alone",
};
export function fieldReasons(state) {
  const names = ["k", "s", "p", "d"].filter((key) => !applies(key, state)).map((key) => FIELD_NAMES[key]);
  if (names.length === 0) return "";
  const list = names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names.at(-1)}` : names[0];
  return `${list[0].toUpperCase()}${list.slice(1)} ${names.length > 1 ? "do" : "does"} not apply: ${WINDOW_REASONS[state.mode]}.`;
}

// The panel's elements inside `root` (the document, or a widget's shadow root).
export function controlElements(root = document) {
  const byId = (id) => root.querySelector(`#${id}`);
  return {
    kernel: byId("kernel"),
    stride: byId("stride"),
    padding: byId("padding"),
    dilation: byId("dilation"),
    outputSize: byId("output-size"),
    normType: byId("norm-type"),
    windowReason: byId("window-reason"),
    unpool: byId("unpool"),
    mode: byId("mode"),
    ceil: byId("ceil"),
    cip: byId("cip"),
    gradient: byId("gradient"),
    preset: byId("preset"),
    presetReroll: byId("preset-reroll"),
    rows: byId("rows"),
    cols: byId("cols"),
    paste: byId("paste"),
    pasteApply: byId("paste-apply"),
    pasteMessage: byId("paste-message"),
    gradOnes: byId("grad-ones"),
    gradCount: byId("grad-count"),
    foldToggle: byId("controls-toggle"),
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

// The preset on screen, or "" for an input of the learner's own: one with settings first
// (its input may be another preset's, as the global average's is the fixture).
function presetShowing(state) {
  if (matrixText(state.x) === lastRandomInput) return "random";
  const names = Object.keys(PRESETS).filter((name) => name !== "random")
    .sort((a, b) => Number(!PRESETS[a].settings) - Number(!PRESETS[b].settings));
  return names.find((name) => showsPreset(name, state)) ?? "";
}

// Reflect the state in the controls, leaving alone a field the user is typing in whose
// text already means the current value (so "3," mid-typing is not overwritten).
export function syncControls(controls, state) {
  for (const [id, key] of Object.entries(PAIR_CONTROLS)) {
    const input = controls[id];
    let typedValue = null;
    try {
      typedValue = fieldText(key, parsePair(input.value, key, "field"));
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
    }
    input.disabled = !applies(key, state);
    if (input.getRootNode().activeElement === input && (typedValue === fieldText(key, state[key]) || typedValue === null)) continue;
    input.value = fieldText(key, state[key]);
  }
  controls.windowReason.textContent = fieldReasons(state);
  controls.ceil.disabled = !applies("ceil", state);
  controls.unpool.checked = state.unpool;
  controls.unpool.disabled = !applies("unpool", state);
  controls.mode.value = state.mode;
  controls.ceil.checked = state.ceil;
  controls.cip.checked = state.cip;
  controls.cip.disabled = !applies("cip", state);
  controls.gradient.checked = state.grad;
  const preset = presetShowing(state);
  if (preset) controls.preset.value = preset;
  else controls.preset.selectedIndex = -1;
  controls.presetReroll.hidden = preset !== "random";
  controls.rows.value = String(state.x.length);
  controls.cols.value = String(state.x[0].length);
}

function resized(matrix, rows, cols) {
  return Array.from({ length: rows }, (_, r) => Array.from({ length: cols }, (_, c) => matrix[r]?.[c] ?? 0));
}

// `actions`: change(mutator) applies a state change; reportControlError(text|null).
// Every change goes through state.js's rules (changedState), which reset the gradient.
export function bindControls(controls, { getState, change, reportControlError, gradientShape }) {
  const update = (changes) => change((state) => Object.assign(state, changedState(state, changes)));
  for (const [id, key] of Object.entries(PAIR_CONTROLS)) {
    const input = controls[id];
    const apply = (text) => {
      let value;
      try {
        value = parsePair(text.trim(), key, "field");
      } catch (error) {
        if (!(error instanceof InputError)) throw error;
        reportControlError(error.message);
        return;
      }
      reportControlError(null);
      if (fieldText(key, value) === fieldText(key, getState()[key])) return;
      update({ [key]: value });
    };
    // Typing fires "input"; a value set without typing (WebDriver's clear() then keys,
    // autofill, some mobile keyboards) may only fire "change" when the field is committed.
    input.addEventListener("input", () => apply(input.value));
    input.addEventListener("change", () => apply(input.value));
    // Arrow keys step a square value, like a number field, without losing pair support.
    // The stepped value goes to the state like a typed one; syncControls then shows it.
    input.addEventListener("keydown", (event) => {
      if (event.key !== "ArrowUp" && event.key !== "ArrowDown") return;
      if (PROPERTY_KINDS.get(key) !== "pair") return;
      const [first, second] = getState()[key];
      if (first !== second) return;
      event.preventDefault();
      const stepped = String(Math.max(0, first + (event.key === "ArrowUp" ? 1 : -1)));
      input.value = stepped;
      apply(stepped);
    });
    input.addEventListener("blur", () => {
      reportControlError(null);
      syncControls(controls, getState());
    });
  }
  controls.mode.addEventListener("change", () => change(switchMode(controls.mode.value)));
  controls.ceil.addEventListener("change", () => update({ ceil: controls.ceil.checked }));
  controls.cip.addEventListener("change", () => update({ cip: controls.cip.checked }));
  controls.gradient.addEventListener("change", () => update({ grad: controls.gradient.checked }));
  controls.unpool.addEventListener("change", () => update({ unpool: controls.unpool.checked }));

  const loadPreset = () => change((state) => {
    const name = controls.preset.value || "fixture";
    presetChange(name)(state);
    if (name === "random") lastRandomInput = matrixText(state.x);
  });
  // Choosing a preset loads it. A keyboard's arrows on the closed list fire "change" at
  // each step (Chromium, Firefox, WebKitGTK and WPE; tests/engines), so arrowing through the
  // list loads each preset on the way: each is one quick trace, superseded by the next.
  controls.preset.addEventListener("change", loadPreset);
  controls.presetReroll.addEventListener("click", loadPreset);

  const resize = () => {
    const rows = Number(controls.rows.value);
    const cols = Number(controls.cols.value);
    const valid = (n) => Number.isInteger(n) && n >= 1 && n <= MAX_SIDE;
    if (!valid(rows) || !valid(cols)) {
      reportControlError(`Rows and columns must be whole numbers from 1 to ${MAX_SIDE}; got ${quote(controls.rows.value)} x ${quote(controls.cols.value)}.`);
      return;
    }
    reportControlError(null);
    update({ x: resized(getState().x, rows, cols) });
  };
  controls.rows.addEventListener("change", resize);
  controls.cols.addEventListener("change", resize);

  controls.pasteApply.addEventListener("click", () => {
    let matrix;
    try {
      matrix = parseMatrix(controls.paste.value, MATRIX_SPELLINGS.paste());
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      controls.pasteMessage.dataset.kind = "error";
      controls.pasteMessage.textContent = error.message;
      reportControlError(`The pasted matrix was not loaded: ${error.message}`);
      return;
    }
    reportControlError(null);
    controls.pasteMessage.dataset.kind = "ok";
    controls.pasteMessage.textContent = `Loaded a ${matrix.length} × ${matrix[0].length} matrix.`;
    update({ x: matrix });
  });

  // Narrow screens show the settings folded (style.css); the toggle opens and closes them.
  controls.foldToggle.addEventListener("click", () => {
    const open = controls.foldToggle.getAttribute("aria-expanded") === "true";
    controls.foldToggle.setAttribute("aria-expanded", String(!open));
  });

  controls.gradOnes.addEventListener("click", () => update({ g: null }));
  controls.gradCount.addEventListener("click", () => {
    const shape = gradientShape();
    if (!shape) return;
    change((state) => {
      state.g = Array.from({ length: shape[0] }, (_, i) => Array.from({ length: shape[1] }, (_, j) => i * shape[1] + j + 1));
    });
  });
}
