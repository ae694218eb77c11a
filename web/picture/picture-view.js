// The picture view (view=picture): a picture pooled with the pool view's settings, 1 to 4
// times, its gradient of ones routed back, and one output pixel's window in numbers. It is
// loaded the first time the view opens (mount.js imports it), with its samples.
//
// Data flows one way, as in the pool view: state (the hash) + the picture's pixels ->
// Python (poolgrad.picture through the worker, run_trace's "picture" kind: the pixels go
// as bytes, the planes come back as bytes) -> draw. Nothing here computes pooling: the
// planes, the output sizes, the zoom's numbers and the gradient's share are Python's.
//
// mountPicture(section, host) draws into `section`; host: {latest(request) -> answer
// promise, change(mutator), announce(text), picture}. `picture` is optional: a picture
// the host holds (a notebook's kernel), {at(size) -> {name, width, height, original:
// [height, width], scaled} or {error}}, whose pixels the host's Python has; the request
// then goes without pixels, and the samples, the file picker, drop and paste are not
// offered. Returns {render(state), loadURL(url), destroy()}.

import { formatNumber, sizeText } from "../widget/format.js";
import { explanationText, viewTitle } from "../lesson/sentences.js";
import { traceRequest } from "../widget/state.js";
import { PictureError, decodePicture, fetchPicture, pixelsOf } from "./decode.js";
import { PICTURE_SAMPLES } from "./keys.js";
import { pictureSnippets } from "./snippet.js";

// Beside this module: its stylesheet and the samples' folder (both null in the notebook
// bundle, whose widget.css holds the stylesheet and whose pictures are the kernel's).
const STYLE = new URL("./picture.css", import.meta.url).href;
const SAMPLES = new URL("./samples/", import.meta.url).href;

const SAMPLE_TEXT = { camera: "Camera (fine detail)", text: "Text (high contrast)", chelsea: "Chelsea the cat", coffee: "Coffee cup (colour)" };
const CHANNEL_TEXT = { rgb: "RGB, each channel pooled on its own", grey: "Grey: round(0.299 R + 0.587 G + 0.114 B)", r: "Red", g: "Green", b: "Blue" };
const CHANNEL_NAMES = { rgb: ["red", "green", "blue"], grey: ["grey"], r: ["red"], g: ["green"], b: ["blue"] };

const MARKUP = `
<h2 id="picture-title">Pooling a picture</h2>
<p class="hint picture-privacy" data-own-picture>The picture never leaves the browser: it is decoded and pooled on this device by the page's own Python, and nothing is uploaded.</p>
<div class="picture-controls">
  <div class="field" data-own-picture><label for="picture-sample">Sample</label>
    <select id="picture-sample">${PICTURE_SAMPLES.map((name) => `<option value="${name}">${SAMPLE_TEXT[name] ?? name}</option>`).join("")}<option value="own" hidden>Your picture</option></select></div>
  <div class="field" data-own-picture><label for="picture-file">Your own picture</label>
    <input id="picture-file" type="file" accept="image/*"></div>
  <div class="field"><label for="picture-size">Longer side</label>
    <select id="picture-size">${["32", "64", "128", "256"].map((n) => `<option value="${n}">${n} px</option>`).join("")}</select></div>
  <div class="field"><label for="picture-channel">Channel</label>
    <select id="picture-channel">${Object.entries(CHANNEL_TEXT).map(([value, text]) => `<option value="${value}">${text}</option>`).join("")}</select></div>
  <div class="field"><label for="picture-repeat">Repeat</label>
    <select id="picture-repeat">${[1, 2, 3, 4].map((n) => `<option value="${n}">${n} ×</option>`).join("")}</select></div>
</div>
<p class="hint"><span data-own-picture>Drop a picture on the pictures below, or paste one (Ctrl+V / ⌘V). </span>Tap the output (or focus it and use the arrow keys) to see one pixel's window in numbers.</p>
<p id="picture-error" class="picture-error" role="alert"></p>
<p id="picture-note" class="picture-note" aria-live="polite"></p>
<div id="picture-row" class="picture-row"></div>
<p id="picture-share" class="picture-share"></p>
<section class="picture-zoom panel" aria-labelledby="picture-zoom-title">
  <h3 id="picture-zoom-title">The selected pixel in numbers</h3>
  <div class="picture-zoom-grids">
    <div><h4>Its window, with a margin <span id="picture-zoom-where" class="shape"></span></h4><div id="picture-zoom-input" class="grid-box"></div></div>
    <div><h4>Output</h4><div id="picture-zoom-output" class="grid-box"></div></div>
  </div>
  <p id="picture-explanation" class="explanation"></p>
</section>
<details id="picture-code" class="panel code-view" data-own-picture>
  <summary>Code: this picture in PyTorch and poolgrad</summary>
  <p class="hint">Python that loads the same picture file into an array of the same shape and pools it as this view does (it needs Pillow to read the file). Save picture writes the input, the output and the gradient side by side as one PNG.</p>
  <p><button id="picture-save" type="button">Save picture</button></p>
  <h4>PyTorch</h4><pre><code id="picture-code-torch"></code></pre>
  <h4>poolgrad</h4><pre><code id="picture-code-poolgrad"></code></pre>
</details>
`;

