// The chain view's two rows as data, read off chain_trace's answer: each panel's key, title,
// one-line caption and shape, and its grid (the planes' values, each plane's place, the
// heat map's scale and hues, the cells that got no gradient). The view draws them as tables
// (chain-view.js), Save picture as one SVG (picture.js): both show the same panels in the
// same order with the same words. Pure; no DOM.

import { GRADIENT_HUES, VALUE_HUES, magnitudeScale } from "../widget/colours.js";
import { captions } from "./sentences.js";

// A plane of the input channels, of the filters, or of the weights' (filter, channel):
// key (the table's data-plane), words (added to the grid's name), caption and attributes.
const channelPlane = (several) => (c) => ({
  key: String(c), words: several ? `, channel ${c}` : "", caption: `channel ${c}`, attributes: { "data-channel": String(c) },
});
const filterPlane = (several) => (f) => ({
  key: String(f), words: several ? `, filter ${f}` : "", caption: `filter ${f}`, attributes: { "data-channel": String(f) },
});
const onePlane = (caption) => () => ({ key: "0", words: "", caption, attributes: {} });

const shapeText = (planes, names) => `${planes.length > 1 ? `${planes.length} ${names} of ` : ""}${planes[0].length} × ${planes[0][0].length}`;

// {forward: [panel], backward: [panel]}, each panel {key, title, caption, shape (or
// undefined), grid: {grid, title, planes, scaleOf, hues, plane(index), editable, zero(plane,
// r, c) (or null), attributes(plane, r, c) (or null)}}.
export function chainPanels(state, trace) {
  const words = captions(trace, state.cup);
  const channels = trace.input.length > 1;
  const filters = trace.weight.length > 1;
  const valueScale = magnitudeScale([...trace.input, ...trace.conv_output, ...(trace.pool_output ?? [])]);
  const weightPlanes = trace.weight.flatMap((slices, f) => slices.map((slice, c) => ({ slice, f, c })));
  const weightPlace = (index) => {
    const { f, c } = weightPlanes[index];
    const named = [filters ? `filter ${f}` : null, channels ? `channel ${c}` : null].filter(Boolean).join(", ");
    return { key: `${f}/${c}`, words: named ? `, ${named}` : "", caption: named || "W", attributes: { "data-filter": String(f), "data-channel": String(c) } };
  };
  const values = (grid) => ({ scaleOf: valueScale, hues: VALUE_HUES, ...grid });
  const forward = [
    {
      key: "input", title: "X", caption: words.input, shape: shapeText(trace.input, "channels"),
      grid: values({ grid: "chain-input", title: "Input X", planes: trace.input, plane: channelPlane(channels), editable: true }),
    },
    {
      key: "weight", title: "W", caption: words.weight,
      shape: `${trace.weight.length} × ${trace.weight[0].length} × ${trace.weight[0][0].length} × ${trace.weight[0][0][0].length}`,
      grid: values({
        grid: "chain-weight", title: "Weight W", planes: weightPlanes.map(({ slice }) => slice), scaleOf: magnitudeScale(trace.weight.flat(1)), plane: weightPlace, editable: true,
      }),
    },
  ];
  if (trace.bias) {
    forward.push({
      key: "bias", title: "b", caption: words.bias,
      grid: values({ grid: "chain-bias", title: "Bias b", planes: [[trace.bias]], scaleOf: magnitudeScale([[trace.bias]]), plane: onePlane("b"), editable: true }),
    });
  }
  forward.push({
    key: "conv", title: "Y1", caption: words.conv, shape: shapeText(trace.conv_output, "filters"),
    grid: values({ grid: "chain-conv", title: "Convolution output Y1", planes: trace.conv_output, plane: filterPlane(filters) }),
  });
  if (trace.activation_output) {
    forward.push({
      key: "relu", title: "ReLU(Y1)", caption: words.relu,
      grid: values({ grid: "chain-relu", title: "ReLU of Y1", planes: trace.activation_output, plane: filterPlane(filters) }),
    });
  }
  if (trace.pool_output) {
    forward.push({
      key: "pool", title: "Y2", caption: words.pool, shape: shapeText(trace.pool_output, "filters"),
      grid: values({ grid: "chain-pool", title: "Pooled output Y2", planes: trace.pool_output, plane: filterPlane(filters) }),
    });
  }
  forward.push({
    key: "target", title: "T", caption: trace.upstream === "loss" ? words.target : `${words.target} (unused: the gradient is made up)`,
    grid: values({ grid: "chain-target", title: "Target T", planes: trace.target ?? state.ct, plane: filterPlane(filters), editable: true }),
  });

  const gradScale = magnitudeScale([...trace.grad_conv_output, ...(trace.grad_pool_output ?? []), ...trace.grad_input]);
  const gradients = (grid) => ({ scaleOf: gradScale, hues: GRADIENT_HUES, ...grid });
  const hot = (f, r, c) => ({ "data-hot": state.cup === "hot" && f === 0 && r === state.hot[0] && c === state.hot[1] ? "true" : undefined });
  const backward = [];
  if (trace.grad_pool_output) {
    backward.push({
      key: "grad-pool", title: "dL/dY2", caption: words.gradPool,
      grid: gradients({ grid: "chain-grad-pool", title: "Gradient dL/dY2", planes: trace.grad_pool_output, plane: filterPlane(filters), attributes: hot }),
    });
  }
  if (trace.grad_activation_output) {
    backward.push({
      key: "grad-relu", title: "dL/dReLU(Y1)", caption: trace.pool ? words.gradRelu : words.gradPool,
      grid: gradients({ grid: "chain-grad-relu", title: "Gradient at ReLU's output", planes: trace.grad_activation_output, plane: filterPlane(filters) }),
    });
  }
  backward.push({
    key: "grad-conv", title: "dL/dY1", caption: trace.pool || trace.activation ? words.gradConv : words.gradPool,
    grid: gradients({
      grid: "chain-grad-conv", title: "Gradient dL/dY1", planes: trace.grad_conv_output, plane: filterPlane(filters),
      zero: trace.pool_receivers ? (f, r, c) => trace.pool_receivers[f][r][c] === 0 : null,
      attributes: !trace.pool && state.cup === "hot" ? hot : null,
    }),
  });
  backward.push({
    key: "grad-weight", title: "dL/dW", caption: words.gradWeight,
    grid: gradients({ grid: "chain-grad-weight", title: "Gradient dL/dW", planes: trace.grad_weight.flat(1), scaleOf: magnitudeScale(trace.grad_weight.flat(1)), plane: weightPlace }),
  });
  if (trace.grad_bias) {
    backward.push({
      key: "grad-bias", title: "dL/db", caption: words.gradBias,
      grid: gradients({ grid: "chain-grad-bias", title: "Gradient dL/db", planes: [[trace.grad_bias]], scaleOf: magnitudeScale([[trace.grad_bias]]), plane: onePlane("dL/db") }),
    });
  }
  backward.push({
    key: "grad-input", title: "dL/dX", caption: words.gradInput,
    grid: gradients({ grid: "chain-grad-input", title: "Gradient dL/dX", planes: trace.grad_input, plane: channelPlane(channels) }),
  });
  return { forward, backward };
}
