"""The chain view's first view (web/chain/keys.js CHAIN_CAPSTONE, the lesson's capstone),
defined once for the tests that drive the chain view in Chromium and in the other engines:
its input X, filter W and target T, and how a chain grid's plane is read off the page."""

CAPSTONE_X = [[1, 2, 0, 3, 1, 0], [0, 1, 3, 1, 2, 2], [2, 0, 1, 0, 1, 3], [1, 3, 2, 2, 0, 1], [0, 1, 1, 3, 2, 0], [2, 2, 0, 1, 1, 1]]
CAPSTONE_W = [[0.5, -0.5, 0], [0, 1, 0], [0.5, 0, -0.5]]
CAPSTONE_T = [[2, 1], [0, 3]]

# The cell texts, row by row, of one plane of a chain grid (its table's data-plane: "0" for
# the first channel or filter, "0/0" for a weight's first filter and channel); null when the
# plane is not drawn. A JavaScript function of [grid, plane], for Playwright's evaluate and
# Selenium's execute_script.
CHAIN_PLANE_ROWS = """([grid, plane]) => {
  const table = [...document.querySelectorAll(`#chain table[data-grid-name="${grid}"]`)].find((t) => t.dataset.plane === plane);
  if (!table) return null;
  return [...table.querySelectorAll("tr")].map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)).filter((row) => row.length);
}"""
