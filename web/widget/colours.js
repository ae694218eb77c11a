// The heat map's colour maths: a cell's background from its value, scaled over the
// grids it is compared with, and a text colour that keeps WCAG contrast on it, in the
// light or the dark scheme. Pure functions; render.js paints what they return.

import { decodeNumber } from "./format.js";

// WCAG relative luminance of an HSL colour (h in degrees, s and l in percent).
function luminance(hue, saturation, lightness) {
  const s = saturation / 100;
  const l = lightness / 100;
  const channel = (n) => {
    const k = (n + hue / 30) % 12;
    const value = l - s * Math.min(l, 1 - l) * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(0) + 0.7152 * channel(8) + 0.0722 * channel(4);
}

const DARK_TEXT = { colour: "#1d1d1f", luminance: 0.0122 };
// White text reads at WCAG AA (4.5:1) on a background of at most this luminance.
// The browser paints the shade in 8-bit sRGB, and rounding each channel can lift its
// luminance by up to about 0.002 here: the limit keeps a margin for it.
const WHITE_TEXT_LIMIT = 1.05 / 4.5 - 0.05 - 0.004;

// Heat map: blue for negatives, orange for positives, neutral at zero, scaled by the
// largest finite magnitude so a grid reads at a glance. In the light scheme the shades
// darken from white; in the dark one (`scheme` "dark", prefers-color-scheme) they
// brighten from the panel's near-black, kept dark enough for white text. The text is dark
// or white, whichever contrasts more with the shade.
export const VALUE_HUES = { negative: 215, positive: 24 };

export function heatColours(value, scale, hues = VALUE_HUES, scheme = "light") {
  const number = decodeNumber(value);
  if (Number.isNaN(number)) return { background: "hsl(280 30% 88%)", color: DARK_TEXT.colour };
  const strength = scale > 0 ? Math.min(1, Math.abs(number) / scale) : 0;
  const clipped = Number.isFinite(number) ? strength : 1;
  const hue = number < 0 ? hues.negative : hues.positive;
  let saturation;
  let lightness;
  if (scheme === "dark") {
    saturation = 30 + clipped * 50;
    lightness = 16 + clipped * 30;
    while (luminance(hue, saturation, lightness) > WHITE_TEXT_LIMIT) lightness -= 1;
  } else {
    saturation = 40 + clipped * 45;
    lightness = 98 - clipped * 52;
  }
  const background = luminance(hue, saturation, lightness);
  const darkContrast = (background + 0.05) / (DARK_TEXT.luminance + 0.05);
  const whiteContrast = 1.05 / (background + 0.05);
  return {
    background: `hsl(${hue} ${saturation}% ${lightness}%)`,
    color: darkContrast >= whiteContrast ? DARK_TEXT.colour : "#ffffff",
  };
}

export function magnitudeScale(matrices) {
  let scale = 0;
  for (const matrix of matrices) {
    for (const row of matrix) {
      for (const value of row) {
        const number = decodeNumber(value);
        if (Number.isFinite(number)) scale = Math.max(scale, Math.abs(number));
      }
    }
  }
  return scale;
}

// Each built grid's shape and cells in row-major order, so the next render can reuse it.

// The gradient grids' hues, apart from the values' so the two never read as one scale.
export const GRADIENT_HUES = { negative: 300, positive: 160 };
