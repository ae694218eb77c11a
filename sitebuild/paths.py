"""Where things are: the repository, the site's sources and the default output folder.

Read as ``paths.DIST`` and ``paths.WEB`` at call time (not imported by value), so a test can
point a build elsewhere by setting them here, once, for every module."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "dist"
WEB = ROOT / "web"
BUNDLE_NAME = "poolgrad-offline"
DIST_MARKER = ".poolgrad-dist"  # marks a directory build() made (and may prune)
