// The chain views a learner lands on, whose chain_trace answers the build precomputes
// (chain-traces.json, written by build.py with poolgrad itself) so that the chain answers
// at first paint, before Python has started: the view a view=chain link opens and each
// preset's (all but the random filter), the filters over the default view's input. The
// page reads the file only when the chain is first opened (runtime/shipped.js), so a visit
// to the pooling view never downloads it. Pure; no DOM.
//
// The build reads the list through sitebuild/shipped_views.mjs, so the views, and the
// request key each is filed under (request.js chainRequestKey), come from the front end alone.

import { parseHash } from "../widget/state.js";
import { FILTERS, VIEWS, presetChange } from "./presets.js";
import { chainRequestKey } from "./request.js";

// The state a view=chain link opens.
const chainStart = () => parseHash("#view=chain");

// Each landing view of the chain as a state, the view=chain link's first (duplicates included).
export function chainFirstViewStates() {
  const presets = [...Object.keys(VIEWS), ...Object.keys(FILTERS).filter((name) => name !== "random")];
  return [chainStart(), ...presets.map((name) => {
    const state = chainStart();
    presetChange(name)(state);
    return state;
  })];
}

// The request keys of the chain's landing views, each once, the view=chain link's first.
export function chainFirstViewKeys() {
  return [...new Set(chainFirstViewStates().map(chainRequestKey))];
}
