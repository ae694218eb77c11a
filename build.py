#!/usr/bin/env python3
"""Build, serve, test, benchmark and bundle poolgrad's offline static site.

    python build.py [build]        assemble dist/, the offline static site
    python build.py serve          build if needed, then serve dist/ on http://127.0.0.1:8000/
    python build.py test [ARGS]    install what the tests need, build, run them all
    python build.py bench          the benchmarks (--engine chromium|firefox|webkit|wpe)
    python build.py bundle [PATH]  zip dist/ with serve.py for an offline demo

``python build.py --help`` (or ``COMMAND --help``) prints the details. Standard library
only, so a fresh machine can run it before anything is installed. The work is done by the
``sitebuild`` package beside this file (its docstring lists its modules); this file only
hands it the command line.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sitebuild.commands import main  # noqa: E402  (the package sits beside this file)

if __name__ == "__main__":
    sys.exit(main())
