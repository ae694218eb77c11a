import assert from "node:assert/strict";
import { test } from "node:test";

import { parseHash } from "../../web/widget/state.js";
import { escapeXml } from "../../web/widget/format.js";
import { pictureName, pictureSvg } from "../../web/takeaway/svg-export.js";
import { recorded } from "./traces.mjs";

// A small XML well-formedness check (node has no XML parser): one root element, tags that
// nest and close, quoted attributes named once, and no bare "<" or "&" in text or values.
// Returns the elements as { name, attributes, text } in document order.
function parseXml(text) {
  const body = text.replace(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n/, "");
  const elements = [];
  const open = [];
  const token = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"]*")*)\s*(\/?)>|([^<]+)/gy;
  let match;
  let roots = 0;
  while (token.lastIndex < body.length) {
    match = token.exec(body);
    assert.ok(match, `not well-formed at: ${body.slice(token.lastIndex, token.lastIndex + 60)}`);
    const [, closing, name, attributeText, selfClosing, textRun] = match;
    if (textRun !== undefined) {
      assert.doesNotMatch(textRun, /&(?!(amp|lt|gt|quot|apos);)/, `bare & in ${textRun}`);
      if (open.length === 0) assert.match(textRun, /^\s*$/, "text outside the root");
      else open[open.length - 1].text += textRun;
      continue;
    }
    if (closing) {
      const top = open.pop();
      assert.equal(top?.name, name, `</${name}> closes <${top?.name}>`);
      continue;
    }
    const attributes = {};
    for (const [, key, value] of attributeText.matchAll(/([\w:-]+)="([^"]*)"/g)) {
      assert.ok(!(key in attributes), `${key} twice on <${name}>`);
      assert.doesNotMatch(value, /<|&(?!(amp|lt|gt|quot|apos);)/, `bad attribute value ${value}`);
      attributes[key] = value;
    }
    if (open.length === 0) roots += 1;
    const element = { name, attributes, text: "" };
    elements.push(element);
    if (!selfClosing) open.push(element);
  }
  assert.deepEqual(open.map((element) => element.name), [], "unclosed elements");
  assert.equal(roots, 1, "one root element");
  return elements;
}

const unescape = (text) => text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&amp;/g, "&");
const texts = (elements) => elements.filter((element) => element.name === "text").map((element) => unescape(element.text));

test("the XML check itself refuses what is not well-formed", () => {
  assert.throws(() => parseXml("<svg><g></svg>"));
  assert.throws(() => parseXml("<svg>a & b</svg>"));
  assert.throws(() => parseXml('<svg x="1" x="2"/>'));
  assert.throws(() => parseXml("<svg/><svg/>"));
  assert.equal(parseXml('<svg a="1"><text>x &amp; y</text></svg>').length, 2);
});

test("the picture of a padded, overlapping max view: every grid, every mark, a legend", () => {
  const state = parseHash("#k=3&s=1&p=1&grad=1&sel=1,1&x=1,2,5,6;3,4,8,7;0,-1,-3,-2;-4,9,-6,-5");
  const { trace } = recorded("fixture_k3s1p1");
  const svg = pictureSvg(state, trace);
  const elements = parseXml(svg);
  const root = elements[0];
  assert.equal(root.name, "svg");
  assert.equal(root.attributes.xmlns, "http://www.w3.org/2000/svg");
  assert.equal(root.attributes.role, "img");
  assert.equal(root.attributes["aria-labelledby"], "picture-title picture-desc");
  const title = elements.find((element) => element.name === "title");
  assert.equal(title.attributes.id, "picture-title");
  assert.equal(unescape(title.text), "poolgrad: max pooling, 3 × 3 window, stride 1, padding 1, gradient routing");
  const desc = unescape(elements.find((element) => element.name === "desc").text);
  assert.match(desc, /^Input 4 × 4, output 4 × 4\. Output \(1,1\) = 8 is the maximum of the window rows 0–2, cols 0–2, taken from input cell \(1,2\)\./);
  const shown = texts(elements);
  for (const caption of ["Input 4 × 4", "Output 4 × 4", "Upstream gradient", "Input gradient"]) assert.ok(shown.includes(caption), caption);
  assert.equal(shown.filter((text) => text === "-∞").length, 20 + 1, "the padding ring and the legend's swatch");
  assert.equal(shown.filter((text) => text === "max").length, 1 + 1, "the argmax's tag and the legend's");
  assert.ok(shown.includes("×7") && shown.includes("×6"), "cells several outputs chose");
  assert.ok(shown.includes("the selected output (1,1)"));
  assert.ok(shown.includes("padding (never chosen)"));
  // Frames: one selected output (inner and outer ring), the argmax's double frame, and the
  // window's 9 cells less the argmax, the upstream gradient of the selection and its
  // receiver, plus one of each in the legend.
  const strokes = elements.filter((element) => element.name === "rect").map((element) => element.attributes.stroke);
  const count = (colour) => strokes.filter((stroke) => stroke === colour).length;
  assert.equal(count("#b42318"), 2 + 2);
  assert.equal(count("#1d4ed8"), (2 + 8 + 1 + 1) + (2 + 1));
});

