// The picture view's Code panel (web/picture/snippet.js).
import test from "node:test";
import assert from "node:assert/strict";

import { pictureSnippets } from "../../web/picture/snippet.js";
import { parseHash } from "../../web/widget/state.js";
import "../../web/picture/keys.js"; // the picture view's keys, as the view's module adds them

test("the snippets load the file, pick the channel, stack the poolings and route ones back", () => {
  const { torch, poolgrad } = pictureSnippets(parseHash("#k=3&s=2&grad=1&view=picture&pch=grey&prep=2"), "cat.png");
  assert.match(torch, /Image\.open\("cat\.png"\)/);
  assert.match(torch, /image\.thumbnail\(\(128, 128\)\)/);
  assert.match(torch, /0\.299 \* rgb\[\.\.\., 0\] \+ 0\.587 \* rgb\[\.\.\., 1\] \+ 0\.114/);
  assert.match(torch, /for stage in range\(2\):\n    out = F\.max_pool2d\(out, kernel_size=3, stride=2,/);
  assert.match(torch, /out\.backward\(torch\.ones_like\(out\)\)/);
  assert.match(poolgrad, /layers = \[poolgrad\.MaxPool2d\(kernel_size=3, stride=2,[^\n]*\n?[^\n]*\) for stage in range\(2\)\]/);
  assert.match(poolgrad, /grad = layer\.backward\(grad\)/);
});

test("average pooling without the gradient asks for no backward", () => {
  const { torch, poolgrad } = pictureSnippets(parseHash("#mode=avg&view=picture"), "camera.png");
  assert.match(torch.replace(/\s+/g, " "), /F\.avg_pool2d\(out, kernel_size=2, stride=2, padding=0, ceil_mode=False, count_include_pad=True\)/);
  assert.doesNotMatch(torch, /backward/);
  assert.match(poolgrad, /poolgrad\.AvgPool2d\(/);
  assert.doesNotMatch(poolgrad, /backward/);
});
