/*
 * app.js: the launchrank web calculator (docs/web.md). A client of the JSON API of
 * the daemon that serves it, nothing more: the form becomes the request of
 * docs/api.md, the answer of POST /v1/estimate or /v1/rank becomes SVG charts, and
 * every number on the page is a number of an answer (the page computes no estimate,
 * only positions and colours; a mesh file is hashed here, to upload it with PUT
 * /v1/arrays/{sha256}; a mesh kernel's levels figure, from POST /v1/levels, is
 * levels.js's). Errors are the API's: its JSON path and the column in
 * its message say where to mark the form. The whole request travels in the URL
 * fragment, so a result can be shared as a link. Plain JavaScript, no library.
 */
"use strict";

/* ---- presets: the classic kernels, as requests (docs/api.md) ------------------- */

/* Accesses of a star stencil of range r in d dimensions around (x, y, z) + shift:
 * the centre, then +-1 .. +-r along each axis. */
function starLoads(dims, r, shift) {
  const names = ["x", "y", "z"].slice(0, dims);
  const at = (axis, d) => names.map((n, i) => {
    const off = shift + (i === axis ? d : 0);
    return off === 0 ? n : off > 0 ? n + "+" + off : n + off;
  });
  const loads = [at(-1, 0)];
  for (let d = 1; d <= r; d++)
    for (let axis = 0; axis < dims; axis++)
      loads.push(at(axis, -d), at(axis, d));
  return loads;
}

/* D3Q19 pull: each of the 19 distributions is read from the neighbour its velocity
 * points away from and written at the cell (structure of arrays, one field each). */
function d3q19Fields() {
  const c = [[0, 0, 0], [-1, 0, 0], [1, 0, 0], [0, -1, 0], [0, 1, 0], [0, 0, -1], [0, 0, 1],
    [-1, -1, 0], [1, -1, 0], [-1, 1, 0], [1, 1, 0], [-1, 0, -1], [1, 0, -1], [-1, 0, 1],
    [1, 0, 1], [0, -1, -1], [0, 1, -1], [0, -1, 1], [0, 1, 1]];
  const ex = (n, d) => (d === 0 ? n + "+1" : d === 1 ? n + "+2" : n);
  const fields = c.map((v, q) => ({
    name: "f" + q, element_bytes: 8, dims: [162, 162, 162],
    loads: [[ex("x", v[0]), ex("y", v[1]), ex("z", v[2])]],
  }));
  for (let q = 0; q < 19; q++)
    fields.push({name: "g" + q, element_bytes: 8, dims: [162, 162, 162],
      stores: [["x+1", "y+1", "z+1"]]});
  return fields;
}

const PRESETS = {
  "2-D 5-point": {
    device: "A100-SXM4-80GB", domain: [15000, 15000],
    kernel: {flops: 5, fields: [
      {name: "A", element_bytes: 8, dims: [15002, 15002], base_offset_bytes: 8,
        loads: [["x", "y"], ["x+1", "y"], ["x-1", "y"], ["x", "y+1"], ["x", "y-1"]]},
      {name: "B", element_bytes: 8, dims: [15002, 15002], base_offset_bytes: 8,
        stores: [["x", "y"]]}]},
    launch: {block: [512, 1, 1], folding: [1, 1, 1]},
  },
  "3-D 7-point": {
    device: "A100-SXM4-40GB", domain: [256, 256, 256],
    kernel: {flops: 8, fields: [
      {name: "u", element_bytes: 8, dims: [258, 258, 258], loads: starLoads(3, 1, 1)},
      {name: "v", element_bytes: 8, dims: [258, 258, 258], stores: [["x+1", "y+1", "z+1"]]}]},
    launch: {block: [32, 4, 1], folding: [1, 1, 1]},
  },
  "3-D 25-point, range 4": {
    device: "A100-SXM4-40GB", domain: [640, 512, 512],
    kernel: {flops: 25, fields: [
      {name: "A", element_bytes: 8, dims: [640, 512, 512], base_offset_bytes: 32,
        loads: starLoads(3, 4, 0)},
      {name: "B", element_bytes: 8, dims: [640, 512, 512], base_offset_bytes: 32,
        stores: [["x", "y", "z"]]}]},
    launch: {block: [256, 1, 2], folding: [1, 1, 1]},
  },
  "D3Q19 pull": {
    device: "H100-SXM5-80GB", domain: [160, 160, 160],
    kernel: {flops: 190, fields: d3q19Fields()},
    launch: {block: [32, 4, 1], folding: [1, 1, 1]},
  },
  "Transpose": {
    device: "H100-SXM5-80GB", domain: [8192, 8192],
    kernel: {flops: 0, fields: [
      {name: "a", element_bytes: 4, dims: [8192, 8192], loads: [["x", "y"]]},
      {name: "b", element_bytes: 4, dims: [8192, 8192], stores: [["y", "x"]]}]},
    launch: {block: [32, 8, 1], folding: [1, 1, 1]},
  },
};

/* ---- small helpers ---------------------------------------------------------------- */

const $ = (id) => document.getElementById(id);
const SVGNS = "http://www.w3.org/2000/svg";

/* An element of the HTML or SVG namespace with attributes and children (strings
 * become text nodes). */
function el(ns, tag, attrs, children) {
  const e = ns ? document.createElementNS(ns, tag) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {}))
    if (v !== undefined && v !== null) e.setAttribute(k, String(v));
  for (const c of children || [])
    if (c !== null && c !== undefined) e.append(c); /* a string becomes a text node */
  return e;
}
const h = (tag, attrs, ...children) => el(null, tag, attrs, children);
const s = (tag, attrs, ...children) => el(SVGNS, tag, attrs, children);

/* A number of an answer exactly as the API wrote it (it rounds to 6 significant
 * digits already): what hovering a number shows, and the hover panel's text. */
const num = (v) => (v === null || v === undefined ? "none" : String(v));
/* The same number to three significant digits, as the page shows it: the model's
 * precision is a few per cent, six digits only looked exact. Integers (counts such
 * as blocks per SM or lattice updates) are shown whole. */
function short(v) {
  if (typeof v !== "number" || !isFinite(v)) return num(v);
  if (Number.isInteger(v)) return String(v);
  return String(Number(v.toPrecision(3)));
}
/* A number shown short, with the API's figure in its title (hover). */
const nm = (v, attrs) => (typeof v === "number" ?
  h("span", Object.assign({class: "num", title: num(v)}, attrs || {}), short(v)) : num(v));
/* The same in SVG: a <text> (with attrs, and text before and after the number) in a
 * group whose <title> is the API's figure. */
function svgNum(attrs, v, before, after) {
  return s("g", {class: "num"}, s("title", {}, num(v)),
    s("text", attrs, (before || "") + short(v) + (after || "")));
}
/* A tagged template of text and numbers: the nodes of a sentence, each number of it
 * short with its full value on hover (null reads "none"). */
function T(strings, ...vals) {
  const out = [];
  strings.forEach((str, i) => {
    if (str) out.push(str);
    if (i >= vals.length) return;
    const v = vals[i];
    if (Array.isArray(v)) out.push(...v);
    else if (typeof v === "number") out.push(nm(v));
    else out.push(v === null || v === undefined ? "none" : v);
  });
  return out;
}
const triple = (t) => (Array.isArray(t) ? t.join("\u00d7") : String(t));
const configName = (r) => "block " + triple(r.block) + ", folding " + triple(r.folding) +
  (r.ordering ? ", ordering " + r.ordering : "");
const sameTriple = (a, b) => Array.isArray(a) && Array.isArray(b) &&
  a.length === b.length && a.every((v, i) => v === b[i]);

/* "640 512 512", "640x512x512" or "640, 512, 512" -> [640, 512, 512]. A word that is
 * not an integer is sent as it is, so that the API names it (the page does not
 * second-guess the API's rules). */
function parseList(text) {
  const words = text.split(/[\s,x\u00d7*]+/).filter((w) => w !== "");
  return words.map((w) => (/^-?\d+$/.test(w) ? Number(w) : w));
}
function parseNumber(text) {
  const t = text.trim();
  return t !== "" && !isNaN(Number(t)) ? Number(t) : t;
}

/* ---- the form <-> the request -------------------------------------------------------- */