test("without a selection there is no window, no argmax and no legend for them", () => {
  // A fresh link selects the first output implicitly; Escape leaves nothing selected.
  const state = { ...parseHash("#k=2&s=2&grad=0&x=1,2,5,6;3,4,8,7;0,-1,-3,-2;-4,9,-6,-5"), sel: null, selImplicit: false };
  const { trace } = recorded("fixture_k2_nograd");
  const elements = parseXml(pictureSvg(state, trace));
  const shown = texts(elements);
  assert.ok(!shown.includes("max") && !shown.includes("Input gradient") && !shown.includes("Upstream gradient"));
  assert.deepEqual(["4", "8", "9", "-2"].filter((value) => !shown.includes(value)), []);
  assert.equal(elements.filter((element) => element.name === "rect" && element.attributes.stroke === "#1d4ed8").length, 0);
});

test("average pooling: padding shows 0, cells in several windows are marked in the input gradient only", () => {
  const state = parseHash("#k=3&s=1&p=1&mode=avg&grad=1&sel=0,0&x=1,2,5,6;3,4,8,7;0,-1,-3,-2;-4,9,-6,-5");
  const { trace } = recorded("fixture_avg_k3s1p1_grad");
  const shown = texts(parseXml(pictureSvg(state, trace)));
  assert.ok(!shown.includes("max"));
  assert.ok(shown.includes("padding (counts as 0)"));
  assert.ok(shown.includes("in several outputs' windows (×n)"));
  assert.equal(shown.filter((text) => text === "×9").length, 4, "the four middle cells are in 9 windows each");
});

test("NaN and infinities are drawn as the grids show them; text is escaped", () => {
  const state = parseHash("#k=2&s=2&grad=1&sel=0,0&x=1,NaN;-Infinity,2.5");
  const { trace } = recorded("nan_k2");
  const shown = texts(parseXml(pictureSvg(state, trace)));
  assert.ok(shown.includes("NaN") && shown.includes("-∞") && shown.includes("2.5"));
  assert.equal(escapeXml(`a<b & "c">`), "a&lt;b &amp; &quot;c&quot;&gt;");
});

test("the file name says what the view is", () => {
  assert.equal(pictureName(parseHash("#k=2")), "poolgrad-max-k2-s2.svg");
  assert.equal(pictureName(parseHash("#k=3,2&s=1&p=1,0&d=2&grad=1")), "poolgrad-max-k3x2-s1-p1x0-d2-grad.svg");
  assert.equal(pictureName(parseHash("#k=2&mode=avg&p=1")), "poolgrad-avg-k2-s2-p1.svg");
});

test("the picture of the family's views: window sizes, windows' shared cells, the unpooled grid", () => {
  const adaptive = pictureSvg({ ...parseHash("#mode=adaptive_avg&o=3&sel=1,1&grad=1&x=1,2,3,4,5;6,7,8,9,10;11,12,13,14,15;16,17,18,19,20;21,22,23,24,25") },
    recorded("adaptive_avg_5to3_grad").trace);
  assert.match(adaptive, /<title id="picture-title">poolgrad: adaptive average pooling to 3 × 3, gradient routing<\/title>/);
  assert.match(adaptive, />2×2</);
  assert.match(adaptive, />×4</);
  assert.match(adaptive, /an output's window size \(adaptive\)/);
  assert.doesNotMatch(adaptive, /padding \(/);
  const unpooled = pictureSvg(parseHash(`#k=3&s=1&unpool=1&x=1,2,5,6;3,4,8,7;0,-1,-3,-2;-4,9,-6,-5`), recorded("fixture_k3s1_unpool").trace);
  assert.match(unpooled, /Unpooled: max_unpool2d\(out, indices\)/);
  assert.equal(pictureName(parseHash("#mode=adaptive_max&o=3,2&unpool=1")), "poolgrad-adaptive-max-o3x2-unpool.svg");
  assert.equal(pictureName(parseHash("#mode=lp&n=Infinity")), "poolgrad-lp-k2-s2-ninf.svg");
});
