// The chain view: X -conv W-> Y1 (-ReLU) -pool-> Y2 -loss vs T-> L and its backward pass, drawn from chain_trace's answer; mount.js loads it the first time view=chain opens.
//
// It draws and listens inside its own section; the state stays mount's (host.change), and
// the view's own marks (the tapped cell, the Y1 cell a weight's tap refers to, the cell
// being edited, Play) are view state, never in the hash. It does no arithmetic on the
// chain: Step, Play and Reset change `steps`, and Python redoes the descent.

import { heatColours } from "../widget/colours.js";
import { cellName, decodeNumber, formatNumber } from "../widget/format.js";
import { bindGridKeys, exactText } from "../widget/grid-input.js";
import { planeTable } from "../widget/render.js";
import { renderLesson } from "../lesson/lesson.js";
import { InputError, parseCellValue } from "../widget/state.js";
import { CHAIN_LIMITS } from "./keys.js";
import { PRESET_LABELS, fitTarget, presetChange, presetShowing } from "./presets.js";
import { chainRequestKey } from "./request.js";
import { chainPanels } from "./rows.js";
import { chainPictureName, chainPictureSvg } from "./picture.js";
import { saveFile } from "../takeaway/code-view.js";
import { chainPoolgradSnippet, chainTorchSnippet } from "./snippet.js";
import {
  TRY_IT, chainLessonBlocks, chainTitle, flatCell, lossFormula, tapSentence,
} from "./sentences.js";

// The view's stylesheet, beside it (null in the notebook bundle, whose widget.css holds it).
const STYLE = new URL("./chain.css", import.meta.url).href;

const MARKUP = `
<div class="chain-bar panel">
  <span class="chain-field">
    <label for="chain-preset">Preset</label>
    <select id="chain-preset" name="chain-preset"></select>
  </span>
  <span class="chain-field">
    <label for="chain-pool-mode">Pooling</label>
    <select id="chain-pool-mode" name="chain-pool-mode">
      <option value="max">max</option>
      <option value="avg">average</option>
      <option value="none">none</option>
    </select>
  </span>
  <span class="chain-field">
    <label for="chain-upstream">Gradient starts from</label>
    <select id="chain-upstream" name="chain-upstream">
      <option value="loss-mse">the loss: MSE against T</option>
      <option value="loss-l1">the loss: L1 against T</option>
      <option value="ones">made up: all ones</option>
      <option value="ramp">made up: a ramp 1..n</option>
      <option value="hot">made up: one hot cell</option>
    </select>
  </span>
  <label class="check"><input id="chain-relu" name="chain-relu" type="checkbox"> ReLU after the convolution</label>
  <label class="check"><input id="chain-bias" name="chain-bias" type="checkbox"> Bias</label>
</div>
<div class="chain-learn panel">
  <h2>Learning</h2>
  <div class="chain-learn-controls">
    <span class="chain-field">
      <label for="chain-lr">Learning rate</label>
      <input id="chain-lr" name="chain-lr" type="text" inputmode="decimal" autocomplete="off" spellcheck="false" size="6">
    </span>
    <button id="chain-step" type="button">Step</button>
    <button id="chain-play" type="button" aria-pressed="false">Play</button>
    <button id="chain-reset" type="button">Reset</button>
    <span id="chain-steps" class="hint"></span>
  </div>
  <svg id="chain-loss-plot" class="chain-plot" viewBox="0 0 240 90" role="img" aria-label="The loss over the steps"></svg>
</div>
<div class="chain-row" role="group" aria-labelledby="chain-forward-title">
  <h2 id="chain-forward-title" class="chain-row-title">Forward</h2>
  <div class="chain-panels" data-row="forward"></div>
  <div class="panel chain-loss-panel">
    <h3>Loss</h3>
    <p>L = <output id="chain-loss">…</output></p>
    <p id="chain-loss-formula" class="caption"></p>
  </div>
</div>
<div class="chain-row" role="group" aria-labelledby="chain-backward-title">
  <h2 id="chain-backward-title" class="chain-row-title">Backward</h2>
  <div class="chain-panels" data-row="backward"></div>
</div>
<div class="panel chain-explain">
  <p id="chain-explanation" class="explanation"></p>
  <p id="chain-announcer" class="visually-hidden" aria-live="polite"></p>
</div>
<details id="chain-code" class="panel code-view">
  <summary>Code: this chain in PyTorch and poolgrad</summary>
  <p class="hint">PyTorch that builds the same chain in float64, takes the same steps and checks the numbers shown here with autograd; then the poolgrad call that computed them. Save picture writes both rows, with their captions and the loss, as one SVG.</p>
  <p><button id="chain-save-picture" type="button">Save picture (SVG)</button></p>
  <p id="chain-code-message" class="code-message" role="status"></p>
  <h3>PyTorch</h3>
  <pre id="chain-code-torch" class="code-text" tabindex="0"></pre>
  <h3>poolgrad</h3>
  <pre id="chain-code-poolgrad" class="code-text" tabindex="0"></pre>
</details>
<div class="teach">
  <section class="panel lesson" aria-labelledby="chain-lesson-title">
    <h2 id="chain-lesson-title">What the chain shows</h2>
    <div id="chain-lesson"></div>
  </section>
  <section class="panel guide" aria-labelledby="chain-try-title">
    <h2 id="chain-try-title">Try it</h2>
    <ul id="chain-try" class="chain-try"></ul>
  </section>
</div>
`;

