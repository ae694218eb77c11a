// The widget's markup: what mount() draws into its element, the same for every host
// (index.html, <pool-grad>). Its ids are the DOM contract (docs/design.md); they are unique
// within the tree the widget is drawn in (the page, or an element's shadow root); a widget
// drawn beside another in one tree (two notebook widgets) makes its own (separateIds). Each
// part a host may switch off carries data-part.

// #status, for a host that does not place its own (index.html does, so that disk-check.js
// can speak before any module loads).
export const STATUS_MARKUP = `
<div id="status" role="status" data-state="loading">
  <span id="status-text">Loading Python in your browser…</span>
  <progress id="boot-progress" aria-label="Loading progress"></progress>
</div>
`;

export const WIDGET_MARKUP = `
<div class="view-switch">
  <label for="view">View</label>
  <select id="view" name="view">
    <option value="pool">Pooling layer</option>
    <option value="chain">Chain: conv → pool → loss</option>
    <option value="picture">Picture</option>
  </select>
</div>
<!-- The chain view (view=chain): web/chain/ draws it here when it is first opened. -->
<section id="chain" class="chain" aria-label="The chain: convolution, pooling, loss" data-view-part="chain" hidden></section>
<section class="controls" aria-label="Pooling settings" data-part="controls" data-view-part="pool picture">
  <!-- Shown on narrow screens only (style.css), where the settings start folded. -->
  <button id="controls-toggle" class="controls-toggle" type="button" aria-expanded="false" aria-controls="controls-body">
    <span class="fold-icon" aria-hidden="true"></span> Settings <span class="hint">window, mode, input</span>
  </button>
  <div id="controls-body" class="controls-body">
  <fieldset>
    <legend>Window</legend>
    <label for="kernel">Kernel <span class="hint">k or h,w</span></label>
    <input id="kernel" name="kernel" type="text" inputmode="text" autocapitalize="off" autocomplete="off" spellcheck="false" value="2">
    <label for="stride">Stride</label>
    <input id="stride" name="stride" type="text" inputmode="text" autocapitalize="off" autocomplete="off" spellcheck="false" value="2">
    <label for="padding">Padding</label>
    <input id="padding" name="padding" type="text" inputmode="text" autocapitalize="off" autocomplete="off" spellcheck="false" value="0">
    <label for="dilation">Dilation <span class="hint">max only</span></label>
    <input id="dilation" name="dilation" type="text" inputmode="text" autocapitalize="off" autocomplete="off" spellcheck="false" value="1">
    <label for="output-size">Output size <span class="hint">adaptive only</span></label>
    <input id="output-size" name="output-size" type="text" inputmode="text" autocapitalize="off" autocomplete="off" spellcheck="false" value="2" aria-describedby="window-reason">
    <label for="norm-type">Norm type p <span class="hint">LP only</span></label>
    <input id="norm-type" name="norm-type" type="text" inputmode="decimal" autocapitalize="off" autocomplete="off" spellcheck="false" value="2" aria-describedby="window-reason">
    <p id="window-reason" class="hint window-reason"></p>
  </fieldset>
  <fieldset>
    <legend>Pooling</legend>
    <label for="mode">Mode</label>
    <select id="mode" name="mode">
      <option value="max">max</option>
      <option value="avg">average</option>
      <option value="adaptive_max">adaptive max</option>
      <option value="adaptive_avg">adaptive average</option>
      <option value="lp">LP (power average)</option>
    </select>
    <label class="check"><input id="ceil" name="ceil" type="checkbox"> ceil_mode <span class="hint">round the size up</span></label>
    <label class="check"><input id="cip" name="cip" type="checkbox" checked> count_include_pad <span class="hint">average only</span></label>
    <label class="check strong"><input id="gradient" name="gradient" type="checkbox"> Gradient routing</label>
    <label class="check"><input id="unpool" name="unpool" type="checkbox"> Unpooling <span class="hint">max_unpool2d, max modes only</span></label>
  </fieldset>
  <fieldset data-view-part="pool">
    <legend>Input</legend>
    <label for="preset">Preset</label>
    <span class="row">
      <select id="preset" name="preset"></select>
      <!-- Shown while the random preset shows: choosing it again fires no change. -->
      <button id="preset-reroll" type="button" hidden>New random numbers</button>
    </span>
    <span class="label" id="size-label">Size</span>
    <span class="row" role="group" aria-labelledby="size-label">
      <input id="rows" name="rows" type="number" min="1" max="16" step="1" aria-label="Rows (1 to 16)">
      <span aria-hidden="true">×</span>
      <input id="cols" name="cols" type="number" min="1" max="16" step="1" aria-label="Columns (1 to 16)">
      <span class="hint">up to 16 × 16</span>
    </span>
    <details class="paste">
      <summary>Paste a matrix</summary>
      <label for="paste">One row per line; numbers separated by spaces or commas.</label>
      <textarea id="paste" name="paste" rows="4" spellcheck="false" placeholder="1 2 5 6&#10;3 4 8 7"></textarea>
      <button id="paste-apply" type="button">Use this matrix</button>
      <p id="paste-message" role="alert"></p>
    </details>
  </fieldset>
  </div>
</section>
<!-- The picture view (view=picture): web/picture/ draws it here when it is first opened. -->
<section id="picture" class="picture" aria-label="Pooling a picture" data-view-part="picture" hidden></section>

<section id="player" data-part="player" data-view-part="pool" class="player" aria-labelledby="player-title" data-stepping="false">
  <h2 id="player-title">Step through the windows</h2>
  <div class="player-bar">
    <button id="player-back" type="button"><span aria-hidden="true">◀</span> Step back</button>
    <button id="player-play" type="button" aria-pressed="false"><span class="play-icon" aria-hidden="true"></span> Play</button>
    <button id="player-forward" type="button">Step forward <span aria-hidden="true">▶</span></button>
    <button id="player-reset" type="button">Show all</button>
    <span class="player-speed">
      <label for="player-speed">Speed</label>
      <select id="player-speed">
        <option value="1600">slow</option>
        <option value="800" selected>normal</option>
        <option value="400">fast</option>
        <option value="200">very fast</option>
      </select>
    </span>
    <span id="player-progress" class="player-progress"></span>
  </div>
  <p id="player-caption" class="player-caption"></p>
  <p id="player-motion" class="hint" hidden>Play is off because your system asks for reduced motion; the step buttons still work.</p>
</section>

<section id="stage" class="stage" data-view-part="pool" aria-label="Grids">
  <div class="column">
    <div class="panel panel-input">
      <h2>Input <span id="shapes" class="shape"></span></h2>
      <p class="hint">Click a cell (or press Enter on it) to edit it. Padding is the striped ring.</p>
      <div id="input-grid" class="grid-box"></div>
    </div>
    <div class="panel panel-grad-input" data-gradient-panel hidden>
      <h2>Input gradient <span class="shape">routed back to each input cell</span></h2>
      <div id="grad-input-grid" class="grid-box"></div>
    </div>
    <div class="panel panel-unpooled" data-unpool-panel hidden>
      <h2>Unpooled <span class="shape">max_unpool2d(out, indices)</span></h2>
      <p id="unpool-note" class="hint"></p>
      <div id="unpooled-grid" class="grid-box"></div>
    </div>
  </div>
  <div class="column">
    <div class="pair">
      <div class="panel panel-output">
        <h2>Output</h2>
        <p class="hint">Tap a cell to see its window.</p>
        <div id="output-grid" class="grid-box" aria-busy="true"></div>
      </div>
      <div class="panel panel-grad-output" data-gradient-panel hidden>
        <h2>Upstream gradient</h2>
        <p class="hint">Click a cell to edit. Presets:
          <button id="grad-ones" type="button">ones</button>
          <button id="grad-count" type="button">1..n</button>
        </p>
        <div id="grad-output-grid" class="grid-box"></div>
      </div>
    </div>
    <div class="panel panel-explain">
      <p id="explanation" class="explanation"></p>
      <p id="announcer" class="visually-hidden" aria-live="polite"></p>
      <ul id="legend" class="legend" data-mode="max" aria-label="How cells are marked">
        <li><span class="swatch swatch-window" aria-hidden="true">5</span> in the selected output's window</li>
        <li data-only="max"><span class="swatch swatch-argmax" aria-hidden="true">8</span> its maximum (argmax)</li>
        <li><span class="swatch swatch-shared" aria-hidden="true">3</span> <span data-only="max">chosen by several outputs (×n)</span><span data-only="avg">in several outputs' windows (×n)</span></li>
        <li><span class="swatch swatch-pad" aria-hidden="true"><span data-only="max">-∞</span><span data-only="avg">0</span></span> padding</li>
      </ul>
      <div id="formula-box"></div>
    </div>
  </div>
</section>

<div class="teach" data-part="lesson" data-view-part="pool">
  <section id="lesson" class="panel lesson" aria-labelledby="lesson-title">
    <h2 id="lesson-title">What the grids show</h2>
    <div class="mode-toggle" role="group" aria-label="Compare max and average pooling">
      <button id="mode-max" type="button" aria-pressed="true">Max</button>
      <button id="mode-avg" type="button" aria-pressed="false">Average</button>
    </div>
    <div id="lesson-text"></div>
  </section>
  <section id="guide" class="panel guide" aria-labelledby="guide-title">
    <h2 id="guide-title">Try it</h2>
    <p id="guide-progress" class="hint"></p>
    <ol id="guide-steps" class="guide-steps"></ol>
    <button id="guide-reset" type="button">Reset progress</button>
  </section>
</div>

<section id="exercise" data-part="exercise" data-view-part="pool chain" class="panel exercise" aria-labelledby="exercise-title">
  <h2 id="exercise-title">Write it yourself</h2>
  <p class="hint">Your code runs in a Python of its own in this page and is checked against poolgrad on the lesson's examples and on cases for every rule. The first case it gets wrong is shown with its wrong cells marked: a pooling exercise's in the pooling view's grids, a chain exercise's here, below the result.</p>
  <label for="exercise-pick">Exercise</label>
  <select id="exercise-pick" class="exercise-pick" name="exercise-pick">
    <option value="forward">max_pool2d: the forward pass (NumPy)</option>
    <option value="backward">max_pool2d_backward: the backward pass (lists)</option>
    <option value="conv2d_backward">conv2d_backward: dL/dW and dL/dX of one channel (NumPy)</option>
    <option value="mse_loss_backward">mse_loss_backward: where the chain's gradient starts (NumPy)</option>
  </select>
  <p id="exercise-task" class="exercise-task"></p>
  <label for="exercise-code">Your code</label>
  <p id="exercise-keys" class="hint">Tab indents and Shift+Tab unindents. To leave the editor with the keyboard, press Escape, then Tab. Your code is kept in this browser.</p>
  <textarea id="exercise-code" class="exercise-code" name="exercise-code" rows="16" spellcheck="false" autocapitalize="off" autocomplete="off" autocorrect="off" wrap="off" aria-describedby="exercise-task exercise-keys"></textarea>
  <div class="exercise-buttons">
    <button id="exercise-run" type="button" class="primary">Run</button>
    <button id="exercise-reset" type="button">Reset to the starter code</button>
  </div>
  <p id="exercise-result" class="exercise-result" role="status"></p>
  <div id="exercise-case" class="exercise-case" role="group" aria-label="The failing case: the arguments and the right answer" hidden></div>
</section>
<details id="code" data-part="code" data-view-part="pool" class="panel code-view">
  <summary>Code: take this view away</summary>
  <p class="hint">Python that rebuilds exactly this view: the input, the upstream gradient and the settings, in float64. It defines <code>out</code>, <code>indices</code> (the max modes), <code>unpooled</code> (with Unpooling on) and <code>grad_input</code> (with gradient routing on).</p>
  <div class="code-head">
    <h3>PyTorch</h3>
    <button id="copy-torch" type="button" data-copy="torch" data-what="PyTorch code" aria-label="Copy the PyTorch code">Copy</button>
  </div>
  <pre id="code-torch" class="code-text" tabindex="0"></pre>
  <div class="code-head">
    <h3>poolgrad</h3>
    <button id="copy-poolgrad" type="button" data-copy="poolgrad" data-what="poolgrad code" aria-label="Copy the poolgrad code">Copy</button>
  </div>
  <pre id="code-poolgrad" class="code-text" tabindex="0"></pre>
  <h3>Share and show</h3>
  <div class="code-actions">
    <button id="copy-link" type="button" data-copy="link" data-what="link">Copy link</button>
    <button id="copy-embed" type="button" data-copy="embed" data-what="embed code">Copy embed code</button>
    <button id="save-picture" type="button">Save picture (SVG)</button>
  </div>
  <p id="code-message" class="code-message" role="status"></p>
  <p class="hint">Link: <span id="code-link" class="code-inline"></span></p>
  <p class="hint">Embed code (an iframe for a lesson page):</p>
  <pre id="code-embed" class="code-text" tabindex="0"></pre>
</details>
`;

