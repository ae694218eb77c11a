"""The lesson's 4 x 4 fixture (docs/design.md, "Reference numbers"), defined once for every
test that drives the widget: as the URL hash spells it, and as rows of numbers."""

FIXTURE_ROWS = [[1, 2, 5, 6], [3, 4, 8, 7], [0, -1, -3, -2], [-4, 9, -6, -5]]
FIXTURE = ";".join(",".join(str(v) for v in row) for row in FIXTURE_ROWS)
