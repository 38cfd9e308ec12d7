/*
 * levels.js: the levels figure of the web calculator (docs/web.md, "Meshes"; docs/meshes.md):
 * Langguth et al.'s figure for the form's mesh kernel, GPU and launch, from POST
 * /v1/levels. Predicted GLup/s against the diagonal block size b of synthetic meshes
 * (log axis, up to the random mesh), the levels named over their ranges, every limit as a
 * line, and the user's own mesh (and each ordering of the last ranking) marked. Uses the
 * helpers and colours of app.js (loaded first); app.js calls showLevelsFor after each
 * answer. Like the rest of the page it computes no estimate, only positions.
 */
"use strict";

/* The levels answer on screen and the request it answers (without search and measure:
 * a ranking of the same kernel, mesh and launch reuses it). */
let levelsShown = null; /* {key, answer} */
let levelsSeq = 0;      /* the newest levels request; an older answer is dropped */

/* Whether req's kernel has an index field with values, the one the levels need (the
 * API checks the rest: a field of the domain's cells). */
function hasMesh(req) {
  const fields = ((req || {}).kernel || {}).fields;
  return Array.isArray(fields) && fields.some((f) => f && f.integer === true && f.values);
}

/* The estimate request of the levels: req without what only a ranking reads. */
function levelsRequest(req) {
  const r = Object.assign({}, req);
  delete r.search;
  delete r.measure;
  return r;
}

/* The levels of req after an answer (rank: the ranking, whose orderings are marked on
 * the figure; null for an estimate): asks POST /v1/levels unless the figure shown
 * answers the same request already, shows a spinner meanwhile, and the API's error in
 * the section when it refuses. Hidden for a kernel without a mesh. */
async function showLevelsFor(req, rank) {
  const box = $("levels");
  if (!hasMesh(req)) {
    box.hidden = true;
    levelsShown = null;
    return;
  }
  const lreq = levelsRequest(req), key = JSON.stringify(lreq);
  const seq = ++levelsSeq;
  box.hidden = false;
  if (!levelsShown || levelsShown.key !== key) {
    $("levels-status").textContent = "computing the levels: the kernel on synthetic meshes of " +
      "growing diagonal blocks\u2026";
    $("levels-status").classList.add("spinner");
    box.dataset.state = "busy";
    let r;
    try {
      r = await post("/v1/levels", lreq);
    } catch (e) {
      r = {ok: false, status: 0, body: {error: {code: "unreachable", message: e.message, path: ""}}};
    }
    if (seq !== levelsSeq) return; /* a newer request took over */
    $("levels-status").classList.remove("spinner");
    if (!r.ok) {
      const e = (r.body && r.body.error) || {code: "error", message: "HTTP " + r.status, path: ""};
      $("levels-status").textContent = `The levels were refused: ${e.code}` +
        (r.status ? ` (HTTP ${r.status})` : "") + `: ${e.message}` + (e.path ? " at " + e.path : "");
      $("levels-chart").replaceChildren();
      $("levels-table").replaceChildren();
      $("levels-title").replaceChildren();
      box.dataset.state = "failed";
      levelsShown = null;
      return;
    }
    levelsShown = {key, answer: r.body};
  }
  $("levels-status").textContent = "";
  drawLevels(levelsShown.answer, rank);
  box.dataset.state = "ok";
}

/* The runs of equal level along the rows: [{level, from, to}] (indices). */
function levelRuns(rows) {
  const runs = [];
  rows.forEach((r, i) => {
    const last = runs[runs.length - 1];
    if (last && last.level === r.level) last.to = i;
    else runs.push({level: r.level, from: i, to: i});
  });
  return runs;
}

/* Each ordering of the ranking rank (but "given", the mesh itself) at the levels'
 * launch: [{name, predicted, index}], for the figure's marks. */
function orderingMarks(rank, answer) {
  if (!rank || !Array.isArray(rank.orderings)) return [];
  const l = answer.launch;
  return rank.orderings.map((o, index) => {
    const r = rank.results.find((x) => x.ordering === o.name && sameTriple(x.block, l.block) &&
      sameTriple(x.folding, l.folding));
    return r && o.name !== "given" ? {name: o.name, predicted: r.performance.predicted, index} : null;
  }).filter(Boolean);
}

