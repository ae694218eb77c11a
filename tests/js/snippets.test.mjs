import assert from "node:assert/strict";
import { test } from "node:test";

import { sizePoolgradFrames } from "../../web/embed-sizing.js";
import {
  embedCode, poolgradSnippet, pythonMatrix, pythonNumber, pythonPair, torchSnippet,
} from "../../web/takeaway/snippets.js";
import { viewTitle } from "../../web/lesson/sentences.js";
import { parseHash } from "../../web/widget/state.js";

const FIXTURE = "1,2,5,6;3,4,8,7;0,-1,-3,-2;-4,9,-6,-5";

test("numbers are spelled so Python reads back the very same double", () => {
  assert.deepEqual([NaN, Infinity, -Infinity, -0, 0].map(pythonNumber), ["float('nan')", "float('inf')", "-float('inf')", "-0.0", "0"]);
  // Python's float() reads JavaScript's shortest round-trip spelling of every finite double.
  for (const value of [3, -2.5, 0.1, 0.1 + 0.2, 1 / 3, 1e-7, -1.5e-10, 1e15, -123456789.125, 5e-324, 2 ** 53 + 2]) {
    const text = pythonNumber(value);
    assert.match(text, /^-?(\d+(\.\d+)?|\d(\.\d+)?e[+-]\d+)$/, text);
    assert.ok(Object.is(Number(text), value), `${value} written as ${text}`);
  }
});

test("a matrix is one row a line; a pair is an int when square, a tuple otherwise", () => {
  assert.equal(pythonMatrix([[1, -0], [NaN, 0.5]]), "[\n    [1, -0.0],\n    [float('nan'), 0.5],\n]");
  assert.equal(pythonPair([3, 3]), "3");
  assert.equal(pythonPair([3, 2]), "(3, 2)");
});

test("the PyTorch snippet of the lesson's first view, in full", () => {
  assert.equal(torchSnippet(parseHash(`#k=2&s=2&p=0&d=1&mode=max&grad=1&x=${FIXTURE}`)), `# poolgrad widget, in PyTorch: max pooling, 2 × 2 window, stride 2, gradient routing.
import torch
import torch.nn.functional as F

# The input: 4 × 4, float64 (exactly the widget's numbers).
x = torch.tensor([
    [1, 2, 5, 6],
    [3, 4, 8, 7],
    [0, -1, -3, -2],
    [-4, 9, -6, -5],
], dtype=torch.float64, requires_grad=True)

# PyTorch pools (C, H, W) planes: x[None] is one channel, [0] takes it back.
out, indices = F.max_pool2d(x[None], kernel_size=2, stride=2, padding=0,
    dilation=1, ceil_mode=False, return_indices=True)
out, indices = out[0], indices[0]

# The upstream gradient: all ones, the widget's default.
g = torch.ones_like(out)
out.backward(g)
grad_input = x.grad

print(out)
print(indices)
print(grad_input)
`);
});

test("the poolgrad snippet of an average view, in full: count_include_pad, no dilation, no indices", () => {
  const state = parseHash("#k=3,2&s=1&p=1,0&d=1&mode=avg&ceil=1&cip=0&grad=1&x=1,2;3,4;5,6&g=1,-0;NaN,2;0.1,Infinity");
  assert.equal(poolgradSnippet(state), `# poolgrad widget, in poolgrad: average pooling, 3 × 2 window, stride 1, padding 1,0, ceil_mode, count_include_pad=False, gradient routing.
import numpy as np
import poolgrad

# The input: 3 × 2, float64 (exactly the widget's numbers).
x = np.array([
    [1, 2],
    [3, 4],
    [5, 6],
], dtype=np.float64)

out = poolgrad.avg_pool2d(x, kernel_size=(3, 2), stride=1,
    padding=(1, 0), ceil_mode=True, count_include_pad=False)

# The upstream gradient (the widget's, exactly).
g = np.array([
    [1, -0.0],
    [float('nan'), 2],
    [0.1, float('inf')],
], dtype=np.float64)
grad_input = poolgrad.avg_pool2d_backward(g, x.shape,
    kernel_size=(3, 2), stride=1, padding=(1, 0), ceil_mode=True,
    count_include_pad=False)

print(out)
print(grad_input)
`);
});

