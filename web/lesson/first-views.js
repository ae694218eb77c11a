// The views a learner lands on, whose traces the build precomputes (shipped-traces.json,
// written by build.py with poolgrad itself) so they answer before Python has started:
// the default view, each preset's view (all but the random one) and the view each "Try
// it" step leads to, each in max and in average mode; a preset that sets its own mode (the
// global and adaptive ones) in that mode and in the other adaptive one. The gradient toggle and the
// selection are not part of a trace request, so one trace answers every selection, with
// the gradient shown or not.
//
// The first minute's views are one control change away from a landing view, each change
// made as its control makes it (state.js changedState, switchMode): kernel 1-5, stride
// 1-4, padding 0-2, dilation 1-3 (where it applies: max pooling), output size 1-4 (the
// adaptive modes), each mode, ceil_mode, count_include_pad (where it applies: average
// pooling) and unpooling (the max modes) on and off. Their traces come in a second
// file, read after first paint (shipped.js). The gradient toggle needs no view of its own.
//
// The build reads both lists through sitebuild/shipped_views.mjs, so the views, and the
// request key each is filed under (state.js requestKey), come from the front end alone.

import { GUIDE_STEPS } from "./guide-steps.js";
import { PRESETS } from "../widget/presets.js";
import { ADAPTIVE_MODES, MODE_NAMES, applies, changedState, defaultState, presetChange, requestKey, switchMode } from "../widget/state.js";

const MODES = ["max", "avg"];

// Each landing view as a state, default view first (duplicates included).
export function firstViewStates() {
  const changed = (change) => {
    const state = defaultState();
    change(state);
    return state;
  };
  const views = [
    defaultState(),
    ...Object.keys(PRESETS).filter((name) => name !== "random").map((name) => changed(presetChange(name))),
    ...GUIDE_STEPS.map((step) => changed((state) => step.leadsTo(state))),
  ];
  return views.flatMap((view) => (ADAPTIVE_MODES.includes(view.mode) ? ADAPTIVE_MODES : MODES).map((mode) => {
    const state = structuredClone(view);
    switchMode(mode)(state);
    return state;
  }));
}

// The request keys of the landing views, each once, default view first.
export function firstViewKeys() {
  return [...new Set(firstViewStates().map(requestKey))];
}

const square = (n) => [n, n];
const range = (from, to) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

// Every single control change of the first minute: [the property it sets, the change].
const setting = (key, value) => [key, (state) => Object.assign(state, changedState(state, { [key]: value }))];
const FIRST_MINUTE_CHANGES = [
  ...range(1, 5).map((n) => setting("k", square(n))),
  ...range(1, 4).map((n) => setting("s", square(n))),
  ...range(0, 2).map((n) => setting("p", square(n))),
  ...range(1, 3).map((n) => setting("d", square(n))),
  ...range(1, 4).map((n) => setting("o", square(n))),
  ...Object.keys(MODE_NAMES).map((mode) => ["mode", switchMode(mode)]),
  ...[true, false].map((on) => setting("ceil", on)),
  ...[true, false].map((on) => setting("cip", on)),
  ...[true, false].map((on) => setting("unpool", on)),
];

// The request keys of the first minute's views, each once, none of them a landing view.
// Some are views poolgrad refuses (padding beyond half the kernel, a window larger than
// the input): the build ships no trace for those.
export function firstMinuteKeys() {
  const landing = new Set(firstViewKeys());
  const keys = new Set();
  for (const view of firstViewStates()) {
    for (const [key, change] of FIRST_MINUTE_CHANGES) {
      if (!applies(key, view)) continue; // the control is disabled in this mode
      const state = structuredClone(view);
      change(state);
      const request = requestKey(state);
      if (!landing.has(request)) keys.add(request);
    }
  }
  return [...keys];
}