const LEVEL_TEXT = {memory: "memory-bound", "on-chip": "on-chip (L2/L1)", cliff: "cliff: past the L2",
  random: "random"};

/* Ticks of a log axis from lo to hi: 1, 2 and 5 times the powers of ten between. */
function logTicks(lo, hi) {
  const out = [];
  for (let k = Math.floor(Math.log10(lo)); k <= Math.ceil(Math.log10(hi)); k++)
    for (const m of [1, 2, 5]) {
      const t = Number((m * Math.pow(10, k)).toPrecision(3));
      if (t >= lo && t <= hi) out.push(t);
    }
  return out;
}

/* The figure's frame: the SVG, its scales (both logarithmic: the block sizes grow by
 * four, and the predictions and their limits lie a decade or more apart) and its axes
 * with their units. y runs from lo to hi GLup/s. */
function levelsFrame(a, lo, hi) {
  const rows = a.rows, W = 680, H = 300, left = 56, right = 170, top = 30, bottom = 44;
  const b0 = Math.log(rows[0].block_cells), b1 = Math.log(rows[rows.length - 1].block_cells);
  const x = (b) => left + (b1 > b0 ? (Math.log(b) - b0) / (b1 - b0) : 0.5) * (W - left - right);
  const y = (v) => H - bottom - (Math.log(Math.max(v, lo)) - Math.log(lo)) /
    (Math.log(hi) - Math.log(lo)) * (H - bottom - top);
  const svg = s("svg", {width: W, height: H, role: "img",
    "aria-label": "predicted performance against the diagonal block size, with the levels named"});
  for (const t of logTicks(lo, hi)) {
    svg.append(s("line", {x1: left, x2: W - right, y1: y(t), y2: y(t), class: "grid"}));
    svg.append(s("text", {x: left - 4, y: y(t) + 4, "text-anchor": "end", class: "axis"}, String(t)));
  }
  rows.forEach((r, i) => svg.append(s("text", {x: x(r.block_cells), y: H - bottom + 14, "text-anchor": "middle",
    class: "axis", "data-tick": r.block_cells}, i === rows.length - 1 ? "random" : String(r.block_cells))));
  svg.append(s("text", {x: (left + W - right) / 2, y: H - 6, "text-anchor": "middle", class: "axis unit-x"},
    "diagonal block b, cells (log scale; random: the whole mesh, " + a.cells + " cells)"));
  svg.append(s("text", {x: 0, y: top - 16, class: "axis unit-y"}, "GLup/s (log scale)"));
  return {svg, x, y, W, H, left, right, top, bottom};
}

/* The levels as bands behind the data, each named at its top. The bands alternate a
 * faint neutral tint only to part them: the name says the level, no colour does (a hue
 * is a limit on this page, grey a field). */
function levelBands(f, rows) {
  const g = s("g", {class: "level-bands"});
  const edge = (i) => (i < 0 ? f.left : i >= rows.length - 1 ? f.W - f.right :
    (f.x(rows[i].block_cells) + f.x(rows[i + 1].block_cells)) / 2);
  levelRuns(rows).forEach((run, k) => {
    const x0 = run.from === 0 ? f.left : edge(run.from - 1), x1 = edge(run.to);
    g.append(s("rect", {x: x0, y: f.top - 12, width: Math.max(x1 - x0, 1), height: f.H - f.bottom - f.top + 12,
      class: "level-band" + (k % 2 ? " odd" : ""), "data-level": run.level}));
    g.append(s("text", {x: (x0 + x1) / 2, y: f.top - 2, "text-anchor": "middle", class: "level-name",
      "data-level": run.level}, LEVEL_TEXT[run.level] || run.level));
  });
  return g;
}

/* Every limit of the rows as a line in its limit's colour (the limits chart's), clipped
 * to the plot; the names of those above it. */
