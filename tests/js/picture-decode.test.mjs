// The picture view's decoding in an engine without imageOrientation "from-image" or
// OffscreenCanvas (Safari 16, WPE WebKit 2.38), with createImageBitmap and the canvases
// stood in for: what the page asks of them.
import test from "node:test";
import assert from "node:assert/strict";

import { bitmapOf, scratchCanvas, sniff } from "../../web/picture/decode.js";

function withGlobals(globals, body) {
  const saved = Object.fromEntries(Object.keys(globals).map((name) => [name, Object.getOwnPropertyDescriptor(globalThis, name)]));
  Object.assign(globalThis, globals);
  const restore = () => {
    for (const [name, descriptor] of Object.entries(saved)) {
      if (descriptor) Object.defineProperty(globalThis, name, descriptor);
      else delete globalThis[name];
    }
  };
  return Promise.resolve().then(body).finally(restore);
}

// Safari 16's createImageBitmap: a TypeError for an imageOrientation it does not know.
function safari16Bitmaps(asked) {
  return async (source, options = {}) => {
    asked.push(options);
    if (options.imageOrientation !== undefined && !["none", "flipY"].includes(options.imageOrientation)) {
      throw new TypeError("Type error");
    }
    return { width: 3, height: 2 };
  };
}

test("an engine that refuses imageOrientation 'from-image' decodes with the other options kept", async () => {
  const asked = [];
  await withGlobals({ createImageBitmap: safari16Bitmaps(asked) }, async () => {
    const options = { colorSpaceConversion: "none", premultiplyAlpha: "none", imageOrientation: "from-image" };
    assert.deepEqual(await bitmapOf("blob", options), { width: 3, height: 2 });
    assert.deepEqual(asked, [options, { colorSpaceConversion: "none", premultiplyAlpha: "none" }]);
  });
});

test("a picture the engine cannot decode is not retried: its error stays", async () => {
  const damaged = Object.assign(new Error("The source image could not be decoded."), { name: "InvalidStateError" });
  let calls = 0;
  await withGlobals({ createImageBitmap: async () => { calls += 1; throw damaged; } }, async () => {
    await assert.rejects(bitmapOf("blob", { imageOrientation: "from-image" }), damaged);
    assert.equal(calls, 1);
  });
});

test("without OffscreenCanvas the scratch canvas is a detached <canvas> of the size asked", async () => {
  const made = [];
  const document = { createElement: (tag) => { made.push(tag); return { tag }; } };
  await withGlobals({ OffscreenCanvas: undefined, document }, () => {
    assert.deepEqual(scratchCanvas(7, 6), { tag: "canvas", width: 7, height: 6 });
    assert.deepEqual(made, ["canvas"]);
  });
  class Offscreen { constructor(width, height) { Object.assign(this, { width, height }); } }
  await withGlobals({ OffscreenCanvas: Offscreen }, () => {
    assert.ok(scratchCanvas(2, 3) instanceof Offscreen);
  });
});

test("a JPEG's first frame header says it holds CMYK", () => {
  // SOI, then an SOF0 of 16 x 16 with 4 components.
  const bytes = new Uint8Array([0xff, 0xd8, 0xff, 0xc0, 0x00, 0x14, 0x08, 0x00, 0x10, 0x00, 0x10, 0x04, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  assert.deepEqual(sniff(bytes, "image/jpeg"), {
    format: "JPEG", width: 16, height: 16, notes: ["It is a CMYK JPEG: the browser converted its colours to RGB."] });
});
