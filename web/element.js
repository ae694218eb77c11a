// <pool-grad>'s host: the widget (widget/mount.js) mounted in the element's open shadow
// root with a model backed by the element's attributes and properties. pool-grad.js, at the
// site's root, loads this module. Every element of a document shares the page's one Python
// (runtime/page-traces.js: the site's shared worker, else one dedicated worker).
//
// Attributes (each also a property of the same name in camelCase; setting either redraws):
//   kernel stride padding dilation mode output-size norm-type ceil-mode count-include-pad
//   gradient unpool input grad-output selected: the state, spelled as the link spells it
//     ("3" or "3,2"; "max" | "avg" | "adaptive_max" | "adaptive_avg" | "lp"; "2" or
//     "Infinity"; "1,2;3,4"; "r,c"); a boolean is on when present, off when absent or
//     "false" / "0" / "off" (count-include-pad is on unless it says so); output-size,
//     norm-type and unpool apply in their modes only (the adaptive modes, lp, the max modes);
//   view picture picture-size picture-channel picture-repeat picture-selected: the picture
//     view (view="picture") and its settings; src: a picture for it to open (same origin,
//     or a server that allows CORS);
//   controls lesson exercise code player: the parts shown, each off unless present (and not
//     "off"): the grids and the status line are always there.
// Events (bubbling, composed): pool-grad:ready; pool-grad:change (detail: the state, in the
// model's keys); pool-grad:select (detail {row, col, argmax: [r, c] | null, window}).

import { localModel } from "./widget/model.js";
import { mount } from "./widget/mount.js";
import { InputError, matrixText, modelValues } from "./widget/state.js";

const STATE_ATTRIBUTES = {
  kernel: "kernel_size",
  stride: "stride",
  padding: "padding",
  dilation: "dilation",
  mode: "mode",
  "output-size": "output_size",
  "norm-type": "norm_type",
  "ceil-mode": "ceil_mode",
  "count-include-pad": "count_include_pad",
  gradient: "gradient",
  unpool: "unpool",
  input: "x",
  "grad-output": "grad_output",
  selected: "selection",
  // The chain view (view="chain"), its settings spelled as its link spells them.
  view: "view",
  "chain-input": "chain_x",
  "chain-weight": "chain_weight",
  "chain-bias": "chain_bias",
  "chain-relu": "chain_relu",
  "chain-pool": "chain_pool",
  "chain-pool-kernel-size": "chain_pool_kernel_size",
  "chain-upstream": "chain_upstream",
  "chain-hot": "chain_hot",
  "chain-target": "chain_target",
  "learning-rate": "learning_rate",
  steps: "steps",
  // The picture view (view="picture"): a shipped sample and its settings, as its link spells them.
  picture: "picture",
  "picture-size": "picture_size",
  "picture-channel": "picture_channel",
  "picture-repeat": "picture_repeat",
  "picture-selected": "picture_selection",
};
const FLAGS = new Set(["ceil-mode", "count-include-pad", "gradient", "unpool", "chain-relu"]);
const PART_ATTRIBUTES = ["controls", "lesson", "exercise", "code", "player"];
// The picture view's own picture: a same-origin URL, or one whose server allows this site
// to read it (CORS); a refusal is said in the view's #picture-error.
const SOURCE_ATTRIBUTE = "src";
const OFF = new Set(["false", "0", "off"]);
const STYLE = new URL("./style.css", import.meta.url).href;

const camel = (name) => name.replace(/-(\w)/g, (_, letter) => letter.toUpperCase());
const isOn = (text) => text !== null && !OFF.has(text.trim().toLowerCase());

// An attribute's text as a model value: null when absent (the state's default).
function attributeValue(name, text) {
  if (FLAGS.has(name)) {
    if (text === null) return name === "count-include-pad" ? null : false;
    return isOn(text);
  }
  return text;
}

// The model: the attributes' values, then whatever the learner changed.
function attributeModel(element) {
  return localModel(Object.fromEntries(Object.entries(STATE_ATTRIBUTES)
    .map(([name, key]) => [key, attributeValue(name, element.getAttribute(name))])));
}

const MATRICES = new Set(["input", "grad-output"]);

