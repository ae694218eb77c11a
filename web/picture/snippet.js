// The picture view's Code panel: Python that loads the same picture file into an array of
// the same shape and pools it as the view does, in PyTorch and in poolgrad. The pooling
// call's arguments are the pool view's (takeaway/snippets.js), so both views spell a
// setting one way.

import { viewTitle } from "../lesson/sentences.js";
import { FUNCTIONS, poolingArguments, wrapArguments } from "../takeaway/snippets.js";

const LAYERS = { max: "MaxPool2d", avg: "AvgPool2d", lp: "LPPool2d", adaptive_max: "AdaptiveMaxPool2d", adaptive_avg: "AdaptiveAvgPool2d" };

// The lines that load `file` as the view does: RGBA laid over white, scaled so its longer
// side is at most `size` (Pillow's scaling may differ from the browser's by a level here
// and there), then the channel, as `x` of shape (C, H, W) in float64.
function loading(file, size, channel) {
  const pick = {
    rgb: "x = rgb.transpose(2, 0, 1)  # (3, H, W)",
    grey: "x = np.round(0.299 * rgb[..., 0] + 0.587 * rgb[..., 1] + 0.114 * rgb[..., 2])[None]  # (1, H, W)",
    r: "x = rgb[None, ..., 0]  # (1, H, W): red",
    g: "x = rgb[None, ..., 1]  # (1, H, W): green",
    b: "x = rgb[None, ..., 2]  # (1, H, W): blue",
  }[channel];
  return [
    `image = Image.open(${JSON.stringify(file)}).convert("RGBA")`,
    `image.thumbnail((${size}, ${size}))  # longer side at most ${size}, keeping the aspect`,
    'image = Image.alpha_composite(Image.new("RGBA", image.size, "white"), image)  # alpha over white',
    'rgb = np.asarray(image.convert("RGB"), dtype=np.float64)  # (H, W, 3), the file\'s 0-255 values',
    pick,
  ];
}

// {torch, poolgrad}: the two snippets for `state` (the hash's) and the picture's file name.
export function pictureSnippets(state, file) {
  const repeat = Number(state.prep);
  const title = `${viewTitle(state)}, ${repeat === 1 ? "once" : `${repeat} times`}, channel ${state.pch}`;
  const args = poolingArguments(state);
  const torchCall = wrapArguments(`    out = F.${FUNCTIONS[state.mode].name}`, ["out", ...args]);
  const torch = [
    `# poolgrad's picture view, in PyTorch: ${title}.`,
    "import numpy as np",
    "import torch",
    "import torch.nn.functional as F",
    "from PIL import Image  # pip install pillow",
    "",
    ...loading(file, state.psize, state.pch),
    `x = torch.tensor(x, requires_grad=${state.grad ? "True" : "False"})`,
    "out = x",
    `for stage in range(${repeat}):`,
    torchCall,
    ...(state.grad ? ["out.backward(torch.ones_like(out))  # an upstream gradient of ones", "grad_input = x.grad"] : []),
  ].join("\n");
  const layer = wrapArguments(`layers = [poolgrad.${LAYERS[state.mode]}`, args).replace(/\)$/, `) for stage in range(${repeat})]`);
  const poolgrad = [
    `# poolgrad's picture view, in poolgrad: ${title}.`,
    "import numpy as np",
    "import poolgrad",
    "from PIL import Image  # pip install pillow",
    "",
    ...loading(file, state.psize, state.pch),
    layer,
    "out = x",
    "for layer in layers:",
    "    out = layer(out)",
    ...(state.grad ? ["grad = np.ones(out.shape)  # an upstream gradient of ones", "for layer in reversed(layers):",
      "    grad = layer.backward(grad)", "grad_input = grad"] : []),
  ].join("\n");
  return { torch, poolgrad };
}