test("each API gets the keywords it takes: dilation in max mode, count_include_pad in average mode", () => {
  const max = parseHash(`#k=2&s=1&p=1&d=2&mode=max&ceil=1&grad=0&x=${FIXTURE}`);
  const average = parseHash(`#k=2&s=1&p=1&d=1&mode=avg&grad=0&x=${FIXTURE}`);
  // The calls with their wrapped lines joined.
  const flat = (code) => code.replace(/,\n {4}/g, ", ");
  for (const snippet of [torchSnippet, poolgradSnippet]) {
    const maxCode = flat(snippet(max));
    assert.match(maxCode, /kernel_size=2, stride=1, padding=1, dilation=2, ceil_mode=True, return_indices=True\)/);
    assert.doesNotMatch(maxCode, /count_include_pad|grad_input|backward|requires_grad/);
    const averageCode = flat(snippet(average));
    assert.match(averageCode, /padding=1, ceil_mode=False, count_include_pad=True\)/);
    assert.doesNotMatch(averageCode, /dilation|indices|grad_input|backward/);
  }
  assert.match(torchSnippet(max), /^print\(indices\)$/m);
});

test("the gradient: ones like the output by default, the custom one exactly", () => {
  const ones = parseHash(`#k=2&s=2&mode=max&grad=1&x=${FIXTURE}`);
  assert.match(poolgradSnippet(ones), /^g = np\.ones_like\(out\)\ngrad_input = poolgrad\.max_pool2d_backward\(g, indices, x\.shape\)$/m);
  const custom = parseHash(`#k=2&s=2&mode=max&grad=1&x=${FIXTURE}&g=1,-0;NaN,-Infinity`);
  assert.match(torchSnippet(custom), /^g = torch\.tensor\(\[\n {4}\[1, -0\.0\],\n {4}\[float\('nan'\), -float\('inf'\)\],\n\], dtype=torch\.float64\)$/m);
  // A custom gradient the view does not show (gradient off) is not written.
  assert.doesNotMatch(poolgradSnippet(parseHash(`#k=2&s=2&mode=max&grad=0&x=${FIXTURE}&g=1,2;3,4`)), /g = /);
});

test("no line of a snippet runs past 80 characters but the data's and the title comment", () => {
  const state = parseHash(`#k=3,2&s=2,1&p=1,1&d=2,1&mode=max&ceil=1&grad=1&x=${FIXTURE}`);
  for (const code of [torchSnippet(state), poolgradSnippet(state)]) {
    const long = code.split("\n").filter((line) => line.length > 80 && !line.startsWith("# poolgrad widget"));
    assert.deepEqual(long, []);
  }
});

test("the title names what differs from the defaults", () => {
  assert.equal(viewTitle(parseHash(`#k=2&x=${FIXTURE}`)), "max pooling, 2 × 2 window, stride 2");
  assert.equal(viewTitle(parseHash(`#k=3,2&s=1&p=1&d=2&ceil=1&grad=1&x=${FIXTURE}`)),
    "max pooling, 3 × 2 window, stride 1, padding 1, dilation 2, ceil_mode, gradient routing");
  assert.equal(viewTitle(parseHash(`#k=2&mode=avg&cip=0&x=${FIXTURE}`)), "average pooling, 2 × 2 window, stride 2, count_include_pad=False");
});

