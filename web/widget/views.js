// The views that load the first time they are opened (web/chain/, web/picture/): each one's
// module, which adds the view's keys to state.js's one table as it loads (its keys.js,
// registerView). A host reads a link or a model only once the views it names are here:
// viewsFor(hash) and viewOfModel(get) say which to wait for.

import { knowsKey, knowsView } from "./state.js";

const MODULES = {
  chain: () => import("../chain/chain-view.js"),
  picture: () => import("../picture/picture-view.js"),
};
const loading = new Map();

// Whether `view` is one of the views loaded when first opened.
export function isLoadedLater(view) {
  return Object.hasOwn(MODULES, view);
}

// The view's module (a promise), loaded once; a failed load is tried again next time. A
// module that added no keys (a host's stand-in for a view it lacks) is a failed load.
export function loadView(view) {
  if (!loading.has(view)) {
    const module = MODULES[view]().then((loaded) => {
      if (!knowsView(view)) throw new Error(`its module did not add the ${view} view's keys`);
      return loaded;
    });
    loading.set(view, module);
    module.catch(() => loading.delete(view));
  }
  return loading.get(view);
}

// Loads what reading `hash` needs: the module of the view it names, then, when it still
// gives a key the table lacks, every view's (so the parse says whose view the key is, or
// that no view has it). Resolves once they are here; rejects when one could not load.
export async function viewsFor(hash) {
  const body = hash.startsWith("#") ? hash.slice(1) : hash;
  const view = body.match(/(?:^|&)view=([^&]*)/)?.[1];
  if (isLoadedLater(view) && !knowsView(view)) await loadView(view);
  const keys = body.split("&").filter((part) => part !== "").map((part) => part.split("=", 1)[0]);
  if (keys.some((key) => !knowsKey(key))) await Promise.all(Object.keys(MODULES).map(loadView));
}

// The view a model's values open whose module has not loaded yet, or null.
export function viewOfModel(get) {
  const view = get("view");
  return isLoadedLater(view) && !knowsView(view) ? view : null;
}