// Each plane of the answer as a typed array over the transferred bytes.
function planesOf(answer) {
  const planes = {};
  for (const { name, shape, offset, dtype } of answer.picture.planes) {
    const count = shape[0] * shape[1] * shape[2];
    planes[name] = { shape, values: dtype === "uint8" ? new Uint8Array(answer.planes, offset, count) : new Float32Array(answer.planes, offset, count) };
  }
  return planes;
}

// A plane's RGBA pixels for a canvas: three channels as colour, one channel as grey (the
// colour channels tinted). The picture's own values are 0–255 already and drawn as they
// are; values beyond (LP pooling) and the gradient (`stretch`) are stretched from
// `[low, high]` to 0–255.
function imageOf({ shape: [channels, height, width], values }, channel, [low, high], stretch) {
  const image = new ImageData(width, height);
  const data = image.data;
  const plane = height * width;
  const span = high > low ? high - low : 1;
  const level = (v) => (!stretch && high <= 255 && low >= 0 ? v : ((v - low) / span) * 255);
  // One channel's gradient in the pool view's gradient green (GRADIENT_HUES, hue 160), so
  // it never reads as the picture's own values.
  const tint = stretch ? [0.2, 1, 0.75] : { r: [1, 0, 0], g: [0, 1, 0], b: [0, 0, 1] }[channel] ?? [1, 1, 1];
  for (let i = 0; i < plane; i += 1) {
    if (channels === 3) {
      data[4 * i] = level(values[i]);
      data[4 * i + 1] = level(values[plane + i]);
      data[4 * i + 2] = level(values[2 * plane + i]);
    } else {
      const v = level(values[i]);
      data[4 * i] = v * tint[0];
      data[4 * i + 1] = v * tint[1];
      data[4 * i + 2] = v * tint[2];
    }
    data[4 * i + 3] = 255;
  }
  return image;
}

function formulaText(formula) {
  if (!formula) return "placed by the output size";
  const axis = ({ n, k, s, p, d, numerator, size }) => `⌊(${n} + 2·${p} − ${d}·(${k}−1) − 1) / ${s}⌋ + 1 = ⌊${numerator}/${s}⌋ + 1 = ${size}`;
  return `rows ${axis(formula.rows)}; cols ${axis(formula.cols)}`;
}

