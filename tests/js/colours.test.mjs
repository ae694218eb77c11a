// The heat map's text colour keeps WCAG AA contrast on the shade the browser paints (8-bit sRGB).
import assert from "node:assert/strict";
import { test } from "node:test";

import { GRADIENT_HUES, VALUE_HUES, heatColours } from "../../web/widget/colours.js";

// hsl(h s% l%) as the browser paints it: each channel rounded to 8 bits.
function painted(text) {
  const [hue, saturation, lightness] = text.match(/[\d.]+/g).map(Number);
  const s = saturation / 100;
  const l = lightness / 100;
  const channel = (n) => {
    const k = (n + hue / 30) % 12;
    return Math.round(255 * (l - s * Math.min(l, 1 - l) * Math.max(-1, Math.min(k - 3, 9 - k, 1)))) / 255;
  };
  const linear = (v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
  return 0.2126 * linear(channel(0)) + 0.7152 * linear(channel(8)) + 0.0722 * linear(channel(4));
}

test("white text on a dark-scheme shade keeps 4.5:1 once the shade is rounded to 8-bit sRGB (a 4.48:1 green was seen)", () => {
  for (const hues of [VALUE_HUES, GRADIENT_HUES]) {
    for (let value = -100; value <= 100; value += 0.5) {
      const { background, color } = heatColours(value, 100, hues, "dark");
      if (color !== "#ffffff") continue;
      const contrast = 1.05 / (painted(background) + 0.05);
      assert.ok(contrast >= 4.5, `${value}: ${background} gives ${contrast.toFixed(3)}:1`);
    }
  }
});
