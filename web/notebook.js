// The notebook host: anywidget's render({ model, el }) for poolgrad.Widget (py/poolgrad/
// widget.py). The kernel's own poolgrad computes every view and syncs it as the `trace`
// trait, so this host never asks a worker: it maps the traits to the page's state, draws
// with the page's render.js, and sends the learner's changes back as traits. Bundled into
// one module by sitebuild/widget_bundle.py (anywidget cannot resolve relative imports).
// The page's rules for a change (switchMode: average has no dilation, a change resets the
// custom gradient) are state.js's own.

import { decodeNumber, formatNumber } from "./widget/format.js";
import { renderSelection, renderView } from "./widget/render.js";
import { InputError, defaultState, parsePair, switchMode } from "./widget/state.js";

const PAIRS = { kernel: ["k", "kernel_size"], stride: ["s", "stride"], padding: ["p", "padding"], dilation: ["d", "dilation"] };

const SKELETON = `
  <div class="controls"><div class="controls-body">
    <fieldset><legend>Window</legend>
      <label>Kernel <input data-field="kernel" type="text" autocomplete="off" spellcheck="false"></label>
      <label>Stride <input data-field="stride" type="text" autocomplete="off" spellcheck="false"></label>
      <label>Padding <input data-field="padding" type="text" autocomplete="off" spellcheck="false"></label>
      <label>Dilation <input data-field="dilation" type="text" autocomplete="off" spellcheck="false"></label>
    </fieldset>
    <fieldset><legend>Pooling</legend>
      <label>Mode <select data-field="mode"><option value="max">max</option><option value="avg">average</option></select></label>
      <label class="check"><input data-field="gradient" type="checkbox"> Gradient routing</label>
    </fieldset>
  </div></div>
  <p class="notebook-error" role="alert" hidden></p>
  <section class="stage" aria-label="Grids">
    <div class="column">
      <div class="panel panel-input"><h2>Input <span data-region="shapes" class="shape"></span></h2><div data-region="inputGrid" class="grid-box"></div></div>
      <div class="panel panel-grad-input" data-gradient-panel hidden><h2>Input gradient</h2><div data-region="gradInputGrid" class="grid-box"></div></div>
    </div>
    <div class="column">
      <div class="pair">
        <div class="panel panel-output"><h2>Output</h2><p class="hint">Tap a cell to see its window.</p><div data-region="outputGrid" class="grid-box"></div></div>
        <div class="panel panel-grad-output" data-gradient-panel hidden><h2>Upstream gradient</h2><div data-region="gradOutputGrid" class="grid-box"></div></div>
      </div>
      <div class="panel panel-explain">
        <p data-region="explanation" class="explanation"></p>
        <ul data-region="legend" class="legend" data-mode="max" aria-label="How cells are marked">
          <li><span class="swatch swatch-window" aria-hidden="true">5</span> in the selected output's window</li>
          <li data-only="max"><span class="swatch swatch-argmax" aria-hidden="true">8</span> its maximum (argmax)</li>
        </ul>
        <div data-region="formula"></div>
      </div>
    </div>
  </section>`;

const pairOf = (value, fallback) => (value === null || value === undefined ? fallback : Array.isArray(value) ? value : [value, value]);
const matrixOf = (rows) => rows.map((row) => row.map(decodeNumber));

// The page's state for the traits (the selection is implicit, the first output, until
// someone picks one, as on the page).
function stateOf(model) {
  const k = pairOf(model.get("kernel_size"), [2, 2]);
  const selection = model.get("selection");
  return Object.assign(defaultState(), {
    x: matrixOf(model.get("x")),
    k,
    s: pairOf(model.get("stride"), k.slice()),
    p: pairOf(model.get("padding"), [0, 0]),
    d: pairOf(model.get("dilation"), [1, 1]),
    mode: model.get("mode"),
    ceil: model.get("ceil_mode"),
    cip: model.get("count_include_pad"),
    grad: model.get("gradient"),
    g: model.get("grad_output") ? matrixOf(model.get("grad_output")) : null,
    sel: selection ?? [0, 0],
    selImplicit: selection === null,
  });
}

// render.js's marks of checked cells: "grid:row,col" -> {expected, got} as text.
function mismatchMarks(mismatches) {
  return new Map(mismatches.map((item) => [`${item.grid}:${item.row},${item.col}`,
    { expected: formatNumber(item.expected), got: formatNumber(item.got) }]));
}