let customDevice = null;    /* a device object from a permalink, shown as "custom" */
let accessLines = [];       /* per field: {loads: [line of access j], stores: [...]} */

function addField(f) {
  const node = $("field-template").content.firstElementChild.cloneNode(true);
  node.querySelector(".f-name").value = f.name || "";
  /* An index field's elements are 4 bytes unless said (docs/api.md, "Fields"). */
  node.querySelector(".f-bytes").value = String(f.element_bytes || (f.integer === true ? 4 : 8));
  node.querySelector(".f-integer").checked = f.integer === true;
  /* An index field's values travel as the request gave them ({"data": [...]},
   * {"sha256": ...}), or as the upload of a mesh file made them. */
  node.indexValues = f.values && typeof f.values === "object" ? f.values : null;
  showValues(node, null);
  node.querySelector(".f-file").addEventListener("change", (e) => uploadIndexFile(node, e.target.files[0]));
  node.querySelector(".f-integer").addEventListener("change", () => showValues(node, null));
  node.classList.toggle("is-index", f.integer === true);
  node.querySelector(".f-dims").value = (f.dims || []).join(" ");
  node.querySelector(".f-offset").value = String(f.base_offset_bytes || 0);
  const text = (list) => (list || []).map((a) => (Array.isArray(a) ? a.join(", ") : a)).join("\n");
  const loads = node.querySelector(".f-loads"), stores = node.querySelector(".f-stores");
  loads.value = text(f.loads);
  stores.value = text(f.stores);
  loads.rows = Math.min(Math.max((f.loads || []).length, 1), 8);
  stores.rows = Math.min(Math.max((f.stores || []).length, 1), 8);
  node.querySelector(".f-remove").addEventListener("click", () => node.remove());
  $("fields").append(node);
}

/* The index expressions of one access as typed: split at the commas between them,
 * not at those inside a read of an index field ("nbr(0, x), y" is two expressions,
 * "nbr(0, x)" and " y"). */
function splitAccess(line) {
  const parts = [];
  let depth = 0, cur = "";
  for (const c of line) {
    if (c === "(") depth++;
    else if (c === ")") depth = Math.max(0, depth - 1);
    if (c === "," && depth === 0) {
      parts.push(cur);
      cur = "";
    } else {
      cur += c;
    }
  }
  parts.push(cur);
  return parts;
}

/* Accesses of a textarea: one per non-empty line, split at commas. Records which
 * line each access came from, to mark an error of access j on its line. */
function readAccesses(textarea, lines) {
  const out = [];
  textarea.value.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    out.push(splitAccess(line).map((e) => e.trim()));
    lines.push(i);
  });
  return out;
}

function readParameters(text) {
  const params = {};
  for (const item of text.split(/[,;\n]/)) {
    if (item.trim() === "") continue;
    const [name, value] = item.split("=");
    params[name.trim()] = parseNumber(value === undefined ? "" : value);
  }
  return params;
}

/* Kernel keys the form has inputs for; any other key of a request's kernel lives in
 * the "more kernel options" box as JSON. */
const KERNEL_FORM_KEYS = ["fields", "flops", "parameters"];

/* An input the page itself cannot turn into a request (the JSON box): the only
 * error that is not the API's, shown and marked the same way. */
class FormError extends Error {
  constructor(path, message) {
    super(message);
    this.path = path;
  }
}

/* The "more kernel options" box: a JSON object merged into the kernel (registers,
 * shared_bytes, precision, fp_instructions, restrict, indexing; docs/api.md). The API
 * checks its keys and values. */
function readKernelExtra() {
  const text = $("kernel-extra").value.trim();
  if (text === "") return {};
  let extra;
  try {
    extra = JSON.parse(text);
  } catch (e) {
    throw new FormError("kernel", "the more kernel options are not JSON: " + e.message);
  }
  if (extra === null || typeof extra !== "object" || Array.isArray(extra))
    throw new FormError("kernel", "the more kernel options must be a JSON object, such as {\"registers\": 64}");
  return extra;
}

/* The request the form describes (docs/api.md, "The request"). */
function readForm() {
  accessLines = [];
  const fields = [...document.querySelectorAll("#fields .field")].map((node) => {
    const lines = {loads: [], stores: []};
    accessLines.push(lines);
    const f = {
      name: node.querySelector(".f-name").value.trim(),
      element_bytes: Number(node.querySelector(".f-bytes").value),
      dims: parseList(node.querySelector(".f-dims").value),
      loads: readAccesses(node.querySelector(".f-loads"), lines.loads),
      stores: readAccesses(node.querySelector(".f-stores"), lines.stores),
    };
    const offset = parseNumber(node.querySelector(".f-offset").value);
    if (offset !== 0 && offset !== "") f.base_offset_bytes = offset;
    if (node.querySelector(".f-integer").checked) {
      f.integer = true;
      if (node.indexValues) f.values = node.indexValues;
    }
    return f;
  });
  const kernel = {flops: parseNumber($("flops").value || "0"), fields};
  const params = readParameters($("parameters").value);
  if (Object.keys(params).length) kernel.parameters = params;
  Object.assign(kernel, readKernelExtra());
  const req = {
    device: $("device").value === "(custom)" ? customDevice : $("device").value,
    domain: parseList($("domain").value),
    kernel,
    launch: {block: parseList($("block").value), folding: parseList($("folding").value)},
  };
  if ($("model").value !== "v2") req.model = $("model").value;
  /* An empty list leaves the foldings to the daemon's default space. */
  const foldings = $("foldings").value.split(";").map(parseList).filter((f) => f.length);
  const search = {};
  if (foldings.length) search.foldings = foldings;
  if ($("baseline").checked) search.baseline = req.launch;
  /* Orderings renumber a mesh: sent for a kernel with an index field only (the box
   * says so), as typed, for the API to check. */
  const orderings = $("orderings").value.split(/[\s,;]+/).filter((o) => o !== "");
  if (orderings.length && fields.some((f) => f.integer === true)) search.orderings = orderings;
  if (Object.keys(search).length) req.search = search;
  const top = parseNumber($("measure-top").value || "0");
  if (top !== 0) req.measure = {top};
  return req;
}

/* Fills the form from a request (a preset, or one from a permalink). */
function writeForm(req) {
  const k = req.kernel || {};
  if (typeof req.device === "string") {
    setDevice(req.device);
  } else if (req.device && typeof req.device === "object") {
    customDevice = req.device;
    setDevice("(custom)");
  }
  $("model").value = req.model === "warpspeed" ? "warpspeed" : "v2";
  $("domain").value = (req.domain || []).join(" ");
  $("flops").value = String(k.flops === undefined ? 0 : k.flops);
  $("parameters").value = Object.entries(k.parameters || {}).map(([n, v]) => n + "=" + v).join(", ");
  const extra = Object.fromEntries(Object.entries(k).filter(([key]) => !KERNEL_FORM_KEYS.includes(key)));
  $("kernel-extra").value = Object.keys(extra).length ? JSON.stringify(extra) : "";
  $("fields").replaceChildren();
  (k.fields || []).forEach(addField);
  const launch = req.launch || {};
  $("block").value = (launch.block || [32, 1, 1]).join(" ");
  $("folding").value = (launch.folding || [1, 1, 1]).join(" ");
  $("foldings").value = ((req.search || {}).foldings || []).map((f) => f.join(" ")).join("; ");
  $("baseline").checked = Boolean((req.search || {}).baseline);
  const orderings = (req.search || {}).orderings;
  $("orderings").value = Array.isArray(orderings) ? orderings.join(", ") : "";
  $("measure-top").value = String((req.measure || {}).top || 0);
}

/* Selects a device by name, adding an option for a name the daemon did not list
 * (the API will say whether it knows it). */
function setDevice(name) {
  const sel = $("device");
  let opt = [...sel.options].find((o) => o.value.toLowerCase() === name.toLowerCase());
  if (!opt) {
    opt = h("option", {value: name}, name === "(custom)" ? "custom (from the link)" : name);
    sel.append(opt);
  }
  sel.value = opt.value;
}

/* ---- meshes: an index field's values, and a mesh file uploaded ---------------------- */

/* What an index field's values are, beside its checkbox: inline integers, an
 * uploaded array (with what the upload answered, when it was this page's), a file
 * (which only the CLI reads), or none yet. */
