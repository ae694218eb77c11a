"""poolgrad: PyTorch's 2D pooling family in NumPy (max, average, adaptive, LP, unpooling),
computed exactly as PyTorch computes it, and the network around it (convolution, ReLU,
the MSE and L1 losses).

Forward passes remember where each maximum came from; backward passes route gradients
back to the input cells. The widget of the pooling lesson renders :func:`trace`, which
describes one pooling of one plane, and :func:`chain_trace`, which describes one
convolution -> pooling -> loss chain, forward and backward.

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
from .activation import relu, relu_backward
from .adaptive_pool import (adaptive_avg_pool2d, adaptive_avg_pool2d_backward, adaptive_max_pool2d,
                            adaptive_max_pool2d_backward)
from .avg_pool import avg_pool2d, avg_pool2d_backward
from .chain import chain_trace
from .conv import conv2d, conv2d_backward
from .layers import (AdaptiveAvgPool2d, AdaptiveMaxPool2d, AvgPool2d, Conv2d, L1Loss, LPPool2d, MaxPool2d,
                     MaxUnpool2d, MSELoss, ReLU)
from .losses import l1_loss, l1_loss_backward, mse_loss, mse_loss_backward
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
    "Conv2d",
    "L1Loss",
    "LPPool2d",
    "MSELoss",
    "MaxPool2d",
    "MaxUnpool2d",
    "ReLU",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool2d_backward",
    "adaptive_max_pool2d",
    "adaptive_max_pool2d_backward",
    "avg_pool2d",
    "avg_pool2d_backward",
    "chain_trace",
    "conv2d",
    "conv2d_backward",
    "exercises",
    "l1_loss",
    "l1_loss_backward",
    "lp_pool2d",
    "lp_pool2d_backward",
    "max_pool2d",
    "max_pool2d_backward",
    "max_unpool2d",
    "mse_loss",
    "mse_loss_backward",
    "output_size",
    "relu",
    "relu_backward",
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
    # The implementation modules are attributes too once imported; dir() shows the API.
    return sorted([*__all__, *_WIDGET_NAMES])