function render({ model, el }) {
  el.classList.add("poolgrad-notebook");
  el.innerHTML = SKELETON;
  const regions = { gradPanels: [...el.querySelectorAll("[data-gradient-panel]")] };
  for (const region of el.querySelectorAll("[data-region]")) regions[region.dataset.region] = region;
  const field = (name) => el.querySelector(`[data-field="${name}"]`);
  const errorLine = el.querySelector(".notebook-error");
  const scheme = () => (document.body.dataset.jpThemeLight === "false" || matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light");
  // The grids' roving focus (render.js keeps each grid's focused cell here).
  const focus = {};
  const view = () => ({
    focus, editing: null, inspected: null, staleInput: false, traceError: null, stepMarks: null,
    scheme: scheme(), mismatches: mismatchMarks(model.get("mismatches")),
  });

  const showError = (text) => {
    errorLine.textContent = text;
    errorLine.hidden = text === "";
  };
  const syncFields = (state) => {
    for (const [name, [key]] of Object.entries(PAIRS)) {
      if (document.activeElement !== field(name)) field(name).value = state[key][0] === state[key][1] ? String(state[key][0]) : state[key].join(",");
    }
    field("dilation").disabled = state.mode === "avg";
    field("mode").value = state.mode;
    field("gradient").checked = state.grad;
  };
  // Each draw stamps its end and its length on the element (data-drawn, data-draw-ms),
  // which the notebook tests read to time a change from a cell to the redraw.
  const draw = () => {
    const started = performance.now();
    const state = stateOf(model);
    el.dataset.scheme = scheme();
    renderView(regions, state, model.get("trace"), view());
    syncFields(state);
    showError(model.get("error"));
    el.dataset.drawn = String(performance.now());
    el.dataset.drawMs = String(Number(el.dataset.drawn) - started);
  };
  // A change the learner makes: the page's state change, sent as the traits it touches.
  const send = (change) => {
    const before = stateOf(model);
    const after = structuredClone(before);
    change(after);
    const traits = { k: "kernel_size", s: "stride", p: "padding", d: "dilation", mode: "mode", grad: "gradient", g: "grad_output" };
    for (const [key, trait] of Object.entries(traits)) {
      if (JSON.stringify(after[key]) !== JSON.stringify(before[key])) model.set(trait, after[key]);
    }
    model.save_changes();
  };

  for (const [name, [key]] of Object.entries(PAIRS)) {
    field(name).addEventListener("change", () => {
      let value;
      try {
        value = parsePair(field(name).value.trim(), key, "field");
      } catch (error) {
        if (!(error instanceof InputError)) throw error;
        showError(error.message);
        return;
      }
      send((state) => {
        state[key] = value;
        state.g = null;
      });
    });
  }
  field("mode").addEventListener("change", () => send(switchMode(field("mode").value)));
  field("gradient").addEventListener("change", () => send((state) => { state.grad = field("gradient").checked; }));

  const pick = (target) => {
    const cell = target.closest?.('[data-grid="output"][data-row]');
    if (!cell) return;
    const selection = [Number(cell.dataset.row), Number(cell.dataset.col)];
    focus.output = selection;
    model.set("selection", selection);
    model.save_changes();
    renderSelection(regions, { ...stateOf(model), sel: selection, selImplicit: false }, model.get("trace"), view());
  };
  el.addEventListener("click", (event) => pick(event.target));
  el.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" && event.key !== " ") return;
    event.preventDefault();
    pick(event.target);
  });

  const redraw = () => draw();
  const onError = () => showError(model.get("error"));
  const onSelection = () => renderSelection(regions, stateOf(model), model.get("trace"), view());
  // A trait may arrive after the trace it goes with (a batch of settings from a cell): each
  // redraws, so the fields never show a setting older than the grids.
  const REDRAWN = ["trace", "gradient", "mismatches", "kernel_size", "stride", "padding", "dilation", "mode"];
  for (const key of REDRAWN) model.on(`change:${key}`, redraw);
  model.on("change:selection", onSelection);
  model.on("change:error", onError);
  // JupyterLab and Notebook 7 switch themes by this attribute of the body: redraw in its scheme.
  const theme = new MutationObserver(() => { if (el.dataset.scheme !== scheme()) draw(); });
  theme.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-light"] });
  draw();
  return () => {
    theme.disconnect();
    for (const key of REDRAWN) model.off(`change:${key}`, redraw);
    model.off("change:selection", onSelection);
    model.off("change:error", onError);
  };
}

export default { render };