export function mountPicture(section, host) {
  section.innerHTML = MARKUP;
  if (STYLE) {
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = STYLE;
    section.prepend(link);
  }
  // A host's picture: nothing of the learner's own to open, no sample, no Code panel (the
  // host's own code made the picture).
  const hostPicture = host.picture ?? null;
  if (hostPicture) for (const part of section.querySelectorAll("[data-own-picture]")) part.hidden = true;
  const $ = (id) => section.querySelector(`#${id}`);
  const fields = { sample: $("picture-sample"), file: $("picture-file"), size: $("picture-size"), channel: $("picture-channel"), repeat: $("picture-repeat") };
  const errorBox = $("picture-error");
  const note = $("picture-note");
  const row = $("picture-row");
  const share = $("picture-share");
  const zoomInput = $("picture-zoom-input");
  const zoomOutput = $("picture-zoom-output");
  const zoomWhere = $("picture-zoom-where");
  const explanation = $("picture-explanation");
  const code = { torch: $("picture-code-torch"), poolgrad: $("picture-code-poolgrad") };

  // Save picture: the input, every stage and the gradient, side by side at one height,
  // each scaled by whole pixels (no smoothing), as one PNG.
  $("picture-save").addEventListener("click", () => {
    const shown = [...canvases.values()].map((entry) => entry.canvas);
    if (!shown.length) return;
    const height = Math.max(...shown.map((canvas) => canvas.height));
    const gap = 8;
    const widths = shown.map((canvas) => Math.round(canvas.width * (height / canvas.height)));
    const sheet = document.createElement("canvas");
    sheet.width = widths.reduce((sum, width) => sum + width, 0) + gap * (shown.length - 1);
    sheet.height = height;
    const context = sheet.getContext("2d");
    context.imageSmoothingEnabled = false;
    let x = 0;
    shown.forEach((canvas, index) => {
      context.drawImage(canvas, x, 0, widths[index], height);
      x += widths[index] + gap;
    });
    const link = document.createElement("a");
    link.download = "pooled-picture.png";
    link.href = sheet.toDataURL("image/png");
    link.click();
  });

  const view = {
    state: null,
    announced: null, // the selection whose sentence the screen reader last heard
    own: null, // the learner's own picture: {picture (decoded), name}
    decoded: new Map(), // sample name -> decoded picture (promise)
    pixels: null, // {key, pixels, width, height, scaled, transparent, from}
    answer: null,
    asked: null,
    destroyed: false,
    pending: 0, // work under way (a decode, a request): #picture-row is aria-busy meanwhile
  };

  // Runs `work` with #picture-row marked busy until it and every other piece of work ends
  // (the browser tests wait for that, as the learner sees the dimmed pictures).
  async function busy(work) {
    view.pending += 1;
    row.setAttribute("aria-busy", "true");
    try {
      return await work();
    } finally {
      view.pending -= 1;
      if (view.pending === 0) row.setAttribute("aria-busy", "false");
    }
  }

  // A refused file's sentence stays until the next file or sample; a refused pooling's
  // goes with the next good answer.
  function showError(text, from = "file") {
    errorBox.textContent = text;
    view.errorFrom = text ? from : null;
  }
  showError("");

  function sample(name) {
    if (!view.decoded.has(name)) {
      if (!SAMPLES) return Promise.reject(new PictureError(`The sample ${name} is not here: this view shows the picture its host gives.`));
      const url = new URL(`${name}.png`, SAMPLES);
      const loading = fetch(url).then((response) => {
        if (!response.ok) throw new PictureError(`The sample ${name} could not be loaded: the server answered HTTP ${response.status}.`);
        return response.blob();
      }).then((blob) => decodePicture(blob, 256));
      loading.catch(() => view.decoded.delete(name));
      view.decoded.set(name, loading);
    }
    return view.decoded.get(name);
  }

  // The learner's picture (a file, a drop, a paste, a URL): decoded, then shown; a refusal
  // keeps the last good picture.
  function open(blobPromise, name) {
    return busy(() => openNow(blobPromise, name));
  }

  async function openNow(blobPromise, name) {
    try {
      const blob = await blobPromise;
      const picture = await decodePicture(blob, Number(view.state?.psize ?? 128));
      view.own = { picture, name };
      showError("");
      fields.sample.value = "own";
      await refreshNow();
    } catch (error) {
      showError(error instanceof PictureError ? error.message : `The picture could not be opened: ${error.message ?? error}`);
    }
  }

  fields.file.addEventListener("change", () => {
    const [file] = fields.file.files;
    if (file) open(Promise.resolve(file), file.name);
  });
  fields.sample.addEventListener("change", () => {
    if (fields.sample.value === "own") return;
    view.own = null;
    showError("");
    host.change((state) => Object.assign(state, { pic: fields.sample.value, psel: null }));
  });
  const settingFields = [["size", "psize"], ["channel", "pch"], ["repeat", "prep"]];
  for (const [field, key] of settingFields) {
    fields[field].addEventListener("change", () => host.change((state) => Object.assign(state, { [key]: fields[field].value })));
  }
  const onDrop = (event) => {
    event.preventDefault();
    if (hostPicture) return;
    const [file] = event.dataTransfer?.files ?? [];
    if (file) open(Promise.resolve(file), file.name);
    else showError("Only a picture file can be dropped here.");
  };
  row.addEventListener("dragover", (event) => event.preventDefault());
  row.addEventListener("drop", onDrop);
  const onPaste = (event) => {
    if (section.hidden || hostPicture) return;
    const item = [...(event.clipboardData?.items ?? [])].find((entry) => entry.kind === "file");
    if (!item) return;
    event.preventDefault();
    open(Promise.resolve(item.getAsFile()), "pasted picture");
  };
  document.addEventListener("paste", onPaste);

  // The canvases: input, each stage (the last one is the output), the gradient.
  const canvases = new Map();
  function canvasFor(name, label) {
    if (!canvases.has(name)) {
      const figure = document.createElement("figure");
      figure.className = "picture-figure";
      const frame = document.createElement("div");
      frame.className = "picture-frame";
      const canvas = document.createElement("canvas");
      canvas.dataset.picture = name;
      canvas.setAttribute("role", "img");
      const outline = document.createElement("div");
      outline.className = "picture-outline";
      outline.hidden = true;
      const marker = document.createElement("div");
      marker.className = "picture-marker";
      marker.hidden = true;
      frame.append(canvas, outline, marker);
      const caption = document.createElement("figcaption");
      figure.append(frame, caption);
      canvases.set(name, { figure, canvas, caption, outline, marker });
      if (name === "output") bindOutput(canvas);
    }
    const entry = canvases.get(name);
    entry.label = label;
    return entry;
  }

  function bindOutput(canvas) {
    canvas.tabIndex = 0;
    const select = (pixel) => host.change((state) => Object.assign(state, { psel: pixel }));
    canvas.addEventListener("click", (event) => {
      const box = canvas.getBoundingClientRect();
      const col = Math.min(canvas.width - 1, Math.max(0, Math.floor(((event.clientX - box.left) / box.width) * canvas.width)));
      const r = Math.min(canvas.height - 1, Math.max(0, Math.floor(((event.clientY - box.top) / box.height) * canvas.height)));
      select([r, col]);
    });
    canvas.addEventListener("keydown", (event) => {
      const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
      const move = moves[event.key];
      if (!move) return;
      event.preventDefault();
      const [r, c] = view.state.psel ?? [0, 0];
      const start = view.state.psel === null;
      select([Math.min(canvas.height - 1, Math.max(0, r + (start ? 0 : move[0]))), Math.min(canvas.width - 1, Math.max(0, c + (start ? 0 : move[1])))]);
    });
  }

  // The pixels to send for the state: the learner's picture or the sample, at the size.
  const pixelsKey = (state) => `${hostPicture ? "host" : view.own ? `own:${view.own.name}` : `sample:${state.pic}`} ${state.psize}`;

  async function pixelsFor(state) {
    const size = Number(state.psize);
    if (hostPicture) return hostPixels(state, size);
    const from = view.own ? `own:${view.own.name}` : `sample:${state.pic}`;
    const key = pixelsKey(state);
    if (view.pixels?.key === key) return view.pixels;
    const picture = view.own ? view.own.picture : await sample(state.pic);
    view.pixels = { key, from, source: picture, ...pixelsOf(picture, size) };
    return view.pixels;
  }

  // The host's picture at the size: its sides, and no pixels (the host's Python has them).
  function hostPixels(state, size) {
    const key = pixelsKey(state);
    if (view.pixels?.key === key) return view.pixels;
    const given = hostPicture.at(size);
    if (given.error) throw new PictureError(given.error);
    const [originalHeight, originalWidth] = given.original;
    view.pixels = {
      key, from: "host", source: { width: originalWidth, height: originalHeight, name: given.name },
      pixels: null, width: given.width, height: given.height, scaled: given.scaled, transparent: false,
    };
    return view.pixels;
  }

  function requestFor(state, pixels) {
    const { x, grad_output: gradOutput, unpool, ...settings } = traceRequest({ ...state, x: [[0]], g: null });
    return {
      ...settings,
      kind: "picture",
      shape: [pixels.height, pixels.width, 4],
      channel: state.pch,
      repeat: Number(state.prep),
      gradient: state.grad,
      ...(state.psel ? { selection: state.psel } : {}),
    };
  }

  function refresh() {
    return busy(refreshNow);
  }

  async function refreshNow() {
    const state = view.state;
    if (!state || view.destroyed) return;
    let pixels;
    try {
      pixels = await pixelsFor(state);
    } catch (error) {
      showError(error instanceof PictureError ? error.message : `The picture could not be read: ${error.message ?? error}`);
      return;
    }
    // A picture opened (or a state changed) while these pixels were decoded: the newer
    // refresh asks for it.
    if (pixels.key !== pixelsKey(view.state) || state !== view.state) return;
    const request = requestFor(state, pixels);
    const json = JSON.stringify(request);
    const askKey = `${pixels.key} ${json}`;
    if (view.asked === askKey) return;
    view.asked = askKey;
    let answer;
    try {
      answer = await host.latest({ json, pixels: pixels.pixels });
    } catch {
      view.asked = null;
      return; // the page's #status says why Python is not there
    }
    if (answer.superseded || view.destroyed || view.asked !== askKey) return;
    if (answer.error) {
      showError(`Not a valid pooling of this picture: ${answer.error}`, "pooling");
      return;
    }
    view.answer = { ...answer, pixels, state, planes: planesOf(answer) };
    // How long Python took in the worker (bench_browser.py reads it beside its own clock).
    row.dataset.pythonMs = String(Math.round(answer.ms ?? 0));
    if (view.errorFrom === "pooling") showError("");
    draw();
  }

  function draw() {
    const { picture, planes, pixels, state } = view.answer;
    const settings = viewTitle(state);
    const stages = picture.stages;
    const shown = ["input", ...stages.map((_, i) => (i === stages.length - 1 ? "output" : `stage-${i + 1}`))];
    if (picture.gradient_share) shown.push("grad-input");
    const inputSide = sizeText([pixels.height, pixels.width]);
    const entries = shown.map((name, index) => {
      if (name === "input") return [name, "input", canvasFor(name, `Input, ${inputSide}`)];
      if (name === "grad-input") return [name, "grad-input", canvasFor(name, `Gradient at the input, ${inputSide}`)];
      const stage = stages[index - 1];
      const side = sizeText(stage.shape.slice(1));
      const title = stages.length === 1 ? "Output" : `${name === "output" ? "Output, stage" : "Stage"} ${index}`;
      return [name, `stage-${index}`, canvasFor(name, `${title}, ${side}`), stage];
    });
    for (const [name, entry] of canvases) {
      if (!shown.includes(name)) {
        entry.figure.remove();
        canvases.delete(name);
      }
    }
    for (const [name, plane, entry, stage] of entries) {
      const values = planes[plane];
      const [, height, width] = values.shape;
      if (entry.canvas.width !== width) entry.canvas.width = width;
      if (entry.canvas.height !== height) entry.canvas.height = height;
      entry.canvas.style.aspectRatio = `${width} / ${height}`;
      const range = picture.ranges[plane].map(Number);
      entry.canvas.getContext("2d").putImageData(imageOf(values, state.pch, name === "grad-input" ? [0, range[1]] : range, name === "grad-input"), 0, 0);
      const channels = CHANNEL_NAMES[state.pch].join(", ");
      let alt = `${entry.label} pixels, ${channels}`;
      if (stage) alt += `, after ${settings}; output size ${formulaText(stage.formula)}`;
      if (name === "grad-input") alt += `: an upstream gradient of ones routed back; the brighter, the more gradient`;
      entry.canvas.setAttribute("aria-label", alt);
      entry.caption.textContent = entry.label;
      if (stage) {
        const formula = document.createElement("small");
        formula.textContent = formulaText(stage.formula);
        entry.caption.append(document.createElement("br"), formula);
      }
      row.append(entry.figure);
    }
    const notes = [];
    const source = hostPicture ? pixels.source.name : view.own ? view.own.name : `${SAMPLE_TEXT[state.pic] ?? state.pic} (sample)`;
    const { width: originalWidth, height: originalHeight } = pixels.source;
    notes.push(pixels.scaled
      ? `${source}: scaled down from ${sizeText([originalHeight, originalWidth])} to ${inputSide} pixels (longer side ${state.psize}), keeping its aspect.`
      : `${source}: ${inputSide} pixels, used pixel for pixel.`);
    notes.push(...(pixels.source.notes ?? []));
    if (pixels.transparent) notes.push("Its transparent parts are laid over white before pooling.");
    note.textContent = notes.join(" ");
    fields.sample.value = view.own ? "own" : state.pic;
    fields.sample.querySelector('option[value="own"]').hidden = !view.own;
    fields.size.value = state.psize;
    fields.channel.value = state.pch;
    fields.repeat.value = state.prep;
    if (picture.gradient_share) {
      const { reached, pixels: total } = picture.gradient_share;
      share.textContent = `${reached} of the input's ${total} pixels (${formatNumber(Math.round((reached / total) * 1000) / 10)} %) got some gradient${state.mode === "max" ? ": the ones that won a window" : ""}.`;
      share.hidden = false;
    } else {
      share.hidden = true;
    }
    const snippets = pictureSnippets(state, view.own ? view.own.name.split("/").pop() : `${state.pic}.png`);
    code.torch.textContent = snippets.torch;
    code.poolgrad.textContent = snippets.poolgrad;
    drawZoom();
  }

  function gridTable(name, rows, cols, cell) {
    const table = document.createElement("table");
    table.className = "grid";
    table.dataset.grid = name;
    table.setAttribute("role", "grid");
    const head = document.createElement("tr");
    const corner = document.createElement("th");
    corner.setAttribute("aria-hidden", "true");
    head.append(corner);
    for (const c of cols) {
      const th = document.createElement("th");
      th.scope = "col";
      th.textContent = String(c);
      head.append(th);
    }
    table.append(head);
    for (const r of rows) {
      const tr = document.createElement("tr");
      const th = document.createElement("th");
      th.scope = "row";
      th.textContent = String(r);
      tr.append(th);
      for (const c of cols) {
        const td = document.createElement("td");
        td.className = "cell";
        td.setAttribute("role", "gridcell");
        td.dataset.grid = name;
        td.dataset.row = String(r);
        td.dataset.col = String(c);
        cell(td, r, c);
        tr.append(td);
      }
      table.append(tr);
    }
    return table;
  }

  function drawZoom() {
    const { picture, state } = view.answer;
    const zoom = picture.zoom;
    const last = picture.stages.length;
    const windowOn = last === 1 ? "input" : `stage-${last - 1}`;
    for (const entry of canvases.values()) {
      entry.outline.hidden = true;
      entry.marker.hidden = true;
    }
    if (!zoom) {
      zoomInput.replaceChildren();
      zoomOutput.replaceChildren();
      zoomWhere.textContent = "";
      explanation.textContent = "Tap a pixel of the output (or focus it and press an arrow key) to see its window in numbers.";
      return;
    }
    const [i, j] = zoom.selected;
    const rowsIn = zoom.window_rows[i];
    const colsIn = zoom.window_cols[j];
    const [height, width] = zoom.input_shape;
    const inside = (r, c) => r >= 0 && c >= 0 && r < height && c < width;
    const argmax = zoom.argmax?.[i]?.[j] ?? null;
    const span = (lines) => [Math.min(...lines), Math.max(...lines)];
    const [top, bottom] = span(rowsIn.filter((r) => r >= 0 && r < height));
    const [left, right] = span(colsIn.filter((c) => c >= 0 && c < width));
    const target = canvases.get(windowOn);
    if (target) {
      Object.assign(target.outline.style, {
        left: `${(left / width) * 100}%`, top: `${(top / height) * 100}%`,
        width: `${((right - left + 1) / width) * 100}%`, height: `${((bottom - top + 1) / height) * 100}%`,
      });
      target.outline.hidden = false;
    }
    const output = canvases.get("output");
    const [outH, outW] = zoom.output_shape;
    Object.assign(output.marker.style, { left: `${(j / outW) * 100}%`, top: `${(i / outH) * 100}%`, width: `${100 / outW}%`, height: `${100 / outH}%` });
    output.marker.hidden = false;
    const lines = (a, b) => Array.from({ length: b - a + 1 }, (_, k) => a + k);
    const boxRows = lines(...zoom.box.rows);
    const boxCols = lines(...zoom.box.cols);
    const windowSet = new Set(rowsIn.flatMap((r) => colsIn.map((c) => `${r},${c}`)));
    zoomInput.replaceChildren(gridTable("zoom-input", boxRows, boxCols, (td, r, c) => {
      const value = zoom.input[r][c];
      td.textContent = formatNumber(value);
      const roles = [];
      if (windowSet.has(`${r},${c}`) && inside(r, c)) {
        td.dataset.inWindow = "true";
        roles.push("in the window");
      }
      if (argmax && argmax[0] === r && argmax[1] === c) {
        td.dataset.argmax = "true";
        roles.push("the maximum");
      }
      td.setAttribute("aria-label", `Row ${r}, col ${c}: ${formatNumber(value)}${roles.length ? `; ${roles.join("; ")}` : ""}`);
    }));
    zoomOutput.replaceChildren(gridTable("zoom-output", [i], [j], (td) => {
      td.textContent = formatNumber(zoom.output[i][j]);
      td.setAttribute("aria-selected", "true");
      td.setAttribute("aria-label", `Output row ${i}, col ${j}: ${formatNumber(zoom.output[i][j])}`);
    }));
    const channel = CHANNEL_NAMES[state.pch][zoom.channel];
    zoomWhere.textContent = `(${channel} channel of ${last === 1 ? "the input" : `stage ${last - 1}`})`;
    explanation.textContent = explanationText({ sel: [i, j], grad: state.grad }, zoom);
    // A new selection is said, as the pool view says a tapped cell's sentence.
    const said = `${i},${j}`;
    if (view.announced !== said) {
      view.announced = said;
      host.announce(explanation.textContent);
    }
  }

  return {
    render(state) {
      view.state = state;
      fields.size.value = state.psize;
      fields.channel.value = state.pch;
      fields.repeat.value = state.prep;
      if (!view.own) fields.sample.value = state.pic;
      refresh();
    },
    loadURL(url) {
      open(fetchPicture(url), url);
    },
    destroy() {
      view.destroyed = true;
      document.removeEventListener("paste", onPaste);
    },
  };
}