function showValues(node, upload) {
  const v = node.indexValues;
  let text = "";
  if (v && Array.isArray(v.data)) text = "values: " + v.data.length + " integers inline";
  else if (v && typeof v.sha256 === "string")
    text = "values: the uploaded array " + v.sha256 + (upload ? " (" + num(upload.count) + " " +
      num(upload.format) + " integers, " + num(upload.bytes) + " bytes)" : "");
  else if (v && v.file !== undefined)
    text = "values: the file " + String(v.file) + ", which the daemon does not read: choose it below to upload it";
  else if (v) text = "values: " + JSON.stringify(v);
  else if (node.querySelector(".f-integer").checked) text = "no values yet: choose the mesh file below";
  /* The file input is there for an index field only. */
  node.classList.toggle("is-index", node.querySelector(".f-integer").checked);
  node.querySelector(".f-values").textContent = text;
}

/* The SHA-256 of bytes as 64 lowercase hex digits, by the browser (crypto.subtle,
 * which it offers only to a page opened over https or at localhost / 127.0.0.1). */
async function sha256Hex(buf) {
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", buf));
  return [...d].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/* PUT /v1/arrays/{sha256} of bytes, reporting the bytes sent; resolves to {status,
 * body} (body: the JSON answer, or null when there was none). XMLHttpRequest, not
 * fetch, because only it tells how much of a large body has gone. */
function putArray(hex, buf, progress) {
  return new Promise((resolve, reject) => {
    const x = new XMLHttpRequest();
    x.open("PUT", "/v1/arrays/" + hex);
    x.setRequestHeader("Content-Type", "application/octet-stream");
    x.upload.onprogress = (e) => progress(e.loaded, e.total);
    x.onload = () => {
      let body = null;
      try {
        body = JSON.parse(x.responseText);
      } catch (e) {
        body = null;
      }
      resolve({status: x.status, body});
    };
    x.onerror = () => reject(new Error("the daemon did not answer"));
    x.send(buf);
  });
}

/* A mesh file chosen for an index field: its bytes (little-endian int32, as they
 * are: the daemon checks them) are hashed, uploaded with PUT /v1/arrays/{sha256}, and
 * the field's values become {"sha256": ...}. Each step is written under the input;
 * an error is the API's, named with the field, and frames the input. The page's
 * state is in node.dataset.upload ("busy", "ok", "failed"). */
async function uploadIndexFile(node, file) {
  const status = node.querySelector(".f-upload"), input = node.querySelector(".f-file");
  if (!file) return;
  const name = node.querySelector(".f-name").value.trim() || "this field";
  const say = (text, failed) => {
    status.textContent = text;
    status.classList.toggle("failed", Boolean(failed));
    input.classList.toggle("bad", Boolean(failed));
  };
  node.dataset.upload = "busy";
  try {
    if (!window.crypto || !crypto.subtle)
      throw new Error("this browser computes a SHA-256 only for a page opened over https or at " +
        "localhost / 127.0.0.1; open the page so, or upload the file with curl (docs/api.md, " +
        "PUT /v1/arrays/{sha256}) and give its digest as the field's values");
    say(`${name}: reading ${file.name} (${file.size} bytes)…`);
    const buf = await file.arrayBuffer();
    say(`${name}: computing the SHA-256 of ${file.name}…`);
    const hex = await sha256Hex(buf);
    const r = await putArray(hex, buf, (sent, total) =>
      say(`${name}: uploading ${file.name}, ${sent} of ${total} bytes sent…`));
    if (r.status !== 200 && r.status !== 201) {
      const e = (r.body && r.body.error) || {code: "error", message: "HTTP " + r.status, path: ""};
      say(`${name}: the upload of ${file.name} was refused: ${e.code} (HTTP ${r.status}): ${e.message}` +
        (e.path ? " at " + e.path : ""), true);
      node.dataset.upload = "failed";
      return;
    }
    node.indexValues = {sha256: r.body.sha256};
    node.querySelector(".f-integer").checked = true;
    showValues(node, r.body);
    say(`${name}: ${file.name} ${r.status === 201 ? "uploaded" : "was stored already"} ` +
      `(HTTP ${r.status}); its values are now {"sha256": "${r.body.sha256}"}`);
    node.dataset.upload = "ok";
  } catch (e) {
    say(`${name}: ${file.name} was not uploaded: ${e.message}`, true);
    node.dataset.upload = "failed";
  }
}

/* ---- talking to the daemon ------------------------------------------------------------ */

/* POST to our own origin; resolves to {ok, status, body}. */
async function post(path, req) {
  const r = await fetch(path, {
    method: "POST",
    headers: {"Content-Type": "application/json"},
    body: JSON.stringify(req),
  });
  return {ok: r.ok, status: r.status, body: await r.json()};
}

/* POST /v1/rank asking for its progress (docs/api.md, "Progress of a ranking"): the
 * daemon streams newline-delimited JSON, progress lines while it ranks (each shown
 * as "n of N configurations") and the answer, or an error, as the last line. An
 * answer that is not a stream (a request refused at once: 4xx, 503) is read as
 * JSON. Resolves to {ok, status, body} as post() does; an error after the first
 * line comes with status 200, so it is passed on as status 0 (no HTTP status to
 * show). */
async function postRank(req) {
  const r = await fetch("/v1/rank", {
    method: "POST",
    headers: {"Content-Type": "application/json", "Accept": "application/x-ndjson"},
    body: JSON.stringify(req),
  });
  if (!r.ok || !r.body || !(r.headers.get("Content-Type") || "").includes("ndjson"))
    return {ok: r.ok, status: r.status, body: await r.json()};
  const reader = r.body.getReader(), decoder = new TextDecoder();
  let buf = "", last = null;
  const take = (line) => {
    if (line.trim() === "") return;
    const obj = JSON.parse(line);
    if (obj && obj.progress) showProgress(obj.progress);
    else last = obj;
  };
  for (;;) {
    const {done, value} = await reader.read();
    if (value) buf += decoder.decode(value, {stream: true});
    let nl;
    while ((nl = buf.indexOf("\n")) >= 0) {
      take(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
    }
    if (done) break;
  }
  take(buf);
  if (!last) throw new Error("the ranking's stream ended without an answer");
  return last.error ? {ok: false, status: 0, body: last} : {ok: true, status: r.status, body: last};
}

function showProgress(p) {
  $("busy").textContent = `ranking\u2026 ${p.done} of ${p.of} configurations`;
  $("busy").dataset.done = p.done;
  $("busy").dataset.of = p.of;
}

/* The device list of the daemon (built-in and stored), with the figures that tell
 * them apart. */
async function loadDevices() {
  const r = await fetch("/v1/devices");
  const body = await r.json();
  if (!r.ok) {
    showError(body, r.status);
    return;
  }
  const devices = body.devices || [];
  $("version").textContent = "Model version " + body.model_version + ".";
  const sel = $("device");
  const keep = sel.value;
  sel.replaceChildren(...devices.map((d) => h("option", {value: d.name},
    d.name + (d.stored ? " (stored)" : "") + " \u2014 " + d.sm_count + " SMs, DRAM " +
    d.dram_bw_gbs + " GB/s")));
  if (keep) setDevice(keep);
}

/* ---- errors, marked where the API says ------------------------------------------------- */

function clearErrors() {
  $("error").hidden = true;
  markStale(false);
  $("error").replaceChildren();
  for (const e of document.querySelectorAll(".bad")) e.classList.remove("bad");
  for (const e of document.querySelectorAll(".warned")) e.classList.remove("warned");
  for (const e of document.querySelectorAll(".err-mark")) e.remove();
}

/* The form element of a JSON path: an expression's textarea with the line and the
 * index of the expression in it ({el, line, k}), a field's input, or the input whose
 * data-path the path starts with ({el}); null when the form has none. */
function targetOf(path) {
  const fieldNodes = document.querySelectorAll("#fields .field");
  let m = /^kernel\.fields\[(\d+)\]\.(loads|stores)\[(\d+)\](?:\[(\d+)\])?/.exec(path);
  if (m && fieldNodes[+m[1]]) {
    const el = fieldNodes[+m[1]].querySelector(m[2] === "loads" ? ".f-loads" : ".f-stores");
    const line = (accessLines[+m[1]] || {loads: [], stores: []})[m[2]][+m[3]];
    return {el, line, k: m[4] === undefined ? 0 : +m[4]};
  }
  m = /^kernel\.fields\[(\d+)\]\.?(\w*)/.exec(path);
  if (m && fieldNodes[+m[1]]) {
    const cls = {name: ".f-name", element_bytes: ".f-bytes", dims: ".f-dims",
      base_offset_bytes: ".f-offset", integer: ".f-integer", values: ".f-values"}[m[2]];
    return {el: fieldNodes[+m[1]].querySelector(cls || ".f-name")};
  }
  if (path.startsWith("kernel.fields")) return {el: $("fields")}; /* the list itself */
  if (path === "device" || path.startsWith("device.")) return {el: $("device")};
  for (const input of document.querySelectorAll("[data-path]"))
    if (path && path.startsWith(input.dataset.path)) return {el: input};
  return null;
}

/* Frames what the error's path names; an expression also gets the caret mark. */
function markError(err) {
  const t = targetOf(err.path || "");
  if (!t) return;
  if (t.line !== undefined) markExpression(t.el, t.line, t.k, err.message);
  else markInput(t.el, err.message);
}

/* Warnings of an answer (docs/api.md, "Warnings") frame what their path names, in
 * the warning colour, with the message as its tooltip. */
function markWarnings(warnings) {
  for (const w of Array.isArray(warnings) ? warnings : []) {
    const t = w && w.path ? targetOf(w.path) : null;
    if (!t) continue;
    t.el.classList.add("warned");
    t.el.title = w.message;
  }
}

function markInput(input, message) {
  input.classList.add("bad");
  input.title = message;
}

/* Marks expression k of line `line` of a textarea: the line is shown under it with
 * a caret at the column the API names ("... at column 3 ..."), counted from the
 * start of the line as typed. */
function markExpression(textarea, line, k, message) {
  textarea.classList.add("bad");
  const text = textarea.value.split("\n")[line] || "";
  const parts = splitAccess(text);
  let start = 0; /* 0-based column of part k's first character in the line */
  for (let i = 0; i < k && i < parts.length; i++) start += parts[i].length + 1;
  const part = parts[k] || "";
  start += part.length - part.trimStart().length;
  const quoted = "'" + part.trim() + "'";
  const after = message.startsWith(quoted) ? quoted.length : 0;
  const col = /at column (\d+)/.exec(message.slice(after));
  const column = start + (col ? +col[1] : 1); /* 1-based, in the line */
  const mark = h("div", {class: "err-mark", "data-line": line + 1, "data-column": column},
    h("pre", {}, text + "\n" + " ".repeat(column - 1) + "^"),
    h("span", {}, "line " + (line + 1) + ", column " + column + ": " + message));
  textarea.closest("label").after(mark);
  /* Put the cursor there too, so that typing fixes it. */
  let offset = 0;
  textarea.value.split("\n").slice(0, line).forEach((l) => (offset += l.length + 1));
  textarea.setSelectionRange(offset + column - 1, offset + column);
}

function showError(body, status) {
  const e = (body && body.error) || {code: "error", message: "HTTP " + status, path: ""};
  $("error").replaceChildren(
    h("strong", {}, e.code + (status ? " (HTTP " + status + ")" : "")), " ",
    h("span", {class: "msg"}, e.message),
    e.path ? h("span", {class: "path"}, " at " + e.path) : null);
  $("error").hidden = false;
  markError(e);
  markStale(true);
}

/* After a failed request the results on screen answer an earlier one: they are
 * greyed out under a note that says so (kept, not cleared, to compare with), until
 * the next answer replaces them. */
function markStale(stale) {
  const shown = !$("estimate").hidden || !$("rank").hidden;
  $("results").classList.toggle("stale", stale && shown);
  $("stale-note").hidden = !(stale && shown);
}

/* ---- charts ---------------------------------------------------------------------------- */

/* Colours, one meaning each on the whole page: a hue is a limiter (the limits chart
 * and the ranking's bars, with a legend in both); the fields of the volume chart are
 * greys (dark and light alternating, so that neighbours differ), which no limiter
 * is; the heat maps' indigo ramp is a predicted GLup/s (their scale under them); the
 * decision's marks are slate (style.css). */
const FIELD_COLOURS = ["#3d3d3d", "#a6a6a6", "#6b6b6b", "#d4d4d4", "#1f1f1f", "#8a8a8a",
  "#545454", "#bcbcbc", "#2e2e2e", "#e6e6e6"];
const LIMITER_COLOURS = {flops: "#b07aa1", l1: "#59a14f", l2: "#f28e2b", dram: "#4e79a7",
  latency: "#e15759", blocks: "#76b7b2", stores: "#9c755f", l2_requests: "#edc948",
  l1_requests: "#ff9da7", none: "#bab0ac"};
const LIMIT_NAMES = {flops: "flops", l1: "L1", l2: "L2", dram: "DRAM", latency: "latency",
  blocks: "block starts", stores: "store requests", l2_requests: "L2 requests",
  l1_requests: "L1 requests"};

/* The levels of the volume chart: the keys of a volumes object (docs/api.md). */
const LEVELS = [
  ["smx_load", "SMX load"], ["l1_load", "L1 load (from L2)"], ["l2_load", "L2 load"],
  ["l2_store", "L2 store"], ["dram_load", "DRAM load"], ["dram_store", "DRAM store"]];

/* Horizontal stacked bars: per level, one segment per field, the level's total (the
 * API's own figure for the whole kernel) written at the end. */
function volumesChart(est) {
  const levels = LEVELS.filter(([k]) => est.estimate[k] !== null && est.estimate[k] !== undefined);
  const names = Object.keys(est.fields);
  const max = Math.max(1e-9, ...levels.map(([k]) => est.estimate[k]));
  const W = 640, left = 130, right = 90, row = 26;
  const scale = (W - left - right) / max;
  const svg = s("svg", {width: W, height: levels.length * row + 8, role: "img",
    "aria-label": "data volumes per memory level"});
  levels.forEach(([key, label], i) => {
    const y = i * row + 4;
    svg.append(s("text", {x: left - 6, y: y + 15, "text-anchor": "end"}, label));
    let x = left;
    names.forEach((f, j) => {
      const v = est.fields[f][key];
      if (!v) return;
      const r = s("rect", {x, y, width: Math.max(v * scale, 0.5), height: row - 8,
        fill: FIELD_COLOURS[j % FIELD_COLOURS.length], stroke: "#fff", "stroke-width": 0.5,
        "data-field": f},
      s("title", {}, f + ": " + num(v) + " B/Lup " + label));
      svg.append(r);
      x += v * scale;
    });
    svg.append(svgNum({x: x + 6, y: y + 15, class: "value", "data-level": key}, est.estimate[key]));
  });
  /* Legend: a field per swatch (at most the first ten fields, then "..."). */
  const legend = h("div", {class: "legend"});
  names.slice(0, 10).forEach((f, j) => legend.append(
    h("span", {}, h("i", {class: "swatch", "data-colour": FIELD_COLOURS[j % 10]}), f)));
  if (names.length > 10) legend.append(h("span", {}, "\u2026 " + names.length + " fields"));
  return [svg, legend];
}

/* Horizontal bars, one per limit in GLup/s; the limiter in full colour, the others
 * pale; a dashed line at the prediction. Bars beyond three times the prediction are
 * cut (marked with a break) so that the ones that matter stay readable. */
function limitsChart(perf, model) {
  const keys = Object.keys(LIMIT_NAMES).filter((k) => k in perf);
  const W = 640, left = 130, right = 110, row = 26;
  const max = 3 * Math.max(perf.predicted, 1e-9);
  const scale = (W - left - right) / max;
  const svg = s("svg", {width: W, height: keys.length * row + 20, role: "img",
    "aria-label": "performance limits"});
  keys.forEach((k, i) => {
    const y = i * row + 4, v = perf[k];
    const limiter = k === perf.limiter;
    svg.append(s("text", {x: left - 6, y: y + 15, "text-anchor": "end",
      class: limiter ? "limiter" : null}, LIMIT_NAMES[k]));
    if (v === null) {
      /* null: no limit at that level, or (latency, blocks, stores, L2 and L1 requests)
       * one the reference method does not model. */
      const v2only = model === "warpspeed" &&
        ["latency", "blocks", "stores", "l2_requests", "l1_requests"].includes(k);
      svg.append(s("text", {x: left + 4, y: y + 15, class: "none", "data-limit": k},
        v2only ? "not in the warpspeed model" : "no limit"));
      return;
    }
    const w = Math.min(v, max) * scale;
    svg.append(s("rect", {x: left, y, width: Math.max(w, 0.5), height: row - 8,
      fill: LIMITER_COLOURS[k], "fill-opacity": limiter ? 1 : 0.35, "data-limit": k,
      class: limiter ? "limiter-bar" : null},
    s("title", {}, LIMIT_NAMES[k] + " limit: " + num(v) + " GLup/s")));
    if (v > max)
      svg.append(s("path", {d: `M${left + w - 8},${y - 1} l6,${row - 6} M${left + w - 4},${y - 1} l6,${row - 6}`,
        stroke: "#fff", "stroke-width": 2}));
    svg.append(svgNum({x: left + w + 6, y: y + 15, class: limiter ? "value limiter" : "value",
      "data-limit": k}, v, "", limiter ? "  \u25c0 limiter" : ""));
  });
  const px = left + perf.predicted * scale;
  svg.append(s("line", {x1: px, x2: px, y1: 0, y2: keys.length * row + 4, class: "predicted"}));
  svg.append(svgNum({x: px, y: keys.length * row + 17, "text-anchor": "middle",
    class: "value", "data-limit": "predicted"}, perf.predicted, "predicted "));
  /* The legend says what the colours mean here and in the ranking's bars. */
  const legend = h("div", {class: "legend"}, h("span", {},
    "colour: the limit (the same colours as the ranking's bars); full colour: the limiter, pale: the other limits"));
  return [svg, legend];
}

/* One sentence: what limits this configuration, with the API's figures. */
function reasonSentence(est, req) {
  const p = est.performance, e = est.estimate, d = est.details || {};
  const limits = Object.keys(LIMIT_NAMES).filter((k) => p[k] !== null && p[k] !== undefined)
    .sort((a, b) => p[a] - p[b]);
  if (p.limiter === "none" || !limits.length) return ["No limit applies to this kernel."];
  const why = {
    dram: T`it moves ${e.dram_load} B/Lup from DRAM and ${e.dram_store} B/Lup to it`,
    l2: T`it loads ${e.l2_load} B/Lup from L2 and stores ${e.l2_store} B/Lup to it`,
    l1: T`it costs ${e.l1_cycles} L1 cycles per lattice update and SM`,
    flops: T`it computes ${req.kernel.flops} flops per lattice update`,
    latency: T`too few updates are in flight (${d.active_threads_per_sm} active threads per SM)`,
    blocks: T`each thread block updates only ${d.updates_per_block} lattice points`,
    stores: T`it issues ${d.store_requests_per_update} L2 write requests per lattice update`,
  }[p.limiter] || [];
  const next = limits.find((k) => k !== p.limiter);
  const sentence = T`Limited by ${LIMIT_NAMES[p.limiter]}: ${why}, which allows ${p[p.limiter]} GLup/s, `;
  sentence.push(`the lowest of ${limits.length} limits`);
  if (next) sentence.push(...T` (next: ${LIMIT_NAMES[next]}, ${p[next]} GLup/s)`);
  sentence.push(".");
  return sentence;
}

/* ---- showing an estimate ------------------------------------------------------------------- */

function showWarnings(list, warnings) {
  markWarnings(warnings);
  list.replaceChildren();
  list.hidden = !Array.isArray(warnings) || warnings.length === 0;
  for (const w of warnings || [])
    list.append(h("li", {}, typeof w === "string" ? w :
      (w.message || JSON.stringify(w)) + (w.path ? " (" + w.path + ")" : "")));
}

function showEstimate(est, req) {
  const p = est.performance;
  $("estimate-title").replaceChildren(
    est.device + ", " + configName(est.launch) + ": ",
    nm(p.predicted, {id: "predicted"}), " GLup/s predicted, limiter ",
    h("strong", {id: "limiter"}, p.limiter), est.cached ? " (from the cache)" : "");
  $("reason").replaceChildren(...reasonSentence(est, req));
  showWarnings($("estimate-warnings"), est.warnings);
  $("volumes-chart").replaceChildren(...volumesChart(est));
  $("limits-chart").replaceChildren(...limitsChart(p, est.model));
  const l = est.launch;
  /* Occupancy: resident blocks per SM and the threads of them that have work. The
   * answer does not say which resource (threads, blocks, registers, shared memory)
   * limits the blocks per SM, so the page does not either. */
  const active = (est.details || {}).active_threads_per_sm;
  const resident = (est.details || {}).blocks_resident;
  const rows = [["grid", triple(l.grid), "thread blocks"],
    ["threads per block", num(l.threads_per_block), "threads"],
    ["blocks per SM", num(l.blocks_per_sm), "blocks resident per SM (occupancy)"],
    ["blocks held per SM", resident === undefined ? "not in this model" : nm(resident),
      "blocks per SM on average: more where blocks have idle warps"],
    ["active threads per SM", active === undefined ? "not in this model" : nm(active),
      "threads per SM with work"],
    ["wave", num(l.wave_blocks), "blocks"],
    ["L1 cycles", nm(est.estimate.l1_cycles), "per lattice update, per SM"],
    ["lattice updates", num((est.details || {}).lattice_updates), "updates"]];
  $("launch-table").replaceChildren(...rows.map(([k, v, u]) =>
    h("tr", {}, h("th", {}, k), h("td", {"data-key": k}, v), h("td", {class: "unit"}, u))));
  colourSwatches($("estimate"));
  $("estimate").hidden = false;
}

/* The legend swatches take their colour from data-colour: set through the CSSOM,
 * which the page's Content-Security-Policy allows (inline style attributes it does
 * not). */
function colourSwatches(root) {
  for (const sw of root.querySelectorAll(".swatch[data-colour]"))
    sw.style.background = sw.dataset.colour;
}

/* ---- showing a ranking ---------------------------------------------------------------------- */

/* The decision of the answer (docs/api.md, "The decision": `decision` with
 * `recommended`, `tie_group`, best / median / worst, `baseline`), when the daemon
 * gives one: the rank of the recommended configuration and the ranks of its tie
 * group, for marking them in the charts. Entries are matched by rank, or by block
 * and folding when they have no rank. Absent: null (the page does not depend on it). */
function recommendationOf(rank) {
  const dec = rank.decision || rank.recommendation;
  if (!dec || typeof dec !== "object") return null;
  const rankOf = (c) => {
    if (!c || typeof c !== "object") return undefined;
    if (typeof c.rank === "number") return c.rank;
    const r = rank.results.find((x) => sameTriple(x.block, c.block) &&
      sameTriple(x.folding, c.folding || [1, 1, 1]));
    return r ? r.rank : undefined;
  };
  const group = new Set();
  for (const c of Array.isArray(dec.tie_group) ? dec.tie_group : []) {
    const r = typeof c === "number" ? c : rankOf(c);
    if (r !== undefined) group.add(r);
  }
  const picked = dec.recommended !== undefined ? dec.recommended : dec;
  return {dec, picked, rank: rankOf(picked), group};
}

/* A configuration of the decision in words: "block 64x2x2, folding 1x1x1 (rank 1,
 * 130.577 GLup/s)". */
function decided(c) {
  return [configName(c) + (c.rank !== undefined ? " (rank " + num(c.rank) + ", " : " ("),
    nm(c.predicted), " GLup/s)"];
}

function showRecommendation(rank, info) {
  const box = $("recommendation");
  box.hidden = !info;
  if (!info) return;
  const d = info.dec, items = [];
  if (info.picked && info.picked.block)
    items.push(h("li", {id: "recommended"}, h("strong", {}, "\u2605 Recommended: ", ...decided(info.picked)),
      info.picked.reason ? h("div", {class: "reason"}, info.picked.reason) : null));
  if (d.note) items.push(h("li", {}, d.note));
  if (Array.isArray(d.tie_group))
    items.push(h("li", {id: "tie-group"}, ...T`Tie group: ${String(d.tie_group.length)} configurations the model cannot order (precision ${d.precision} of the best; marked \u25cf in the charts)`));
  for (const k of ["best", "median", "worst"])
    if (d[k] && d[k].block) items.push(h("li", {}, k + ": ", ...decided(d[k])));
  if (d.baseline)
    items.push(h("li", {id: "decision-baseline"}, h("strong", {}, "Baseline " + configName(d.baseline) +
      ": " + num(d.baseline.advice)), " \u2014 " + (d.baseline.reason || "") +
      " (rank " + num(d.baseline.rank) + ", ", ...T`${d.baseline.predicted} GLup/s, gain ${d.baseline.gain})`));
  /* A shape this page does not know yet: its plain values, as they are. */
  if (!items.length)
    for (const [k, v] of Object.entries(d))
      items.push(h("li", {}, k + ": " + (v !== null && typeof v === "object" ? JSON.stringify(v) : num(v))));
  box.replaceChildren(h("strong", {}, "Decision"), h("ul", {}, ...items));
}

/* A configuration's numbers, for the hover panel and the tooltips. */
function describe(r) {
  const p = r.performance;
  let text = `#${r.rank} ${configName(r)}: ${num(p.predicted)} GLup/s predicted, limiter ` +
    `${p.limiter}; limits ` + Object.keys(LIMIT_NAMES).filter((k) => p[k] !== null && p[k] !== undefined)
    .map((k) => `${LIMIT_NAMES[k]} ${num(p[k])}`).join(", ") +
    `; DRAM ${num(r.estimate.dram_load)} + ${num(r.estimate.dram_store)} B/Lup, ` +
    `L2 ${num(r.estimate.l2_load)} + ${num(r.estimate.l2_store)} B/Lup; ` +
    `${num(r.launch.blocks_per_sm)} blocks per SM, occupancy ${num(r.occupancy)}`;
  if (r.measured && r.measured.glups !== undefined)
    text += `; measured ${num(r.measured.glups)} GLup/s (predicted/measured ${num(r.measured.predicted_over_measured)})`;
  else if (r.measured && r.measured.error)
    text += `; not measured: ${r.measured.error.message}`;
  return text;
}

/* Pointing at a configuration shows its numbers; clicking it puts it into the form's
 * launch and estimates it, to see its volumes and limits. */
function hoverable(node, r) {
  node.setAttribute("data-rank", r.rank);
  /* An estimate is of the mesh as numbered: a result of another ordering is not
   * clickable (its renumbered mesh is the daemon's, not the form's). */
  const other = r.ordering !== undefined && r.ordering !== "given";
  node.append(s("title", {}, describe(r) + (other ? "" : " (click: estimate it)")));
  node.addEventListener("mouseenter", () => {
    $("hover").textContent = describe(r);
    $("hover").dataset.rank = r.rank;
  });
  node.addEventListener("click", () => {
    if (other) return;
    $("block").value = r.block.join(" ");
    $("folding").value = r.folding.join(" ");
    run("estimate");
  });
}

/* Vertical bars, every result in rank order, coloured by limiter; measured results
 * get a black dot at their measured GLup/s; the recommendation and its tie group are
 * marked under the axis. */
function barsChart(rank, info) {
  const res = rank.results;
  const W = 760, H = 220, left = 50, bottom = 30;
  const measured = res.map((r) => (r.measured && r.measured.glups) || 0);
  const max = Math.max(1e-9, ...res.map((r) => r.performance.predicted), ...measured);
  const bw = Math.max(1, Math.min(24, (W - left - 10) / Math.max(res.length, 1)));
  const y = (v) => H - bottom - (v / max) * (H - bottom - 10);
  /* Up to 4096 configurations: past ~700 the bars are 1 px and the chart widens. */
  const svg = s("svg", {width: Math.max(W, left + res.length * bw + 10), height: H + 14,
    role: "img", "aria-label": "ranking"});
  for (const t of [0, 0.25, 0.5, 0.75, 1]) {
    svg.append(s("line", {x1: left, x2: W, y1: y(t * max), y2: y(t * max), class: "grid"}));
    svg.append(s("text", {x: left - 4, y: y(t * max) + 4, "text-anchor": "end", class: "axis"},
      (t * max).toPrecision(3)));
  }
  res.forEach((r, i) => {
    const x = left + i * bw, v = r.performance.predicted;
    const g = s("g", {class: "bar"});
    g.append(s("rect", {x, y: y(v), width: Math.max(bw - 1, 0.8), height: H - bottom - y(v),
      fill: LIMITER_COLOURS[r.performance.limiter] || LIMITER_COLOURS.none,
      "data-limiter": r.performance.limiter}));
    if (measured[i]) g.append(s("circle", {cx: x + bw / 2, cy: y(measured[i]), r: 3, class: "measured"}));
    if (info && info.group.has(r.rank))
      g.append(s("circle", {cx: x + bw / 2, cy: H - bottom + 7, r: 2.5, class: "tie"}));
    if (info && info.rank === r.rank)
      g.append(s("text", {x: x + bw / 2, y: H - bottom + 22, "text-anchor": "middle",
        class: "rec"}, "\u2605"));
    hoverable(g, r);
    svg.append(g);
  });
  const legend = h("div", {class: "legend"});
  const seen = new Set(res.map((r) => r.performance.limiter));
  for (const k of Object.keys(LIMITER_COLOURS))
    if (seen.has(k)) legend.append(h("span", {"data-limiter": k}, h("i", {class: "swatch", "data-colour": LIMITER_COLOURS[k]}),
      "limited by " + (LIMIT_NAMES[k] || k)));
  if (measured.some((m) => m)) legend.append(h("span", {}, "\u25cf measured"));
  if (info) legend.append(h("span", {}, "\u2605 recommended, \u25cf under the axis: its tie group"));
  return [svg, legend];
}

/* The heat maps' scale: t = 0 (the slowest of the ranking) light to t = 1 (the
 * best) dark indigo, a hue no limiter has. */
const heatColour = (t) => `hsl(255, 45%, ${Math.round(94 - 66 * Math.max(0, Math.min(1, t)))}%)`;

/* The colour scale of a heat map, under it: a ramp from the slowest to the best
 * predicted GLup/s of the ranking (every folding's maps share it), with both ends
 * written out. */
function heatLegend(id, x, y, min, max) {
  const w = 120, grad = s("linearGradient", {id});
  for (const t of [0, 0.25, 0.5, 0.75, 1])
    grad.append(s("stop", {offset: t, "stop-color": heatColour(t)}));
  return s("g", {class: "heat-legend"}, s("defs", {}, grad),
    s("rect", {x, y, width: w, height: 8, fill: `url(#${id})`}),
    svgNum({x, y: y + 20, class: "axis", "data-end": "min"}, min),
    svgNum({x: x + w, y: y + 20, class: "axis", "text-anchor": "end", "data-end": "max"}, max),
    s("text", {x: x + w + 4, y: y + 8, class: "axis"}, "GLup/s"));
}

/* Small multiples: a bx x by heat map per bz, for one folding; the cell's shade is
 * its predicted GLup/s between the slowest and the best of the ranking. */
function heatmaps(rank, folding, info) {
  const res = rank.results.filter((r) => sameTriple(r.folding, folding));
  const bxs = [...new Set(res.map((r) => r.block[0]))].sort((a, b) => a - b);
  const bys = [...new Set(res.map((r) => r.block[1]))].sort((a, b) => a - b);
  const bzs = [...new Set(res.map((r) => r.block[2]))].sort((a, b) => a - b);
  const all = rank.results.map((r) => r.performance.predicted);
  const best = Math.max(...all), slowest = Math.min(...all);
  const cell = 24, left = 42, top = 30;
  const panels = bzs.map((bz) => {
    const svg = s("svg", {width: Math.max(left + bxs.length * cell + 6, left + 170),
      height: top + bys.length * cell + 56,
      role: "img", "aria-label": "bz " + bz, "data-bz": bz});
    svg.append(s("text", {x: left, y: 12, class: "panel-title"}, "bz = " + bz));
    bxs.forEach((bx, i) => svg.append(s("text", {x: left + i * cell + cell / 2, y: top - 4,
      "text-anchor": "middle", class: "axis"}, String(bx))));
    bys.forEach((by, j) => svg.append(s("text", {x: left - 4, y: top + j * cell + cell / 2 + 4,
      "text-anchor": "end", class: "axis"}, String(by))));
    for (const r of res.filter((x) => x.block[2] === bz)) {
      const i = bxs.indexOf(r.block[0]), j = bys.indexOf(r.block[1]);
      const t = best > slowest ? (r.performance.predicted - slowest) / (best - slowest) : 1;
      const g = s("g", {class: "cell"});
      g.append(s("rect", {x: left + i * cell, y: top + j * cell, width: cell - 1, height: cell - 1,
        fill: heatColour(t),
        class: r.rank === 1 ? "best" : info && info.rank === r.rank ? "rec" : null}));
      if (info && info.group.has(r.rank))
        g.append(s("circle", {cx: left + i * cell + cell / 2, cy: top + j * cell + cell / 2, r: 2.5, class: "tie"}));
      hoverable(g, r);
      svg.append(g);
    }
    svg.append(s("text", {x: left, y: top + bys.length * cell + 16, class: "axis"}, "bx \u2192, by \u2193"));
    svg.append(heatLegend("heat-scale-" + bz, left, top + bys.length * cell + 26, slowest, best));
    return svg;
  });
  return panels;
}

/* Line styles of the orderings: greys and dashes, since a hue means a limiter on
 * this page (the points take their limiter's colour). */
const ORDERING_DASHES = ["", "6 3", "2 3", "8 3 2 3", "1 3", "10 4", "4 2 1 2", "12 2"];
const ORDERING_GREYS = ["#222", "#555", "#777", "#333", "#666", "#444", "#888", "#111"];

/* Predicted GLup/s by threads per block, one line per ordering: each point is the
 * best result of that ordering with that many threads per block (the first in the
 * ranking's order), coloured by its limiter, so that the levels (DRAM-, L2-bound...)
 * are named; the recommended configuration is ringed in slate. */
function orderingsChart(rank, names, info) {
  const res = rank.results.filter((r) => r.ordering !== undefined);
  const threads = [...new Set(res.map((r) => r.launch.threads_per_block))].sort((a, b) => a - b);
  const W = 640, H = 250, left = 50, right = 90, top = 22, bottom = 36;
  const max = Math.max(1e-9, ...res.map((r) => r.performance.predicted));
  const x = (t) => left + (threads.length < 2 ? (W - left - right) / 2 :
    threads.indexOf(t) * (W - left - right) / (threads.length - 1));
  const y = (v) => H - bottom - (v / max) * (H - bottom - top);
  const svg = s("svg", {width: W, height: H, role: "img", "aria-label": "predicted performance by ordering"});
  for (const t of [0, 0.25, 0.5, 0.75, 1]) {
    svg.append(s("line", {x1: left, x2: W - right, y1: y(t * max), y2: y(t * max), class: "grid"}));
    svg.append(s("text", {x: left - 4, y: y(t * max) + 4, "text-anchor": "end", class: "axis"},
      (t * max).toPrecision(3)));
  }
  for (const t of threads)
    svg.append(s("text", {x: x(t), y: H - bottom + 14, "text-anchor": "middle", class: "axis"}, String(t)));
  svg.append(s("text", {x: (left + W - right) / 2, y: H - 4, "text-anchor": "middle", class: "axis"},
    "threads per block"));
  svg.append(s("text", {x: left - 4, y: 10, "text-anchor": "end", class: "axis"}, "GLup/s"));
  const labels = []; /* [y, text node] of the lines' names, spread apart below */
  names.forEach((name, i) => {
    const best = new Map(); /* threads per block -> the first (best) result */
    for (const r of res)
      if (r.ordering === name && !best.has(r.launch.threads_per_block)) best.set(r.launch.threads_per_block, r);
    const pts = threads.filter((t) => best.has(t)).map((t) => best.get(t));
    if (!pts.length) return;
    const g = s("g", {class: "ordering-line", "data-ordering": name});
    g.append(s("polyline", {class: "ordering", stroke: ORDERING_GREYS[i % 8],
      "stroke-dasharray": ORDERING_DASHES[i % 8] || null,
      points: pts.map((r) => x(r.launch.threads_per_block) + "," + y(r.performance.predicted)).join(" ")}));
    for (const r of pts) {
      const p = s("g", {class: "bar"});
      const cx = x(r.launch.threads_per_block), cy = y(r.performance.predicted);
      if (info && info.rank === r.rank) p.append(s("circle", {cx, cy, r: 7, class: "rec-ring"}));
      p.append(s("circle", {cx, cy, r: 4, fill: LIMITER_COLOURS[r.performance.limiter] || LIMITER_COLOURS.none,
        stroke: "#fff", "data-limiter": r.performance.limiter}));
      hoverable(p, r);
      g.append(p);
    }
    const last = pts[pts.length - 1];
    const label = s("text", {x: x(last.launch.threads_per_block) + 8, y: y(last.performance.predicted) + 4}, name);
    labels.push([y(last.performance.predicted) + 4, label]);
    g.append(label);
    svg.append(g);
  });
  /* Lines that end at (nearly) the same height: their names one under the other. */
  labels.sort((a, b) => a[0] - b[0]);
  let below = -Infinity;
  for (const [ly, label] of labels) {
    below = Math.max(ly, below + 13);
    label.setAttribute("y", below);
  }
  const legend = h("div", {class: "legend"});
  names.forEach((name, i) => legend.append(h("span", {"data-ordering": name},
    s("svg", {width: 28, height: 8}, s("line", {x1: 0, x2: 28, y1: 4, y2: 4, stroke: ORDERING_GREYS[i % 8],
      "stroke-width": 1.5, "stroke-dasharray": ORDERING_DASHES[i % 8] || null})), name)));
  const seen = new Set(res.map((r) => r.performance.limiter));
  for (const k of Object.keys(LIMITER_COLOURS))
    if (seen.has(k)) legend.append(h("span", {"data-limiter": k}, h("i", {class: "swatch", "data-colour": LIMITER_COLOURS[k]}),
      "limited by " + (LIMIT_NAMES[k] || k)));
  if (info) legend.append(h("span", {}, "ringed: recommended"));
  return [svg, legend];
}

/* The orderings of a mesh's ranking (docs/api.md, search.orderings): the decision's
 * recommended ordering, each ordering's one-time cost in seconds and its best
 * configuration, the permutation to download, and the chart. Hidden for a ranking
 * without orderings. */
function showOrderings(rank, info) {
  const list = Array.isArray(rank.orderings) ? rank.orderings : [];
  $("orderings-block").hidden = list.length === 0;
  if (!list.length) return;
  const picked = info && info.picked && info.picked.ordering !== undefined ? info.picked : null;
  const best = rank.results[0];
  const chosen = picked ? picked.ordering : best ? best.ordering : undefined;
  const cost = list.find((o) => o.name === chosen);
  $("recommended-ordering").replaceChildren(...(chosen === undefined ? ["No ordering ranked a launchable configuration."] :
    [picked ? "Recommended ordering: " : "Best ordering (the answer has no decision): ",
      h("strong", {id: "ordering-chosen"}, String(chosen)),
      ...T` (${configName(picked || best)}, ${picked ? picked.predicted : best.performance.predicted} GLup/s)`,
      ...(cost ? T`; computing it costs ${cost.seconds} s once` : []), "."]));
  const rows = list.map((o) => {
    const top = rank.results.find((r) => r.ordering === o.name);
    return h("tr", {"data-ordering": o.name, class: o.name === chosen ? "rec" : null},
      h("td", {"data-key": "name"}, String(o.name)),
      h("td", {"data-key": "seconds"}, nm(o.seconds)),
      h("td", {"data-key": "best"}, top ? nm(top.performance.predicted) : "none"),
      h("td", {"data-key": "best-block"}, top ? triple(top.block) : "none"),
      h("td", {"data-key": "permutation"}, o.permutation_sha256
        ? h("a", {href: "/v1/arrays/" + o.permutation_sha256, download: "permutation-" + o.name.replace(/[^\w.-]/g, "_") + ".i64",
          title: "the new number of each cell, int64-le: " + o.permutation_sha256}, o.permutation_sha256.slice(0, 12) + "\u2026")
        : "none"));
  });
  $("orderings-table").replaceChildren(h("caption", {}, "each ordering's one-time cost and its best configuration"),
    h("tr", {}, ...["ordering", "one-time cost s", "best predicted GLup/s", "its block", "permutation (int64-le)"]
      .map((c) => h("th", {}, c))), ...rows);
  $("orderings-chart").replaceChildren(...orderingsChart(rank, list.map((o) => o.name), info));
}

function showRank(rank, req) {
  const res = rank.results;
  const info = recommendationOf(rank);
  $("rank-summary").replaceChildren(
    rank.device + ": ", h("span", {id: "evaluated"}, num(rank.evaluated)), " configurations evaluated, ",
    h("span", {id: "launchable"}, num(rank.launchable)), " launchable, ",
    num(rank.cached_results), " from the cache. Best: ",
    res.length ? h("strong", {id: "best"}, ...T`${configName(res[0])}, ${res[0].performance.predicted} GLup/s`) : "none");
  showRecommendation(rank, info);
  showWarnings($("rank-warnings"), rank.warnings);
  const m = rank.measure;
  $("measure-status").replaceChildren(...(!m ? [] : m.status === "ok"
    ? T`Measured ${num(m.measured)} configurations on the daemon's GPU`.concat(
      m.fastest ? T`; fastest: ${configName(m.fastest)}, ${m.fastest.glups} GLup/s.` : ["."])
    : [`Not measured: ${m.reason || m.status}.`]));

  /* Heat maps when blocks vary in z (3-D), for the folding the user picks. */
  const foldings = [];
  for (const r of res)
    if (!foldings.some((f) => sameTriple(f, r.folding))) foldings.push(r.folding);
  const bzCount = new Set(res.map((r) => r.block[2])).size;
  $("heatmaps-block").hidden = bzCount < 2;
  const sel = $("heat-folding");
  sel.replaceChildren(...foldings.map((f, i) => h("option", {value: i}, triple(f))));
  const drawMaps = () => $("heatmaps").replaceChildren(...heatmaps(rank, foldings[+sel.value || 0] || [1, 1, 1], info));
  sel.onchange = drawMaps;
  if (bzCount >= 2) drawMaps();

  showOrderings(rank, info);
  $("bars-chart").replaceChildren(...barsChart(rank, info));
  const anyMeasured = res.some((r) => r.measured);
  const anyOrdering = res.some((r) => r.ordering !== undefined);
  const head = ["rank", "block", "folding"].concat(anyOrdering ? ["ordering"] : []).concat(["predicted GLup/s", "limiter", "DRAM load B/Lup",
    "DRAM store B/Lup", "blocks per SM", "occupancy"]).concat(anyMeasured ? ["measured GLup/s", "predicted / measured"] : []);
  const rows = res.slice(0, 15).map((r) => {
    const me = r.measured || {};
    const cells = [num(r.rank), triple(r.block), triple(r.folding)].concat(anyOrdering
      ? [h("span", {"data-key": "ordering"}, num(r.ordering))] : []).concat([nm(r.performance.predicted, {"data-key": "predicted"}),
      r.performance.limiter, nm(r.estimate.dram_load), nm(r.estimate.dram_store),
      num(r.launch.blocks_per_sm), nm(r.occupancy, {"data-key": "occupancy"})]).concat(anyMeasured
      ? [me.error ? "error: " + me.error.code : nm(me.glups), nm(me.predicted_over_measured)] : []);
    const tr = h("tr", {"data-rank": r.rank,
      class: info && info.rank === r.rank ? "rec" : info && info.group.has(r.rank) ? "tie" : null},
    ...cells.map((c) => h("td", {}, c)));
    return tr;
  });
  $("rank-table").replaceChildren(h("caption", {}, res.length > 15 ? "the best 15 of " + res.length : "all results"),
    h("tr", {}, ...head.map((c) => h("th", {}, c))), ...rows);
  const nl = rank.not_launchable || [];
  $("not-launchable").hidden = nl.length === 0;
  $("not-launchable").querySelector("summary").textContent = nl.length + " configurations cannot run";
  $("not-launchable").querySelector("ul").replaceChildren(...nl.map((n) =>
    h("li", {}, configName(n) + ": " + n.reason)));
  $("hover").textContent = "Point at a configuration to see its numbers; click it to estimate it.";
  colourSwatches($("rank"));
  $("rank").hidden = false;
}

/* ---- running ---------------------------------------------------------------------------- */

let running = 0; /* requests in flight; the test waits for 0 */

/* The permalink: "#estimate=" or "#rank=" and the request as JSON. */
function permalink(action, req) {
  return "#" + action + "=" + encodeURIComponent(JSON.stringify(req));
}

async function run(action) {
  clearErrors();
  let req;
  try {
    req = readForm();
  } catch (e) {
    if (!(e instanceof FormError)) throw e;
    showError({error: {code: "invalid_form", message: e.message, path: e.path}}, 0);
    document.body.dataset.done = String(Number(document.body.dataset.done || 0) + 1);
    return;
  }
  const link = permalink(action, req);
  history.replaceState(null, "", link);
  $("permalink").href = link;
  running++;
  document.body.dataset.running = String(running);
  $("busy").textContent = action === "rank" ? "ranking\u2026" : "estimating\u2026";
  const t0 = performance.now();
  try {
    const r = action === "rank" ? await postRank(req) : await post("/v1/estimate", req);
    if (!r.ok) {
      showError(r.body, r.status);
    } else if (action === "rank") {
      showRank(r.body, req);
    } else {
      showEstimate(r.body, req);
    }
    $("busy").textContent = `answered in ${Math.round(performance.now() - t0)} ms`;
    /* a mesh kernel's levels figure (levels.js), computed after the answer is shown */
    if (r.ok) await showLevelsFor(req, action === "rank" ? r.body : null);
  } catch (e) {
    showError({error: {code: "unreachable", message: "the daemon did not answer: " + e.message, path: ""}}, 0);
    $("busy").textContent = "";
  } finally {
    running--;
    document.body.dataset.running = String(running);
    document.body.dataset.done = String(Number(document.body.dataset.done || 0) + 1);
  }
}

/* The "fill the form from a request" box: a request as JSON (a mesh kernel with
 * its values inline, say) fills the form, as a permalink does, without running it.
 * Text that is not a JSON object is the page's own error (invalid_form). */
function loadRequestText() {
  clearErrors();
  let req;
  try {
    req = JSON.parse($("request-json").value);
    if (req === null || typeof req !== "object" || Array.isArray(req)) throw new Error("not an object");
  } catch (e) {
    showError({error: {code: "invalid_form", message: "the request is not a JSON object: " + e.message,
      path: ""}}, 0);
    markInput($("request-json"), e.message);
    return;
  }
  $("preset").value = "";
  writeForm(req);
}

/* A permalink: fills the form and runs what it names. Returns whether it was one. */
function openLink(hash) {
  const m = /^#(estimate|rank)=(.*)$/s.exec(hash);
  if (!m) return false;
  let req;
  try {
    req = JSON.parse(decodeURIComponent(m[2]));
  } catch (e) {
    showError({error: {code: "bad_link", message: "the link does not hold a request: " + e.message, path: ""}}, 0);
    return true;
  }
  $("preset").value = "";
  writeForm(req);
  run(m[1]);
  return true;
}

async function start() {
  for (const name of Object.keys(PRESETS))
    $("preset").append(h("option", {value: name}, name));
  $("preset").addEventListener("change", () => {
    if (!PRESETS[$("preset").value]) return;
    writeForm(PRESETS[$("preset").value]);
    run("estimate");
  });
  $("add-field").addEventListener("click", () => addField({name: "f" + $("fields").children.length, dims: [1024]}));
  $("form").addEventListener("submit", (e) => {
    e.preventDefault();
    run("estimate");
  });
  $("run-rank").addEventListener("click", () => run("rank"));
  $("load-request").addEventListener("click", loadRequestText);
  window.addEventListener("hashchange", () => {
    if (location.hash !== $("permalink").getAttribute("href")) openLink(location.hash);
  });
  try {
    await loadDevices();
  } catch (e) {
    showError({error: {code: "unreachable", message: "GET /v1/devices failed: " + e.message, path: ""}}, 0);
  }
  if (!openLink(location.hash)) {
    $("preset").value = "3-D 25-point, range 4";
    writeForm(PRESETS["3-D 25-point, range 4"]);
    run("estimate");
  }
  document.body.dataset.ready = "1";
}

document.addEventListener("DOMContentLoaded", start);
