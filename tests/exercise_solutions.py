"""Answers to the lesson's exercises, right and wrong, as a learner would type them:
the native checker tests (tests/poolgrad/test_exercise_check.py) and the browser tests
(tests/web/test_exercise.py) run the same texts. Each wrong answer makes one typical
mistake, named by its key."""

_FORWARD_HEAD = '''import numpy as np


def max_pool2d(image, pool_size=2):
    rows, cols = image.shape[0] // pool_size, image.shape[1] // pool_size
'''

_FORWARD_WINDOW = "image[i * pool_size:(i + 1) * pool_size, j * pool_size:(j + 1) * pool_size]"

FORWARD = {
    "loops": _FORWARD_HEAD + f'''    out = np.empty((rows, cols), dtype=image.dtype)
    for i in range(rows):
        for j in range(cols):
            out[i, j] = {_FORWARD_WINDOW}.max()
    return out
''',
    "numpy": '''import numpy as np


def max_pool2d(image, pool_size=2):
    rows, cols = image.shape[0] // pool_size, image.shape[1] // pool_size
    kept = image[:rows * pool_size, :cols * pool_size]
    return kept.reshape(rows, pool_size, cols, pool_size).max(axis=(1, 3))
''',
    # The window stops one cell short on both axes.
    "off_by_one": _FORWARD_HEAD + '''    out = np.empty((rows, cols), dtype=image.dtype)
    for i in range(rows):
        for j in range(cols):
            out[i, j] = image[i * pool_size:(i + 1) * pool_size - 1, j * pool_size:(j + 1) * pool_size - 1].max()
    return out
''',
    # The running maximum starts at 0, so an all-negative window gives 0.
    "starts_from_zero": _FORWARD_HEAD + '''    out = np.zeros((rows, cols), dtype=image.dtype)
    for i in range(rows):
        for j in range(cols):
            for r in range(i * pool_size, (i + 1) * pool_size):
                for c in range(j * pool_size, (j + 1) * pool_size):
                    if image[r, c] > out[i, j]:
                        out[i, j] = image[r, c]
    return out
''',
    # np.zeros makes float64 whatever the input.
    "float_output": _FORWARD_HEAD + f'''    out = np.zeros((rows, cols))
    for i in range(rows):
        for j in range(cols):
            out[i, j] = {_FORWARD_WINDOW}.max()
    return out
''',
    # Python numbers lose the input's dtype: int8 comes back as int64.
    "python_numbers": _FORWARD_HEAD + f'''    return np.array([[max({_FORWARD_WINDOW}.flatten().tolist())
                      for j in range(cols)] for i in range(rows)])
''',
    # Rounds the output size up, keeping partial windows.
    "keeps_leftover": '''import numpy as np


def max_pool2d(image, pool_size=2):
    rows, cols = -(-image.shape[0] // pool_size), -(-image.shape[1] // pool_size)
    out = np.empty((rows, cols), dtype=image.dtype)
    for i in range(rows):
        for j in range(cols):
            out[i, j] = image[i * pool_size:(i + 1) * pool_size, j * pool_size:(j + 1) * pool_size].max()
    return out
''',
    "endless": '''def max_pool2d(image, pool_size=2):
    while True:
        pass
''',
}


def _backward(better, update, result="[[round(value, 4) for value in row] for row in grad]"):
    return f'''def max_pool2d_backward(input_map, grad_output, pool_size=2, stride=2):
    rows, cols = len(input_map), len(input_map[0])
    grad = [[0.0] * cols for _ in range(rows)]
    for i, grad_row in enumerate(grad_output):
        for j, g in enumerate(grad_row):
            best = None
            for r in range(i * stride, i * stride + pool_size):
                for c in range(j * stride, j * stride + pool_size):
                    if best is None or input_map[r][c] {better} input_map[best[0]][best[1]]:
                        best = (r, c)
            {update}
    return {result}
'''


