// The views a learner lands on, whose traces the build precomputes (shipped-traces.json,
// written by build.py with poolgrad itself) so they answer before Python has started:
// the default view, each preset's view (all but the random one) and the view each "Try
// it" step leads to, each in max and in average mode. The gradient toggle and the
// selection are not part of a trace request, so one trace answers every selection, with
// the gradient shown or not.
//
// The build reads this list through scripts/shipped_views.mjs, so the views, and the
// request key each is filed under (state.js requestKey), come from the front end alone.

import { presetChange, switchMode } from "../widget/controls.js";
import { GUIDE_STEPS } from "./guide.js";
import { PRESETS } from "../widget/presets.js";
import { defaultState, requestKey } from "../widget/state.js";

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
  return views.flatMap((view) => MODES.map((mode) => {
    const state = structuredClone(view);
    switchMode(mode)(state);
    return state;
  }));
}

// The request keys of the landing views, each once, default view first.
export function firstViewKeys() {
  return [...new Set(firstViewStates().map(requestKey))];
}
