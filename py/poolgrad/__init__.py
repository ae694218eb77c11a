"""poolgrad: PyTorch's 2D pooling family in NumPy (max, average, adaptive, LP, unpooling),
computed exactly as PyTorch computes it.

Forward passes remember where each maximum came from; backward passes route gradients
back to the input cells. The widget of the pooling lesson renders :func:`trace`, which
describes one pooling of one plane.

>>> import poolgrad
>>> poolgrad.max_pool2d([[1, 2], [3, 4]], 2)
array([[4]])
>>> poolgrad.MaxPool2d(2, stride=1)([[1, 2, 0], [3, 4, 9]])
array([[4, 9]])

The names in ``__all__`` are the API (``dir(poolgrad)`` lists those). Two modules belong
to the lesson and are documented: :mod:`poolgrad.exercises` (the exercises, solved) and
:mod:`poolgrad.exercise_check` (checks an answer to them, running it with
:mod:`poolgrad.exercise_run`, the exercise worker's side); :mod:`poolgrad.wire` is the web
widget's entry. The other modules are how the API is built and may change.
"""

# The one place the version is written: pyproject.toml reads it from here.
__version__ = "0.1.0"

from . import exercises
from .adaptive_pool import (adaptive_avg_pool2d, adaptive_avg_pool2d_backward, adaptive_max_pool2d,
                            adaptive_max_pool2d_backward)
from .avg_pool import avg_pool2d, avg_pool2d_backward
from .layers import AdaptiveAvgPool2d, AdaptiveMaxPool2d, AvgPool2d, LPPool2d, MaxPool2d, MaxUnpool2d
from .lp_pool import lp_pool2d, lp_pool2d_backward
from .max_pool import max_pool2d, max_pool2d_backward
from .trace import trace
from .unpool import max_unpool2d
from .geometry import output_size

__all__ = [
    "__version__",
    "AdaptiveAvgPool2d",
    "AdaptiveMaxPool2d",
    "AvgPool2d",
    "LPPool2d",
    "MaxPool2d",
    "MaxUnpool2d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool2d_backward",
    "adaptive_max_pool2d",
    "adaptive_max_pool2d_backward",
    "avg_pool2d",
    "avg_pool2d_backward",
    "exercises",
    "lp_pool2d",
    "lp_pool2d_backward",
    "max_pool2d",
    "max_pool2d_backward",
    "max_unpool2d",
    "output_size",
    "trace",
]

#: What poolgrad.widget provides, loaded on first use: it needs anywidget, an optional
#: dependency (poolgrad's [widget] extra), which `import poolgrad` never imports.
_WIDGET_NAMES = ("Widget", "check")


def __getattr__(name):
    if name in _WIDGET_NAMES:
        from . import widget
        return getattr(widget, name)
    raise AttributeError(f"module 'poolgrad' has no attribute {name!r}")


def __dir__():
    # The implementation modules are attributes too once imported; dir() shows the API.
    return sorted([*__all__, *_WIDGET_NAMES])
