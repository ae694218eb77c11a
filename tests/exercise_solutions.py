"""Answers to the lesson's two exercises, right and wrong, as a learner would type them:
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