// A property's value as its attribute's text (null removes the attribute); a matrix that is
// not a 2-D grid throws InputError (state.js matrixText).
function attributeText(name, value) {
  if (value === null || value === undefined || value === false) {
    return name === "count-include-pad" && value === false ? "false" : null;
  }
  if (value === true) return "";
  if (MATRICES.has(name) && typeof value !== "string") return matrixText(STATE_ATTRIBUTES[name], value);
  if (Array.isArray(value)) return value.join(",");
  return String(value);
}

export class PoolGradElement extends HTMLElement {
  static observedAttributes = [...Object.keys(STATE_ATTRIBUTES), ...PART_ATTRIBUTES, SOURCE_ATTRIBUTE];

  constructor() {
    super();
    this.attachShadow({ mode: "open" });
    this.model = attributeModel(this);
    this.widget = null;
    this.mounting = null;
  }

  connectedCallback() {
    if (!this.mounting) this.mounting = this.draw();
  }

  // A move (a framework re-rendering a list) disconnects and connects again in one task: the
  // widget stays, and only an element still out of the document once the mounting settles
  // loses it.
  disconnectedCallback() {
    this.mounting?.then(() => {
      if (this.isConnected || !this.mounting) return;
      const mounting = this.mounting;
      this.mounting = null;
      mounting.then((widget) => {
        widget.destroy();
        if (this.widget === widget) this.widget = null;
      });
    });
  }

  attributeChangedCallback(name, before, after) {
    if (before === after) return;
    // A new value ends a property's refusal (the refused value never reached its attribute).
    if (name in STATE_ATTRIBUTES) this.model.update({ [STATE_ATTRIBUTES[name]]: attributeValue(name, after), error: null });
    else if (name === SOURCE_ATTRIBUTE) {
      if (after) this.mounting?.then((widget) => widget.loadPicture(new URL(after, document.baseURI).href));
    } else if (this.mounting) {
      // A part switched on or off: the widget is drawn again, with the model's state.
      const mounting = this.mounting;
      this.mounting = mounting.then((widget) => {
        widget.destroy();
        return this.draw();
      });
    }
  }

  async draw() {
    const link = Object.assign(document.createElement("link"), { rel: "stylesheet", href: STYLE });
    const box = Object.assign(document.createElement("div"), { className: "widget pool-grad" });
    this.shadowRoot.replaceChildren(link, box);
    const parts = Object.fromEntries(PART_ATTRIBUTES.map((part) => [part, isOn(this.getAttribute(part))]));
    const widget = await mount(box, this.model, {
      parts,
      name: this.getAttribute("aria-label") || this.id || "pool-grad",
      invalid: (message) => `The element's settings are not valid: ${message}. Fix the attribute; the last good view stays.`,
    });
    const send = (type, detail) => this.dispatchEvent(new CustomEvent(`pool-grad:${type}`, { detail, bubbles: true, composed: true }));
    widget.on("ready", () => send("ready", modelValues(widget.state())));
    widget.on("change", (state) => send("change", modelValues(state)));
    widget.on("select", (detail) => send("select", detail));
    this.widget = widget;
    const source = this.getAttribute(SOURCE_ATTRIBUTE);
    if (source) widget.loadPicture(new URL(source, document.baseURI).href);
    return widget;
  }

  // The state shown, in the model's keys (poolgrad.trace()'s argument names).
  get state() {
    return this.widget ? modelValues(this.widget.state()) : null;
  }

  // The trace shown, or null while it is being computed or the state is refused.
  get trace() {
    return this.widget?.trace() ?? null;
  }
}

for (const name of [...Object.keys(STATE_ATTRIBUTES), ...PART_ATTRIBUTES, SOURCE_ATTRIBUTE]) {
  Object.defineProperty(PoolGradElement.prototype, camel(name), {
    get() {
      return this.getAttribute(name);
    },
    set(value) {
      let text;
      try {
        text = PART_ATTRIBUTES.includes(name) ? (value ? "" : null) : attributeText(name, value);
      } catch (problem) {
        if (!(problem instanceof InputError)) throw problem;
        // Refused as a bad attribute is: the status says why, the last good view stays.
        this.model.update({ error: problem.message });
        return;
      }
      if (this.model.get("error")) this.model.update({ error: null });
      if (text === null) this.removeAttribute(name);
      else this.setAttribute(name, text);
    },
  });
}

if (!customElements.get("pool-grad")) customElements.define("pool-grad", PoolGradElement);