test("the embed code is everything a host page needs: a named, sized iframe and the sizing script once", () => {
  const hash = `#k=3&s=1&p=0&d=1&mode=max&grad=1&sel=0,1&x=${FIXTURE}`;
  const state = parseHash(hash);
  const pageUrl = "https://example.org/lessons/poolgrad/index.html";
  const code = embedCode({ pageUrl, hash, state, id: "a1b2" });
  assert.equal(code.split("\n").slice(0, 4).join("\n"), `<iframe id="poolgrad-a1b2" data-poolgrad src="${pageUrl}?embed=1&amp;id=a1b2${hash.replaceAll("&", "&amp;")}"
        title="poolgrad: max pooling, 3 × 3 window, stride 1, gradient routing"
        style="width: 100%; height: 900px; border: 0" loading="lazy"
        allow="clipboard-write"></iframe>`);
  // The script is embed-sizing.js's own function, marked as needed once per page.
  assert.match(code, /Needed once per\n {5}page/);
  assert.ok(code.endsWith(`<script>(${sizePoolgradFrames})();</script>`));
  assert.match(embedCode({ pageUrl, hash, state, id: "x", lesson: false }), /\?embed=1&amp;lesson=0&amp;id=x#k=3&amp;s=1/);
  assert.match(embedCode({ pageUrl, hash, state, id: "x", code: false }), /\?embed=1&amp;code=0&amp;id=x#/);
  assert.match(embedCode({ pageUrl: 'https://h/a"b&c/index.html', hash: "#k=2", state, id: "x" }), /src="https:\/\/h\/a&quot;b&amp;c\/index\.html\?embed=1&amp;id=x#k=2"/);
});

test("the sizing script sizes only the frames it marks, from any origin, and listens once", () => {
  const listeners = [];
  const frames = [{ contentWindow: {}, style: {} }, { contentWindow: {}, style: {} }];
  const foreign = { contentWindow: {}, style: {} };
  globalThis.window = { addEventListener: (type, listener) => listeners.push(listener) };
  globalThis.document = { querySelectorAll: (selector) => (selector === "iframe[data-poolgrad]" ? frames : [...frames, foreign]) };
  try {
    sizePoolgradFrames();
    sizePoolgradFrames();
    assert.equal(listeners.length, 1);
    const post = (source, data) => listeners[0]({ source, data, origin: "https://elsewhere.example" });
    post(frames[1].contentWindow, { type: "poolgrad:size", height: 3180.2 });
    post(foreign.contentWindow, { type: "poolgrad:size", height: 50 });
    post(frames[0].contentWindow, { type: "other", height: 50 });
    post(frames[0].contentWindow, { type: "poolgrad:size", height: -1 });
    assert.deepEqual([frames[0].style.height, frames[1].style.height, foreign.style.height], [undefined, "3181px", undefined]);
  } finally {
    delete globalThis.window;
    delete globalThis.document;
  }
});

test("the family's snippets call their own functions, with the output size, p and unpooling", () => {
  const adaptive = parseHash("#mode=adaptive_max&o=3,2&unpool=1&grad=1");
  const torch = torchSnippet(adaptive);
  assert.match(torch, /out, indices = F\.adaptive_max_pool2d\(x\[None\], output_size=\(3, 2\),\s+return_indices=True\)/);
  assert.match(torch, /unpooled = torch\.zeros\(x\.shape, dtype=torch\.float64\)\nunpooled\.view\(-1\)\[indices\.view\(-1\)\] = out\.detach\(\)\.view\(-1\)/);
  const own = poolgradSnippet(adaptive);
  assert.match(own, /grad_input = poolgrad\.adaptive_max_pool2d_backward\(g, indices, x\.shape\)/);
  assert.match(own, /unpooled\.flat\[indices\.ravel\(\)\] = out\.ravel\(\)/);
  assert.match(own, /# poolgrad widget, in poolgrad: adaptive max pooling to 3 × 2, unpooling, gradient routing\./);
  const global = poolgradSnippet(parseHash("#mode=adaptive_avg&o=1&grad=1"));
  assert.match(global, /out = poolgrad\.adaptive_avg_pool2d\(x, output_size=1\)/);
  assert.match(global, /grad_input = poolgrad\.adaptive_avg_pool2d_backward\(g, x\.shape\)/);
  assert.doesNotMatch(global, /indices|unpooled|kernel_size/);
  const lp = torchSnippet(parseHash("#mode=lp&n=Infinity&k=3&s=1&ceil=1"));
  assert.match(lp, /out = F\.lp_pool2d\(x\[None\], norm_type=float\('inf'\),\s+kernel_size=3,\s+stride=1,\s+ceil_mode=True\)/);
  assert.match(poolgradSnippet(parseHash("#mode=lp&n=2&grad=1")), /poolgrad\.lp_pool2d_backward\(g, x, norm_type=2,\s+kernel_size=2/);
});
