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
widget's entry. The other modules are how the API is built and may change. The network's
names (convolution, ReLU, the losses, the layers, :func:`chain_trace`) are imported the
first time one is read, so `import poolgrad` loads only the pooling family.
"""

# The one place the version is written: pyproject.toml reads it from here.
__version__ = "0.1.0"

from . import exercises
from .adaptive_pool import (adaptive_avg_pool2d, adaptive_avg_pool2d_backward, adaptive_max_pool2d,
                            adaptive_max_pool2d_backward)
from .avg_pool import avg_pool2d, avg_pool2d_backward
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

#: The names imported on first use, by the module that defines them. The widget's page
#: starts Python from a memory image made after `import poolgrad.wire` (docs/startup.md):
#: what the pooling view never uses stays out of it, and out of every start. The network
#: around the pooling layer (convolution, ReLU, the losses, the layers, the chain) loads
#: the first time one of its names is read (`poolgrad.conv2d`, `from poolgrad import
#: Conv2d`); poolgrad.widget needs anywidget, an optional dependency (poolgrad's [widget]
#: extra), which `import poolgrad` never imports.
_LAZY_MODULES = {
    "activation": ("relu", "relu_backward"),
    "chain": ("chain_trace",),
    "conv": ("conv2d", "conv2d_backward"),
    "layers": ("AdaptiveAvgPool2d", "AdaptiveMaxPool2d", "AvgPool2d", "Conv2d", "L1Loss", "LPPool2d",
               "MSELoss", "MaxPool2d", "MaxUnpool2d", "ReLU"),
    "losses": ("l1_loss", "l1_loss_backward", "mse_loss", "mse_loss_backward"),
    "widget": ("Widget", "check"),
}
_LAZY = {name: module for module, names in _LAZY_MODULES.items() for name in names}
#: Widget and check: API, but outside __all__ (a star import must not need anywidget).
_WIDGET_NAMES = _LAZY_MODULES["widget"]


def __getattr__(name):
    """A name of the API that is imported on first use (see _LAZY_MODULES).

    >>> import poolgrad
    >>> poolgrad.conv2d([[[1, 2], [3, 4]]], [[[[1, 0], [0, 1]]]])
    array([[[5.]]])
    """
    if name not in _LAZY:
        raise AttributeError(f"module 'poolgrad' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
    if _LAZY[name] != "widget":  # the widget's names are looked up each time, as before
        globals()[name] = value
    return value


def __dir__():
    # The implementation modules are attributes too once imported; dir() shows the API.
    return sorted([*__all__, *_WIDGET_NAMES])