// The attributes that point at other elements by id.
const ID_REFERENCES = ["for", "aria-labelledby", "aria-describedby", "aria-controls"];

// A widget drawn in a tree that already holds one (two notebook widgets on a page): the ids
// its labels and descriptions point at get a suffix of their own ("kernel-2"), so that each
// points into its own widget rather than at the first widget's field. The first widget drawn
// in a tree keeps the contract's ids (#kernel, ...). Called once mount() holds every node it
// looks up by id; the ids nothing points at (the style sheet's) stay.
export function separateIds(element) {
  const root = element.getRootNode();
  if (root.querySelectorAll("#kernel").length < 2) return;
  let n = 2;
  while (root.querySelector(`#kernel-${n}`)) n += 1;
  const renamed = new Map();
  for (const node of element.querySelectorAll(ID_REFERENCES.map((name) => `[${name}]`).join(","))) {
    for (const name of ID_REFERENCES.filter((name) => node.hasAttribute(name))) {
      const ids = node.getAttribute(name).trim().split(/\s+/);
      for (const id of ids) if (!renamed.has(id)) renamed.set(id, `${id}-${n}`);
      node.setAttribute(name, ids.map((id) => renamed.get(id)).join(" "));
    }
  }
  for (const [id, unique] of renamed) {
    const target = element.querySelector(`[id="${id}"]`);
    if (target) target.id = unique;
  }
}
