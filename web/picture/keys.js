// The picture view's own keys (view=picture): its rows of state.js's one table (the hash),
// its model keys and model values. This module adds them to the table when it loads
// (registerView), which the picture view's module (picture-view.js) makes happen;
// widget/views.js loads it before a link or a model that opens the picture is read. The
// pooling settings (k, s, p, d, ceil, mode, grad, ...) are the pool view's keys, which apply
// to the picture too.

import { registerView } from "../widget/state.js";

// The shipped samples (samples/NAME.png, pinned in sitebuild/pins.py, their sources in
// SOURCES.md beside them), the first one the view's start.
export const PICTURE_SAMPLES = ["camera", "text", "chelsea", "coffee"];

const PROPERTIES = [
  // A shipped sample; a learner's own picture stays in the browser and out of the link,
  // which names the sample shown before it.
  { key: "pic", kind: "enum", values: PICTURE_SAMPLES, initial: () => PICTURE_SAMPLES[0], written: "always", only: true },
  { key: "psize", kind: "enum", values: ["32", "64", "128", "256"], initial: () => "128", written: "unless-initial", only: true },
  { key: "pch", kind: "enum", values: ["rgb", "grey", "r", "g", "b"], initial: () => "rgb", written: "unless-initial", only: true },
  { key: "prep", kind: "enum", values: ["1", "2", "3", "4"], initial: () => "1", written: "unless-initial", only: true },
  // The selected pixel of the picture's (last) output: row,col.
  { key: "psel", kind: "selection", digits: 3, initial: () => null, written: "unless-initial", only: true },
];

// Model key -> hash key (the element's attributes name these).
const MODEL_KEYS = {
  picture: "pic",
  picture_size: "psize",
  picture_channel: "pch",
  picture_repeat: "prep",
  picture_selection: "psel",
};

// The picture view's model values: null outside it (the keys are then left out).
function modelValues(state) {
  const picture = state.view === "picture";
  return {
    picture: picture ? state.pic : null,
    picture_size: picture ? Number(state.psize) : null,
    picture_channel: picture ? state.pch : null,
    picture_repeat: picture ? Number(state.prep) : null,
    picture_selection: picture && state.psel ? state.psel.slice() : null,
  };
}

registerView("picture", { properties: PROPERTIES, modelKeys: MODEL_KEYS, modelValues });