// The grids that take edits, and what an edit changes (the state's key).
const EDIT_NAMES = { "chain-input": "X", "chain-weight": "W", "chain-target": "T", "chain-bias": "b" };
const TAPPABLE = new Set(["chain-input", "chain-weight", "chain-conv", "chain-pool"]);
const PLAY_DELAY_MS = 120;
const PLAY_WITHOUT_LOSS = 20;

const node = (tag, attributes = {}, text) => {
  const made = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) if (value !== undefined && value !== null) made.setAttribute(name, value);
  if (text !== undefined) made.textContent = text;
  return made;
};

// A cell's place: its grid and its plane ("f/c" for the weights, the channel or filter else).
const placeKey = (grid, plane, row, col) => `${grid}|${plane}|${row},${col}`;

export function mountChain(section, host) {
  section.innerHTML = MARKUP;
  if (STYLE) section.prepend(node("link", { rel: "stylesheet", href: STYLE }));
  const byId = (id) => section.querySelector(`#${id}`);
  const controls = {
    preset: byId("chain-preset"),
    pool: byId("chain-pool-mode"),
    upstream: byId("chain-upstream"),
    relu: byId("chain-relu"),
    bias: byId("chain-bias"),
    lr: byId("chain-lr"),
    step: byId("chain-step"),
    play: byId("chain-play"),
    reset: byId("chain-reset"),
    steps: byId("chain-steps"),
    plot: byId("chain-loss-plot"),
  };
  const rows = { forward: section.querySelector('[data-row="forward"]'), backward: section.querySelector('[data-row="backward"]') };
  const lossOutput = byId("chain-loss");
  const lossFormulaBox = byId("chain-loss-formula");
  const explanation = byId("chain-explanation");
  const announcer = byId("chain-announcer");
  for (const [value, label] of [...Object.entries(PRESET_LABELS), ["custom", "Your own numbers"]]) {
    controls.preset.append(node("option", { value, ...(value === "custom" ? { disabled: "" } : {}) }, label));
  }
  byId("chain-try").replaceChildren(...TRY_IT.map((text) => node("li", {}, text)));

  const view = {
    state: null,
    trace: null,
    // The tapped cell {grid, plane, filter, channel, row, col}, and the Y1 cell [f, r, c]
    // a weight's tap refers to.
    tap: null,
    conv: [0, 0, 0],
    focus: new Map(),
    editing: null,
    playing: false,
    playTimer: null,
    lastRandom: null,
    cells: new Map(),
  };

  const change = (mutator) => host.change(mutator);
  // A change of the start (the numbers, the settings) starts learning over.
  const restart = (mutator) => change((state) => {
    mutator(state);
    state.steps = 0;
  });

  // ---- controls ----

  controls.preset.addEventListener("change", () => {
    const name = controls.preset.value;
    stopPlay();
    view.tap = null;
    change((state) => {
      presetChange(name)(state);
      if (name === "random") view.lastRandom = state.cw[0][0];
    });
  });
  controls.pool.addEventListener("change", () => {
    view.tap = null;
    restart((state) => {
      state.cpool = controls.pool.value;
      fitTarget(state);
    });
  });
  controls.upstream.addEventListener("change", () => restart((state) => {
    state.cup = controls.upstream.value;
  }));
  controls.relu.addEventListener("change", () => restart((state) => {
    state.relu = controls.relu.checked;
  }));
  controls.bias.addEventListener("change", () => restart((state) => {
    state.cb = controls.bias.checked ? state.cw.map(() => 0) : null;
  }));
  controls.lr.addEventListener("change", () => {
    let value;
    try {
      value = Number(controls.lr.value.trim());
      if (!(value > 0 && value <= 100)) throw new InputError(`The learning rate must be a number above 0 and at most 100, like 0.01; got "${controls.lr.value.slice(0, 24)}"`, "field");
    } catch (problem) {
      controls.lr.setAttribute("aria-invalid", "true");
      host.reportError(problem.message);
      return;
    }
    controls.lr.removeAttribute("aria-invalid");
    host.reportError(null);
    change((state) => {
      state.lr = value;
    });
  });
  const stepOnce = () => change((state) => {
    state.steps = Math.min(CHAIN_LIMITS.steps, state.steps + 1);
  });
  controls.step.addEventListener("click", () => {
    stopPlay();
    stepOnce();
  });
  controls.reset.addEventListener("click", () => {
    stopPlay();
    change((state) => {
      state.steps = 0;
    });
  });
  controls.play.addEventListener("click", () => {
    if (view.playing) {
      stopPlay();
      return;
    }
    view.playing = true;
    view.playStart = view.state.steps;
    controls.play.setAttribute("aria-pressed", "true");
    controls.play.textContent = "Pause";
    continuePlay(view.trace);
  });

  // Save picture: the chain drawn now (the state and trace of the last drawing).
  byId("chain-save-picture").addEventListener("click", () => {
    const message = byId("chain-code-message");
    if (!drawnTrace || section.dataset.busy === "true") {
      message.textContent = "Nothing to save yet: the picture is saved once the chain for these settings is shown.";
      return;
    }
    const name = chainPictureName(drawnState);
    saveFile(name, chainPictureSvg(drawnState, drawnTrace), "image/svg+xml");
    message.textContent = `Saved the picture as ${name}.`;
  });

  function stopPlay() {
    view.playing = false;
    clearTimeout(view.playTimer);
    view.playTimer = null;
    controls.play.setAttribute("aria-pressed", "false");
    controls.play.textContent = "Play";
  }

  // Play takes the next step once the current one is drawn, while the loss falls (with a
  // made-up gradient: for a fixed count of steps).
  function continuePlay(trace) {
    if (!view.playing || view.playTimer !== null || !trace) return;
    const { state } = view;
    const history = trace.loss_history;
    const falling = history ? history.length < 2 || decodeNumber(history.at(-1)) < decodeNumber(history.at(-2)) : state.steps - view.playStart < PLAY_WITHOUT_LOSS;
    if (!falling || state.steps >= CHAIN_LIMITS.steps) {
      stopPlay();
      announce(history ? `Stopped after step ${state.steps}: the loss no longer falls (${formatNumber(trace.loss)}).` : `Stopped after ${state.steps} steps.`);
      return;
    }
    view.playTimer = setTimeout(() => {
      view.playTimer = null;
      if (view.playing) stepOnce();
    }, PLAY_DELAY_MS);
  }

  function announce(text) {
    announcer.textContent = text;
  }

  function syncControls(state) {
    controls.preset.value = presetShowing(state, view.lastRandom);
    controls.pool.value = state.cpool;
    controls.upstream.value = state.cup;
    controls.relu.checked = state.relu;
    controls.bias.checked = state.cb !== null;
    if (root().activeElement !== controls.lr) controls.lr.value = String(state.lr);
    controls.steps.textContent = `step ${state.steps}`;
    controls.reset.disabled = state.steps === 0;
    controls.step.disabled = state.steps >= CHAIN_LIMITS.steps;
  }

  const root = () => section.getRootNode();

  // ---- grids ----

  // The tables and panels the last drawing built, by grid and plane, and by panel: a
  // drawing of the same shapes updates them in place (render.js writes only the cells that
  // changed), so a Step or an edit costs the browser no new nodes to style and lay out.
  let drawnTables = new Map();
  let drawnPanels = new Map();
  let tables = new Map();
  let panels = new Map();

  function valueGrid({ grid, title, planes, scaleOf, hues, plane, attributes, label, editable, zero }) {
    return planes.map((values, index) => {
      const place = plane(index);
      const focus = view.focus.get(`${grid}|${place.key}`) ?? [0, 0];
      const clamped = [Math.min(focus[0], values.length - 1), Math.min(focus[1], values[0].length - 1)];
      // The title is the table's accessible name, which an update in place leaves as it was.
      const tableKey = `${grid}|${place.key}|${place.words}`;
      const table = planeTable({
        name: grid,
        title: `${title}${place.words}`,
        shape: [values.length, values[0].length],
        focus: clamped,
        describe(r, c) {
          const value = values[r][c];
          const editing = view.editing && view.editing.grid === grid && view.editing.plane === place.key && view.editing.row === r && view.editing.col === c;
          const nothing = zero?.(index, r, c);
          return {
            text: formatNumber(value),
            colours: heatColours(value, scaleOf, hues, view.scheme),
            attributes: { ...place.attributes, "data-zero": nothing ? "true" : undefined, ...attributes?.(index, r, c) },
            label: `${label ?? title}${place.words} row ${r}, col ${c}: ${formatNumber(value)}${nothing ? "; got no gradient" : ""}`,
            editor: editing ? editorFor(grid, place, r, c) : null,
          };
        },
      }, drawnTables.get(tableKey));
      tables.set(tableKey, table);
      table.dataset.plane = place.key;
      if (editable) table.dataset.editable = "true";
      return planes.length > 1 ? figure(table, place.caption) : table;
    });
  }

  const figures = new WeakMap();
  function figure(table, caption) {
    if (!figures.has(table)) {
      const box = node("figure", { class: "chain-plane" });
      box.append(node("figcaption", { class: "hint" }), table);
      figures.set(table, box);
    }
    const box = figures.get(table);
    setText(box.firstChild, caption);
    return box;
  }

  const setText = (target, text) => {
    if (target.textContent !== text) target.textContent = text;
  };
  // Puts `children` in `parent`, in order, unless they are there already.
  function placeChildren(parent, children) {
    const current = parent.children;
    if (current.length !== children.length || children.some((child, i) => current[i] !== child)) parent.replaceChildren(...children);
  }

  function editorFor(grid, place, r, c) {
    return node("input", {
      class: "cell-editor",
      type: "text",
      inputmode: "decimal",
      value: view.editing.draft,
      "aria-label": `New value for ${EDIT_NAMES[grid]}${place.words} row ${r}, col ${c}`,
      "data-editor": grid,
    });
  }

  function panel(key, title, caption, content, extra = {}) {
    if (!drawnPanels.has(key)) {
      const box = node("div", { class: "panel chain-panel", "data-panel": key });
      box.append(node("h3"), node("p", { class: "caption" }), node("div", { class: "chain-planes" }));
      drawnPanels.set(key, box);
    }
    const box = drawnPanels.get(key);
    panels.set(key, box);
    const [heading, captionBox, planes] = box.children;
    const shape = extra.shape ? node("span", { class: "shape" }, extra.shape) : null;
    if (heading.firstChild?.textContent !== title || (heading.lastElementChild?.textContent ?? null) !== (extra.shape ?? null)) {
      heading.replaceChildren(title, ...(shape ? [" ", shape] : []));
    }
    setText(captionBox, caption);
    placeChildren(planes, content);
    return box;
  }

  function drawGrids(state, trace) {
    tables = new Map();
    panels = new Map();
    const draw = ({ key, title, caption, shape, grid }) => panel(key, title, caption, valueGrid(grid), { shape });
    const { forward, backward } = chainPanels(state, trace);
    placeChildren(rows.forward, forward.map(draw));
    placeChildren(rows.backward, backward.map(draw));
    drawnTables = tables;
    drawnPanels = panels;

    view.cells = new Map();
    for (const cell of section.querySelectorAll("td[data-grid]")) {
      view.cells.set(placeKey(cell.dataset.grid, cell.closest("table").dataset.plane, cell.dataset.row, cell.dataset.col), cell);
    }
  }

  // ---- the tapped cell's marks and sentence ----

  function mark(grid, plane, row, col, attribute, note) {
    const cell = view.cells.get(placeKey(grid, plane, row, col));
    if (!cell) return;
    cell.setAttribute(attribute, "true");
    if (note) cell.setAttribute("aria-label", `${cell.getAttribute("aria-label")}; ${note}`);
  }

  function drawTap(trace) {
    const { tap } = view;
    if (!tap) return;
    mark(tap.grid, tap.plane, tap.row, tap.col, "aria-selected", "selected");
    const filters = trace.weight.length;
    const here = cellName([tap.row, tap.col]);
    if (tap.grid === "chain-input") {
      for (const [oh, ow] of trace.connections.feeds[tap.row][tap.col]) {
        for (let f = 0; f < filters; f += 1) {
          mark("chain-conv", String(f), oh, ow, "data-fed", `fed by X ${here}`);
          mark("chain-grad-conv", String(f), oh, ow, "data-fed", `sends gradient to X ${here}`);
        }
      }
      mark("chain-grad-input", tap.plane, tap.row, tap.col, "data-for-selected", `the sum for X ${here}`);
    } else if (tap.grid === "chain-pool") {
      const f = tap.channel;
      const width = trace.conv_output[0][0].length;
      const argmax = trace.pool_indices ? flatCell(trace.pool_indices[f][tap.row][tap.col], width) : null;
      for (const [r, c] of trace.pool_windows[tap.row][tap.col]) {
        const isArgmax = argmax && argmax[0] === r && argmax[1] === c;
        for (const grid of ["chain-conv", "chain-grad-conv"]) {
          mark(grid, String(f), r, c, "data-in-window", `in the window of Y2 ${here}`);
          if (isArgmax) mark(grid, String(f), r, c, "data-argmax", `maximum of Y2 ${here}`);
        }
      }
      mark("chain-grad-pool", String(f), tap.row, tap.col, "data-for-selected", `gradient of Y2 ${here}`);
    } else if (tap.grid === "chain-conv") {
      const channels = trace.input.length;
      for (const [r, c] of trace.connections.reads[tap.row][tap.col]) {
        for (let ch = 0; ch < channels; ch += 1) mark("chain-input", String(ch), r, c, "data-in-window", `read by Y1 ${here}`);
      }
      mark("chain-grad-conv", tap.plane, tap.row, tap.col, "data-for-selected", `gradient of Y1 ${here}`);
    } else if (tap.grid === "chain-weight") {
      const kw = trace.weight[0][0][0].length;
      const t = tap.row * kw + tap.col;
      const [f, oh, ow] = view.conv[0] === tap.filter ? view.conv : [tap.filter, 0, 0];
      const reads = trace.connections.reads;
      reads.forEach((line) => line.forEach((cells) => {
        const [r, c] = cells[t];
        mark("chain-input", String(tap.channel), r, c, "data-touched", `multiplied by W ${here}`);
      }));
      const [r, c] = reads[oh][ow][t];
      mark("chain-input", String(tap.channel), r, c, "data-in-window", `multiplied by W ${here} for Y1 ${cellName([oh, ow])}`);
      mark("chain-conv", String(f), oh, ow, "data-for-selected", "the selected Y1 cell");
      mark("chain-grad-weight", tap.plane, tap.row, tap.col, "data-for-selected", `the sum for W ${here}`);
    }
  }

  // ---- the loss, the plot, the lesson ----

  function drawLoss(state, trace) {
    lossOutput.textContent = trace.upstream === "loss" ? formatNumber(trace.loss) : "none";
    lossFormulaBox.textContent = lossFormula(trace);
    drawPlot(trace);
  }

  function drawPlot(trace) {
    const svg = controls.plot;
    const history = (trace.loss_history ?? []).map(decodeNumber).filter(Number.isFinite);
    const ns = "http://www.w3.org/2000/svg";
    const make = (tag, attributes) => {
      const made = document.createElementNS(ns, tag);
      for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, String(value));
      return made;
    };
    const [left, top, width, height] = [34, 8, 198, 66];
    const parts = [make("rect", { x: left, y: top, width, height, class: "plot-frame" })];
    if (history.length === 0) {
      const note = make("text", { x: left + 6, y: top + 36, class: "plot-text" });
      note.textContent = "no loss: the gradient is made up";
      parts.push(note);
      svg.setAttribute("aria-label", "No loss to plot: the gradient is made up.");
    } else {
      const high = Math.max(...history);
      const low = Math.min(0, ...history);
      const span = high - low || 1;
      const x = (i) => left + (history.length === 1 ? 0 : (i / (history.length - 1)) * width);
      const y = (v) => top + height - ((v - low) / span) * height;
      parts.push(make("polyline", { points: history.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" "), class: "plot-line" }));
      parts.push(make("circle", { cx: x(history.length - 1).toFixed(1), cy: y(history.at(-1)).toFixed(1), r: 3, class: "plot-dot" }));
      for (const [value, where] of [[high, top + 4], [low, top + height]]) {
        const label = make("text", { x: left - 4, y: where, class: "plot-text", "text-anchor": "end" });
        label.textContent = formatNumber(Number(value.toPrecision(3)));
        parts.push(label);
      }
      const axis = make("text", { x: left + width, y: top + height + 13, class: "plot-text", "text-anchor": "end" });
      axis.textContent = `step ${history.length - 1}`;
      parts.push(axis);
      svg.setAttribute("aria-label", `The loss over ${history.length - 1} steps: from ${formatNumber(history[0])} to ${formatNumber(history.at(-1))}.`);
    }
    svg.replaceChildren(...parts);
  }

  // ---- taps, keys, edits ----

  function cellOf(target) {
    const cell = target.closest?.("td[data-grid]");
    if (!cell || !section.contains(cell)) return null;
    const plane = cell.closest("table").dataset.plane;
    return {
      node: cell,
      grid: cell.dataset.grid,
      plane,
      filter: cell.dataset.filter !== undefined ? Number(cell.dataset.filter) : null,
      channel: cell.dataset.channel !== undefined ? Number(cell.dataset.channel) : 0,
      row: Number(cell.dataset.row),
      col: Number(cell.dataset.col),
      editable: cell.closest("table").dataset.editable === "true",
    };
  }

  const sameCell = (a, b) => a && b && a.grid === b.grid && a.plane === b.plane && a.row === b.row && a.col === b.col;

  function tap(cell) {
    view.focus.set(`${cell.grid}|${cell.plane}`, [cell.row, cell.col]);
    if (cell.grid === "chain-grad-pool" || (cell.grid === "chain-grad-conv" && !view.trace?.pool)) {
      if (view.state.cup === "hot" && cell.channel === 0) {
        change((state) => {
          state.hot = [cell.row, cell.col];
        });
        return;
      }
    }
    if (!TAPPABLE.has(cell.grid)) {
      if (cell.editable) startEditing(cell);
      return;
    }
    if (cell.editable && sameCell(view.tap, cell)) {
      startEditing(cell);
      return;
    }
    if (cell.grid === "chain-conv") view.conv = [cell.channel, cell.row, cell.col];
    view.tap = { ...cell, node: null };
    redraw();
    const sentence = explanation.textContent;
    announce(sentence);
  }

  // The exact spelling of the value an editor starts from: the state's for X and T, the
  // trace's (after the steps) for W and b, which become the new start.
  function valueAt(cell) {
    const { state, trace } = view;
    if (cell.grid === "chain-input") return state.cx[cell.channel]?.[cell.row]?.[cell.col];
    if (cell.grid === "chain-target") return state.ct[cell.channel]?.[cell.row]?.[cell.col];
    if (cell.grid === "chain-weight") return trace?.weight[cell.filter]?.[cell.channel]?.[cell.row]?.[cell.col];
    if (cell.grid === "chain-bias") return trace?.bias?.[cell.col];
    return undefined;
  }

  function startEditing(cell, draft) {
    const value = valueAt(cell);
    if (value === undefined) return;
    const initial = exactText(value);
    view.editing = { grid: cell.grid, plane: cell.plane, filter: cell.filter, channel: cell.channel, row: cell.row, col: cell.col, draft: draft ?? initial, initial };
    redraw();
    const editor = section.querySelector("[data-editor]");
    editor?.focus();
    if (editor && draft === undefined) editor.select();
  }

  function commitEdit(editor) {
    const editing = view.editing;
    if (!editing) return;
    if (editor.value.trim() === editing.initial) {
      cancelEdit();
      return;
    }
    let value;
    try {
      value = parseCellValue(editor.value, `${EDIT_NAMES[editing.grid]} cell ${cellName([editing.row, editing.col])}`);
    } catch (problem) {
      if (!(problem instanceof InputError)) throw problem;
      host.reportError(problem.message);
      editor.setAttribute("aria-invalid", "true");
      return;
    }
    host.reportError(null);
    view.editing = null;
    const { trace } = view;
    stopPlay();
    restart((state) => {
      // W and b start over from what the steps made of them (the trace's), with the edit.
      if (editing.grid === "chain-weight" || editing.grid === "chain-bias") {
        state.cw = trace.weight.map((slices) => slices.map((slice) => slice.map((row) => row.map(decodeNumber))));
        state.cb = trace.bias ? trace.bias.map(decodeNumber) : null;
      }
      if (editing.grid === "chain-input") state.cx[editing.channel][editing.row][editing.col] = value;
      else if (editing.grid === "chain-target") state.ct[editing.channel][editing.row][editing.col] = value;
      else if (editing.grid === "chain-weight") state.cw[editing.filter][editing.channel][editing.row][editing.col] = value;
      else state.cb[editing.col] = value;
    });
    focusCell(editing);
  }

  function cancelEdit() {
    const editing = view.editing;
    view.editing = null;
    host.reportError(null);
    redraw();
    if (editing) focusCell(editing);
  }

  function focusCell({ grid, plane, row, col }) {
    const cell = view.cells.get(placeKey(grid, plane, row, col));
    // A cell redrawn in place keeps its focus: focusing it again would only cost a relayout.
    if (cell && root().activeElement !== cell) cell.focus();
  }

  section.addEventListener("click", (event) => {
    if (event.target.closest("[data-editor]")) return;
    const cell = cellOf(event.target);
    if (cell) tap(cell);
  });

  bindGridKeys(section, {
    cellOf,
    lastCell(cell) {
      const last = [...cell.node.closest("table").querySelectorAll("td[data-grid]")].at(-1);
      return [Number(last.dataset.row), Number(last.dataset.col)];
    },
    moved: (cell, place) => view.focus.set(`${cell.grid}|${cell.plane}`, place),
    activate(cell) {
      tap(cell);
      focusCell(cell);
    },
    escape(cell) {
      if (!view.tap) return;
      view.tap = null;
      redraw();
      focusCell(cell);
    },
    editable: (cell) => cell.editable,
    startEditing,
    commit: commitEdit,
    cancel: cancelEdit,
  });

  // ---- the one render ----

  let drawnTrace = null;
  let drawnState = null;
  let drawnScheme = null;

  function redraw() {
    const { state, trace } = view;
    if (!trace) return;
    const focused = cellOf(root().activeElement ?? document.body);
    drawGrids(state, trace);
    drawTap(trace);
    explanation.textContent = tapSentence(trace, view.tap, view.conv);
    if (focused && !view.editing) focusCell(focused);
  }

  function render(state, trace, info) {
    // Any other state ends an edit: the cell edited belonged to the state left.
    if (view.editing && drawnState && JSON.stringify(state) !== JSON.stringify(drawnState)) view.editing = null;
    view.state = state;
    view.scheme = info.scheme;
    syncControls(state);
    section.dataset.busy = String(info.awaiting);
    if (!trace) {
      if (info.error) stopPlay();
      if (!drawnTrace) {
        const waiting = node("p", { class: "placeholder" }, info.error ? "No chain: this combination is not valid (see the message above)." : "The chain appears when Python is ready.");
        rows.forward.replaceChildren(waiting);
        rows.backward.replaceChildren();
        lossOutput.textContent = "…";
      }
      return;
    }
    // A tap on a cell the new trace no longer has is dropped.
    if (view.tap && !(trace.connections && tapFits(view.tap, trace))) view.tap = null;
    const sameDrawing = drawnTrace === trace && drawnScheme === view.scheme && JSON.stringify(drawnState) === JSON.stringify(state) && !view.editing;
    view.trace = trace;
    if (!sameDrawing) {
      redraw();
      drawLoss(state, trace);
      renderLesson(byId("chain-lesson"), chainLessonBlocks(trace));
      byId("chain-code-torch").textContent = chainTorchSnippet(state, trace);
      byId("chain-code-poolgrad").textContent = chainPoolgradSnippet(state);
      drawnTrace = trace;
      drawnState = state;
      drawnScheme = view.scheme;
    }
    continuePlay(trace);
  }

  function tapFits(place, trace) {
    const planes = {
      "chain-input": trace.input,
      "chain-conv": trace.conv_output,
      "chain-pool": trace.pool_output,
      "chain-weight": trace.weight[place.filter ?? 0],
    }[place.grid];
    const plane = planes?.[place.channel];
    return Boolean(plane && place.row < plane.length && place.col < plane[0].length);
  }

  return {
    requestKey: chainRequestKey,
    title: chainTitle,
    render,
  };
}