BACKWARD = {
    "loops": _backward(">", "grad[best[0]][best[1]] += g"),
    # ">=" moves the winner to the last of equal maxima.
    "last_max_wins": _backward(">=", "grad[best[0]][best[1]] += g"),
    # "=" instead of "+=": where windows overlap, the later output overwrites the earlier.
    "no_accumulation": _backward(">", "grad[best[0]][best[1]] = g"),
    "no_rounding": _backward(">", "grad[best[0]][best[1]] += g", result="grad"),
    # The running maximum starts at 0, so an all-negative window sends its gradient nowhere.
    "starts_from_zero": '''def max_pool2d_backward(input_map, grad_output, pool_size=2, stride=2):
    rows, cols = len(input_map), len(input_map[0])
    grad = [[0.0] * cols for _ in range(rows)]
    for i, grad_row in enumerate(grad_output):
        for j, g in enumerate(grad_row):
            best, where = 0, None
            for r in range(i * stride, i * stride + pool_size):
                for c in range(j * stride, j * stride + pool_size):
                    if input_map[r][c] > best:
                        best, where = input_map[r][c], (r, c)
            if where:
                grad[where[0]][where[1]] += g
    return grad
''',
    # Returns one value per output cell instead of one per input cell.
    "output_shaped": '''def max_pool2d_backward(input_map, grad_output, pool_size=2, stride=2):
    return [[float(g) for g in row] for row in grad_output]
''',
    # Line 5 indexes one column past the end.
    "index_error": '''def max_pool2d_backward(input_map, grad_output, pool_size=2, stride=2):
    rows, cols = len(input_map), len(input_map[0])
    grad = [[0.0] * cols for _ in range(rows)]
    for i in range(len(grad_output)):
        grad[i][cols] += grad_output[i][0]
    return grad
''',
}


_CONV_HEAD = '''import numpy as np


def conv2d_backward(x, w, grad_output):
    kh, kw = w.shape
    grad_w = np.zeros(w.shape)
    grad_x = np.zeros(x.shape)
'''

# Each output (i, j) hands its gradient to the weights (times the window it read) and to
# the window's cells (times the weights): the scatter form of the two correlations.
_CONV_SCATTER = _CONV_HEAD + '''    for i in range(grad_output.shape[0]):
        for j in range(grad_output.shape[1]):
            grad_w += grad_output[i, j] * x[i:i + kh, j:j + kw]
            grad_x[i:i + kh, j:j + kw] += grad_output[i, j] * w
'''


def _conv_full(turned):
    """dL/dX as the full correlation of the padded dL/dY with `turned`, the filter as written."""
    return _CONV_HEAD + f'''    for a in range(kh):
        for b in range(kw):
            grad_w[a, b] = (x[a:a + grad_output.shape[0], b:b + grad_output.shape[1]] * grad_output).sum()
    padded = np.pad(grad_output, ((kh - 1, kh - 1), (kw - 1, kw - 1)))
    for r in range(x.shape[0]):
        for c in range(x.shape[1]):
            grad_x[r, c] = (padded[r:r + kh, c:c + kw] * {turned}).sum()
    return grad_w, grad_x
'''


CONV = {
    "scatter": _CONV_SCATTER + "    return grad_w, grad_x\n",
    "full": _conv_full("w[::-1, ::-1]"),
    # The gradients in the wrong order.
    "swapped": _CONV_SCATTER + "    return grad_x, grad_w\n",
    # The filter turned left to right only: for the lesson's edge filter, whose rows are
    # alike, that is the same as turned 180°, so only the asymmetric filter shows it.
    "columns_flipped": _conv_full("w[:, ::-1]"),
    # dL/dW as if dL/dY were all ones: the windows summed, not weighted by their gradient.
    "unweighted": _CONV_SCATTER.replace("grad_w += grad_output[i, j] * x", "grad_w += x") + "    return grad_w, grad_x\n",
    # A list of the two grids, not a tuple.
    "as_list": _CONV_SCATTER + "    return [grad_w, grad_x]\n",
    "starter": '''def conv2d_backward(x, w, grad_output):
    raise NotImplementedError
''',
}

MSE = {
    "right": '''def mse_loss_backward(prediction, target):
    return 2 * (prediction - target) / prediction.size
''',
    # n taken as rows squared: right for the square examples only.
    "square_only": '''def mse_loss_backward(prediction, target):
    n = len(prediction) ** 2
    return 2 * (prediction - target) / n
''',
    "no_mean": '''def mse_loss_backward(prediction, target):
    return 2 * (prediction - target)
''',
    # The loss itself, one number, instead of its gradient.
    "the_loss": '''import numpy as np


def mse_loss_backward(prediction, target):
    return np.mean((prediction - target) ** 2)
''',
}