function limitLines(f, rows, hi) {
  const g = s("g", {class: "limit-lines", "clip-path": "url(#levels-clip)"});
  const above = [];
  for (const k of Object.keys(LIMIT_NAMES)) {
    const vals = rows.map((r) => r.performance[k]);
    if (vals.some((v) => v === null || v === undefined)) continue;
    if (Math.min(...vals) > hi) {
      above.push(k);
      continue;
    }
    const line = s("polyline", {class: "limit-line", stroke: LIMITER_COLOURS[k], "data-limit": k,
      points: rows.map((r) => f.x(r.block_cells) + "," + f.y(r.performance[k])).join(" ")},
    s("title", {}, LIMIT_NAMES[k] + " limit: " + vals.map(num).join(", ") + " GLup/s"));
    g.append(line);
  }
  return {g, above};
}

/* The predicted line through the rows, each point in its limiter's colour with its
 * figure, and the own mesh as a dashed line at its prediction, ringed where it performs
 * like a diagonal block. Returns the group and the mesh's label (placed by rightLabels). */
function predictedMarks(f, a) {
  const g = s("g", {class: "predicted-line"});
  g.append(s("polyline", {class: "levels-predicted",
    points: a.rows.map((r) => f.x(r.block_cells) + "," + f.y(r.performance.predicted)).join(" ")}));
  for (const r of a.rows) {
    const p = r.performance, cx = f.x(r.block_cells), cy = f.y(p.predicted);
    const pt = s("g", {class: "level-point", "data-block": r.block_cells, "data-level": r.level});
    pt.append(s("circle", {cx, cy, r: 4.5, fill: LIMITER_COLOURS[p.limiter] || LIMITER_COLOURS.none,
      stroke: "#000", "data-limiter": p.limiter}, s("title", {},
      `diagonal blocks of ${r.block_cells} cells (${r.level}): ${num(p.predicted)} GLup/s, limited by ` +
      `${LIMIT_NAMES[p.limiter] || p.limiter}; DRAM ${num(r.dram_load)} + ${num(r.dram_store)} B/Lup, ` +
      `L2 load ${num(r.l2_load)} B/Lup`)));
    pt.append(svgNum({x: cx, y: cy - 8, "text-anchor": "middle", class: "value",
      "data-predicted": p.predicted}, p.predicted));
    g.append(pt);
  }
  const m = a.mesh, my = f.y(m.performance.predicted);
  const mine = s("g", {class: "mesh-mark", "data-predicted": m.performance.predicted,
    "data-like": m.like_block_cells === null ? "none" : m.like_block_cells});
  mine.append(s("line", {x1: f.left, x2: f.W - f.right, y1: my, y2: my, class: "mesh-line"}));
  if (m.like_block_cells !== null)
    mine.append(s("circle", {cx: f.x(m.like_block_cells), cy: my, r: 8, class: "mesh-ring"}));
  g.append(mine);
  const label = svgNum({x: f.W - f.right + 6, y: my + 4, class: "value mesh-label"},
    m.performance.predicted, "your mesh ", " GLup/s");
  return {g, label: [my + 4, label]};
}

/* The orderings of the last ranking: short marks at the right edge of the plot in the
 * orderings chart's greys and dashes, and their labels. */
function orderingTicks(f, marks) {
  const g = s("g", {class: "ordering-marks"}), labels = [];
  for (const o of marks) {
    const oy = f.y(o.predicted);
    g.append(s("line", {x1: f.W - f.right - 24, x2: f.W - f.right, y1: oy, y2: oy, class: "ordering-tick",
      stroke: ORDERING_GREYS[o.index % 8], "stroke-dasharray": ORDERING_DASHES[o.index % 8] || null,
      "data-ordering": o.name}));
    labels.push([oy + 4, svgNum({x: f.W - f.right + 6, y: oy + 4, class: "value", "data-ordering": o.name},
      o.predicted, "", " GLup/s: " + o.name)]);
  }
  return {g, labels};
}

