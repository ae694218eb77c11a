"""poolgrad: 2D max and average pooling in NumPy, exactly as PyTorch computes them.

Forward passes remember where each maximum came from; backward passes route gradients
back to the input cells. The widget of the pooling lesson renders :func:`trace`, which
describes one pooling of one plane.

>>> import poolgrad
>>> poolgrad.max_pool2d([[1, 2], [3, 4]], 2)
array([[4]])
"""

# The one place the version is written: pyproject.toml reads it from here.
__version__ = "0.1.0"

from . import exercises
from .avg_pool import avg_pool2d, avg_pool2d_backward
from .layers import AvgPool2d, MaxPool2d
from .max_pool import max_pool2d, max_pool2d_backward
from .trace import trace
from .geometry import output_size

__all__ = [
    "__version__",
    "AvgPool2d",
    "MaxPool2d",
    "avg_pool2d",
    "avg_pool2d_backward",
    "exercises",
    "max_pool2d",
    "max_pool2d_backward",
    "output_size",
    "trace",
]

#: What poolgrad.widget provides, loaded on first use: it needs anywidget, an optional
#: dependency (pip install "poolgrad[widget]"), which `import poolgrad` never imports.
_WIDGET_NAMES = ("Widget", "check")


def __getattr__(name):
    if name in _WIDGET_NAMES:
        from . import widget
        return getattr(widget, name)
    raise AttributeError(f"module 'poolgrad' has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), *_WIDGET_NAMES])
