// The picture view's keys in the hash table (state.js): written under view=picture only.
import test from "node:test";
import assert from "node:assert/strict";

import { PICTURE_SAMPLES } from "../../web/picture/keys.js"; // its keys join the table as it loads
import { InputError, parseHash, serialiseState } from "../../web/widget/state.js";

test("view=picture alone is the first sample; the pooling keys travel only where they differ from the start", () => {
  assert.equal(serialiseState(parseHash("#view=picture")), `#view=picture&pic=${PICTURE_SAMPLES[0]}`);
  const link = "#k=3&s=1&mode=avg&grad=1&view=picture&pic=text&psize=64&pch=grey&prep=3&psel=120,7";
  const state = parseHash(link);
  assert.deepEqual([state.view, state.pic, state.psize, state.pch, state.prep, state.psel], ["picture", "text", "64", "grey", "3", [120, 7]]);
  assert.equal(serialiseState(parseHash(serialiseState(state))), serialiseState(state));
  assert.match(serialiseState(state), /pic=text&psize=64&pch=grey&prep=3&psel=120,7$/);
});

test("every shipped sample is a value of pic", () => {
  for (const name of PICTURE_SAMPLES) assert.equal(parseHash(`#view=picture&pic=${name}`).pic, name);
});

const REFUSED = [
  ["#pic=camera", /pic does not apply here; it is the picture view's \(view=picture\)/],
  ["#view=picture&pic=lena", /pic must be camera, text, chelsea or coffee; got "lena"/],
  ["#view=picture&psize=512", /psize must be 32, 64, 128 or 256/],
  ["#view=picture&pch=cmyk", /pch must be rgb, grey, r, g or b/],
  ["#view=picture&prep=5", /prep must be 1, 2, 3 or 4/],
  ["#view=picture&psel=1000,1", /psel must be row,col of an output cell/],
];

test("each bad picture link is refused with one message", () => {
  for (const [link, message] of REFUSED) {
    assert.throws(() => parseHash(link), (error) => error instanceof InputError && message.test(error.message), link);
  }
});

test("a pool link reads and writes as before", () => {
  const link = "#k=3&s=1&p=0&d=1&mode=max&grad=1&sel=0,1&x=1,2,5,6;3,4,8,7;0,-1,-3,-2;-4,9,-6,-5";
  assert.equal(serialiseState(parseHash(link)), serialiseState(parseHash(serialiseState(parseHash(link)))));
  assert.doesNotMatch(serialiseState(parseHash(link)), /view|pic/);
});

test("a picture link goes through the model and back unchanged", async () => {
  const { modelValues, stateFromModel } = await import("../../web/widget/state.js");
  const link = "#view=picture&pic=chelsea&psize=256&pch=g&prep=2&psel=3,4";
  const values = JSON.parse(JSON.stringify(modelValues(parseHash(link))));
  assert.deepEqual([values.view, values.picture, values.picture_size, values.picture_repeat], ["picture", "chelsea", 256, 2]);
  assert.equal(serialiseState(stateFromModel((key) => values[key])), link);
  assert.equal(modelValues(parseHash("#k=3")).picture, null);
});
