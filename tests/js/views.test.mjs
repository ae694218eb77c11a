// The views loaded when first opened (widget/views.js): a link or a model waits for the
// module of the view it opens, whose keys then join state.js's table, and for no other.
import test from "node:test";
import assert from "node:assert/strict";

import { knowsKey, knowsView, parseHash, serialiseState } from "../../web/widget/state.js";
import { isLoadedLater, viewOfModel, viewsFor } from "../../web/widget/views.js";

const CHAIN_KEYS = ["cx", "cw", "cb", "relu", "cpool", "cpk", "cup", "hot", "ct", "lr", "steps"];

test("a pool link loads no view; a chain link loads the chain's keys alone; a key no loaded view has loads every view", async () => {
  assert.deepEqual([isLoadedLater("pool"), isLoadedLater("chain"), isLoadedLater("picture"), isLoadedLater("toString")], [false, true, true, false]);
  await viewsFor("#k=3&s=1&mode=avg&x=1,2;3,4");
  assert.deepEqual([knowsView("pool"), knowsView("chain"), knowsView("picture")], [true, false, false]);
  assert.ok(CHAIN_KEYS.every((key) => !knowsKey(key)));
  assert.equal(viewOfModel((key) => ({ view: "chain" })[key] ?? null), "chain");
  assert.equal(viewOfModel((key) => ({ view: null })[key] ?? null), null);

  await viewsFor("#view=chain&cup=hot&hot=0,1");
  assert.deepEqual([knowsView("chain"), knowsView("picture")], [true, false]);
  assert.ok(CHAIN_KEYS.every(knowsKey));
  assert.equal(viewOfModel((key) => ({ view: "chain" })[key] ?? null), null);
  const chain = parseHash("#view=chain&cup=hot&hot=0,1&steps=3");
  assert.deepEqual([chain.cup, chain.hot, chain.steps, chain.cx[0].length], ["hot", [0, 1], 3, 6]);
  assert.match(serialiseState(chain), /^#view=chain&cx=1,2,0,3,1,0;.*&cup=hot&hot=0,1&ct=2,1;0,3&lr=0.01&steps=3$/);

  // A picture key in a pool link: the picture's module loads, so the refusal names its view.
  await viewsFor("#k=2&psize=64");
  assert.ok(knowsView("picture"));
  assert.throws(() => parseHash("#k=2&psize=64"), /^InputError: psize does not apply here; it is the picture view's \(view=picture\)$/);
  assert.throws(() => parseHash("#k=2&zoom=1"), /unknown setting "zoom" in the link; known settings: k, s, .*, steps, pic, psize, pch, prep, psel$/);
});