/* Labels right of the plot at (nearly) the same height: one under the other. */
function rightLabels(labels) {
  const g = s("g", {class: "right-labels"});
  labels.sort((p, q) => p[0] - q[0]);
  let below = -Infinity;
  for (const [ly, node] of labels) {
    below = Math.max(ly, below + 13);
    node.querySelector("text").setAttribute("y", below);
    g.append(node);
  }
  return g;
}

/* The figure, its legend, the headline and the table of the answer a. */
function drawLevels(a, rank) {
  const marks = orderingMarks(rank, a);
  /* from below the slowest prediction to above every row's limiter's limit (the line
   * the prediction is bound by); limits further up are named "above the chart" */
  const preds = [a.mesh, ...a.rows].map((r) => r.performance.predicted).concat(marks.map((o) => o.predicted));
  const bound = a.rows.map((r) => r.performance[r.performance.limiter]).filter((v) => typeof v === "number");
  const lo = Math.max(1e-9, Math.min(...preds) / 1.5), hi = Math.max(lo * 10, ...preds, ...bound) * 1.5;
  const f = levelsFrame(a, lo, hi);
  f.svg.append(s("defs", {}, s("clipPath", {id: "levels-clip"},
    s("rect", {x: f.left, y: f.top, width: f.W - f.left - f.right, height: f.H - f.top - f.bottom}))));
  f.svg.prepend(levelBands(f, a.rows));
  const lines = limitLines(f, a.rows, hi), pred = predictedMarks(f, a), ticks = orderingTicks(f, marks);
  f.svg.append(lines.g, pred.g, ticks.g, rightLabels([pred.label, ...ticks.labels]));
  const legend = h("div", {class: "legend"});
  const seen = new Set(a.rows.map((r) => r.performance.limiter));
  for (const k of Object.keys(LIMIT_NAMES)) {
    if (!a.rows.every((r) => r.performance[k] !== null && r.performance[k] !== undefined)) continue;
    legend.append(h("span", {"data-limit": k}, h("i", {class: "swatch", "data-colour": LIMITER_COLOURS[k]}),
      LIMIT_NAMES[k] + " limit" + (lines.above.includes(k) ? " (above the chart)" : "") +
      (seen.has(k) ? ", the points it limits" : "")));
  }
  legend.append(h("span", {}, "black line: predicted; dashed: your mesh, ringed at the block it performs like"));
  if (marks.length) legend.append(h("span", {}, "marks at the right: the ranking's orderings at this launch"));
  const m = a.mesh;
  $("levels-title").replaceChildren(...T`${a.device}, block ${triple(a.launch.block)}: your mesh of ${a.cells} cells (${a.neighbours_per_cell} values of ${a.index_field} each) runs at ${m.performance.predicted} GLup/s, level ${m.level}, `,
    ...(m.like_block_cells !== null ? T`like diagonal blocks of about ${m.like_block_cells} cells` :
      ["below a random mesh of its size"]),
    ...T`; diagonal blocks of ${a.rows[0].block_cells} cells reach ${a.rows[0].performance.predicted} GLup/s.`);
  const row = (first, r, attrs) => h("tr", attrs, h("td", {}, first), h("td", {"data-key": "level"}, r.level),
    h("td", {"data-key": "predicted"}, nm(r.performance.predicted)), h("td", {}, String(r.performance.limiter)),
    h("td", {}, nm(r.dram_load)), h("td", {}, nm(r.dram_store)), h("td", {}, nm(r.l2_load)));
  $("levels-table").replaceChildren(h("caption", {}, "each synthetic mesh and your own"),
    h("tr", {}, ...["diagonal block, cells", "level", "predicted GLup/s", "limiter", "DRAM load B/Lup",
      "DRAM store B/Lup", "L2 load B/Lup"]
      .map((c) => h("th", {}, c))),
    ...a.rows.map((r) => row(String(r.block_cells), r, {"data-block": r.block_cells})),
    row("your mesh", m, {"data-block": "mesh", class: "rec"}));
  $("levels-chart").replaceChildren(f.svg, legend);
  colourSwatches($("levels"));
}
