#!/usr/bin/python3
"""test_schemas: schema/*.json are valid JSON Schemas, the example requests satisfy
them, the schemas and the server agree on what is a valid request, and every body a
live daemon sends (answers and errors of every endpoint) satisfies its schema.

Usage: test_schemas.py LAUNCHRANK_BINARY SOURCE_ROOT
Run with /usr/bin/python3 (Debian's python3-jsonschema); exits 77 (skipped) when
jsonschema cannot be imported, 1 on any failure, 0 otherwise.
"""
import copy
import glob
import hashlib
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lrdaemon  # noqa: E402

try:
    import jsonschema
    from jsonschema import Draft202012Validator
except ImportError:
    print("SKIP: jsonschema is not importable by %s (use /usr/bin/python3 with "
          "python3-jsonschema)" % sys.executable)
    sys.exit(77)

BASE_ID = "https://launchrank.invalid/schema/"
JSON_CT = {"Content-Type": "application/json"}

failures = []
checks = 0


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print("FAIL:", what)
    return cond


# ---- the schemas themselves -------------------------------------------------------

def load_schemas(root):
    store = {}
    files = sorted(glob.glob(os.path.join(root, "schema", "*.json")))
    check(len(files) >= 11, "schema/ holds the 11 schema files (found %d)" % len(files))
    for path in files:
        name = os.path.basename(path)
        with open(path) as f:
            s = json.load(f)
        try:
            Draft202012Validator.check_schema(s)
            check(True, name)
        except jsonschema.exceptions.SchemaError as e:
            check(False, "%s is not a valid draft 2020-12 schema: %s" % (name, e.message))
        check(s.get("$schema") == "https://json-schema.org/draft/2020-12/schema",
              "%s declares draft 2020-12" % name)
        check(s.get("$id") == BASE_ID + name, "%s has $id %s%s" % (name, BASE_ID, name))
        check(bool(s.get("title")) and bool(s.get("description")),
              "%s has a title and a description" % name)
        for where in undescribed_properties(s, name):
            check(False, "property %s has no description" % where)
        store[s["$id"]] = s
    return store


def undescribed_properties(node, where):
    """Paths of every entry of a "properties" map that lacks a description."""
    if isinstance(node, dict):
        for key, sub in node.items():
            if key == "properties" and isinstance(sub, dict):
                for prop, ps in sub.items():
                    described = isinstance(ps, dict) and "description" in ps
                    # if/then branches restate properties already described next to them
                    if not described and "/if" not in where and "/then" not in where \
                            and "/oneOf" not in where:
                        yield "%s/%s" % (where, prop)
            yield from undescribed_properties(sub, "%s/%s" % (where, key))
    elif isinstance(node, list):
        for i, sub in enumerate(node):
            yield from undescribed_properties(sub, "%s/%d" % (where, i))


class Schemas:
    """Validates against one schema, resolving $refs among schema/*.json by $id: with
    the referencing library where jsonschema has it (4.18+), else with RefResolver
    (Debian's 4.10)."""

    def __init__(self, store):
        self.store = store
        try:
            from referencing import Registry
            from referencing.jsonschema import DRAFT202012
            registry = Registry().with_resources(
                (sid, DRAFT202012.create_resource(s)) for sid, s in store.items())
            self.make = lambda s: Draft202012Validator(s, registry=registry)
        except ImportError:
            from jsonschema import RefResolver
            self.make = lambda s: Draft202012Validator(
                s, resolver=RefResolver.from_schema(s, store=store))

    def errors(self, name, instance):
        v = self.make(self.store[BASE_ID + name])
        return ["%s at /%s" % (e.message, "/".join(map(str, e.absolute_path)))
                for e in v.iter_errors(instance)]

    def valid(self, name, instance, what):
        errs = self.errors(name, instance)
        return check(not errs, "%s: %s matches %s%s" % (what, "body", name,
                                                        (": " + "; ".join(errs[:3])) if errs else ""))


# ---- requests ----------------------------------------------------------------------

def rank_variant(req, top=3):
    r = copy.deepcopy(req)
    r.pop("launch", None)
    r["search"] = {"top": top}
    return r


def example_requests(root):
    out = {}
    for path in sorted(glob.glob(os.path.join(root, "tests", "data", "*.json"))):
        with open(path) as f:
            out[os.path.basename(path)] = json.load(f)
    check(len(out) >= 4, "tests/data holds the example requests (found %d)" % len(out))
    return out


def set_at(obj, path, value):
    """path: list of keys/indices; value DELETE removes the entry."""
    for k in path[:-1]:
        obj = obj[k]
    if value is DELETE:
        del obj[path[-1]]
    else:
        obj[path[-1]] = value


DELETE = object()

# (what, kind, [(path, value)], expected status, whether the schema accepts it).
# The schema accepts everything the server answers 200 or 422 (well-formed requests
# the model cannot serve), rejects what the server answers 400 or 413 - except the
# few rules a JSON Schema cannot state, marked True in the last column.
AGREEMENT = [
    ("2-D request as sent", "estimate", [], 200, True),
    ("block side 1024", "estimate", [(["launch", "block"], [1024])], 200, True),
    ("block side 1025", "estimate", [(["launch", "block"], [1025])], 400, False),
    ("block with 4 sides", "estimate", [(["launch", "block"], [32, 1, 1, 1])], 400, False),
    ("block side as string", "estimate", [(["launch", "block"], ["32"])], 400, False),
    ("block side 32.0 (an integral number)", "estimate", [(["launch", "block"], [32.0])], 200, True),
    ("block side 32.5", "estimate", [(["launch", "block"], [32.5])], 400, False),
    ("folding 256", "estimate", [(["launch", "folding"], [1, 256])], 200, True),
    ("folding 257", "estimate", [(["launch", "folding"], [257])], 400, False),
    ("folding product above 256 (not launchable)", "estimate",
     [(["launch", "folding"], [16, 16, 2])], 422, True),
    ("2048 threads per block (not launchable)", "estimate",
     [(["launch", "block"], [1024, 2])], 422, True),
    ("launch missing", "estimate", [(["launch"], DELETE)], 400, False),
    ("launch.block missing", "estimate", [(["launch"], {"folding": [1]})], 400, False),
    ("unknown top-level key", "estimate", [(["devise"], "K20m")], 400, False),
    ("unknown launch key", "estimate", [(["launch", "grid"], [1])], 400, False),
    ("search in an estimate request is checked too", "estimate",
     [(["search"], {"top": -1})], 400, False),
    ("domain with 0", "estimate", [(["domain"], [0])], 400, False),
    ("domain side 2147483648", "estimate", [(["domain"], [2147483648])], 400, False),
    ("domain above 2^42 points (not expressible)", "estimate",
     [(["domain"], [2147483647, 2147483647])], 400, True),
    ("domain missing", "estimate", [(["domain"], DELETE)], 400, False),
    ("device missing", "estimate", [(["device"], DELETE)], 400, False),
    ("device as a number", "estimate", [(["device"], 5)], 400, False),
    ("device name in lower case", "estimate", [(["device"], "a100-sxm4-80gb")], 200, True),
    ("device override", "estimate",
     [(["device"], {"base": "A100-SXM4-80GB", "dram_bw_gbs": 1800, "name": "A100 at 1800"})], 200, True),
    ("device override with an unknown key", "estimate",
     [(["device"], {"base": "A100-SXM4-80GB", "dram_bw": 1800})], 400, False),
    ("device override with a 96-byte L1 line", "estimate",
     [(["device"], {"base": "A100-SXM4-80GB", "l1_line_bytes": 96})], 400, False),
    ("device override with clock 0", "estimate",
     [(["device"], {"base": "A100-SXM4-80GB", "clock_ghz": 0})], 400, False),
    ("device override with a fit lacking c", "estimate",
     [(["device"], {"base": "A100-SXM4-80GB", "fits": {"miss_l1": {"a": 0.5, "b": 1}}})], 400, False),
    ("device override with a miss rate above 1", "estimate",
     [(["device"], {"base": "A100-SXM4-80GB", "fits": {"miss_l2": {"a": 2, "b": 1, "c": 1}}})], 400, False),
    ("device without base missing figures", "estimate",
     [(["device"], {"name": "mine", "sm_count": 80})], 400, False),
    ("element_bytes 4", "estimate", [(["kernel", "fields", 0, "element_bytes"], 4)], 200, True),
    ("element_bytes 3", "estimate", [(["kernel", "fields", 0, "element_bytes"], 3)], 400, False),
    ("element_bytes 32", "estimate", [(["kernel", "fields", 0, "element_bytes"], 32)], 400, False),
    ("registers 255 (not launchable at 512 threads)", "estimate",
     [(["kernel", "registers"], 255)], 422, True),
    ("registers 256", "estimate", [(["kernel", "registers"], 256)], 400, False),
    ("registers 0", "estimate", [(["kernel", "registers"], 0)], 400, False),
    ("flops 0 (no flop limit)", "estimate", [(["kernel", "flops"], 0)], 200, True),
    ("flops 1e6", "estimate", [(["kernel", "flops"], 1e6)], 200, True),
    ("flops above 1e6", "estimate", [(["kernel", "flops"], 1000001)], 400, False),
    ("flops negative", "estimate", [(["kernel", "flops"], -1)], 400, False),
    ("precision fp32", "estimate", [(["kernel", "precision"], "fp32")], 200, True),
    ("precision fp16", "estimate", [(["kernel", "precision"], "fp16")], 400, False),
    ("shared_bytes 1048577", "estimate", [(["kernel", "shared_bytes"], 1048577)], 400, False),
    ("parameters used by an access", "estimate",
     [(["kernel", "parameters"], {"w": 15002}),
      (["kernel", "fields", 0, "loads"], [["x", "y"], ["0", "y + w/15002"]])], 200, True),
    ("parameter name not an identifier", "estimate",
     [(["kernel", "parameters"], {"1w": 3})], 400, False),
    ("parameter value a fraction", "estimate", [(["kernel", "parameters"], {"w": 1.5})], 400, False),
    ("no fields", "estimate", [(["kernel", "fields"], [])], 400, False),
    ("field without dims", "estimate", [(["kernel", "fields", 0, "dims"], DELETE)], 400, False),
    ("field with 4 dims", "estimate", [(["kernel", "fields", 0, "dims"], [2, 2, 2, 2])], 400, False),
    ("duplicate field name (not expressible)", "estimate",
     [(["kernel", "fields", 1, "name"], "A")], 400, True),
    ("field name of 64 bytes", "estimate", [(["kernel", "fields", 0, "name"], "n" * 64)], 400, False),
    ("base_offset_bytes 1048577", "estimate",
     [(["kernel", "fields", 0, "base_offset_bytes"], 1048577)], 400, False),
    ("unknown field key", "estimate", [(["kernel", "fields", 0, "offset"], 8)], 400, False),
    ("access with 1 expression for a 2-D field", "estimate",
     [(["kernel", "fields", 0, "loads"], [["x"]])], 400, False),
    ("bare-string access for a 2-D field", "estimate",
     [(["kernel", "fields", 0, "loads"], ["x"])], 400, False),
    ("empty expression", "estimate", [(["kernel", "fields", 0, "loads"], [["", "y"]])], 400, False),
    ("product of two variables (unsupported)", "estimate",
     [(["kernel", "fields", 0, "loads"], [["x*y", "y"]])], 422, True),
    ("unknown name in an expression (not expressible)", "estimate",
     [(["kernel", "fields", 0, "loads"], [["x+q", "y"]])], 400, True),
    ("thread variables", "estimate",
     [(["kernel", "fields", 0, "loads"],
       [["threadIdx.x + blockIdx.x*blockDim.x", "tidy"]])], 200, True),
    ("measure options", "estimate",
     [(["measure"], {"top": 3, "repetitions": 5, "warmup": 1, "flush_l2": True})], 200, True),
    ("measure.top 33", "estimate", [(["measure"], {"top": 33})], 400, False),
    ("rank with top 3", "rank", [], 200, True),
    ("rank with explicit blocks and foldings", "rank",
     [(["search"], {"blocks": [[128], [32, 4], [1, 1, 1024]], "foldings": [[1], [2, 1, 1]], "top": 0})],
     200, True),
    ("rank with min_threads above max_threads (not expressible)", "rank",
     [(["search"], {"min_threads": 512, "max_threads": 256})], 400, True),
    ("rank with max_bz 65", "rank", [(["search"], {"max_bz": 65})], 400, False),
    ("rank with top -1", "rank", [(["search"], {"top": -1})], 400, False),
    ("rank with 65 foldings", "rank", [(["search"], {"foldings": [[1]] * 65})], 413, False),
    ("rank with 4097 blocks", "rank", [(["search"], {"blocks": [[32]] * 4097})], 413, False),
    ("rank over 4096 configurations (not expressible)", "rank",
     [(["search"], {"blocks": [[32, 4]] * 300, "foldings": [[1]] * 18})], 413, True),
    ("rank with an unknown search key", "rank", [(["search"], {"best": 3})], 400, False),
    ("launch in a rank request is checked too", "rank", [(["launch"], {"block": "anything"})], 400, False),
]


def check_agreement(d, schemas, base):
    for what, kind, edits, status, schema_ok in AGREEMENT:
        req = copy.deepcopy(base) if kind == "estimate" else rank_variant(base)
        for path, value in edits:
            set_at(req, path, value)
        name = "%s-request.json" % kind
        errs = schemas.errors(name, req)
        check((not errs) == schema_ok,
              "%s: %s %s it%s" % (what, name, "accepts" if not errs else "rejects",
                                  "" if (not errs) == schema_ok else
                                  " (expected the opposite%s)" % (": " + errs[0] if errs else "")))
        st, _, body = d.request("POST", "/v1/%s" % kind, json.dumps(req).encode(), JSON_CT)
        check(st == status, "%s: the server answers %d (expected %d): %s"
              % (what, st, status, body[:200].decode(errors="replace")))
        resp = json.loads(body)
        if st == 200:
            schemas.valid("%s-response.json" % kind, resp, what)
        else:
            schemas.valid("error.json", resp, what)


# ---- live responses ---------------------------------------------------------------

def expect(d, schemas, what, method, path, status, schema, body=None, headers=None, code=None):
    st, hdrs, data = d.request(method, path, body, headers)
    if not check(st == status, "%s: %s %s answers %d (expected %d): %s"
                 % (what, method, path, st, status, data[:200].decode(errors="replace"))):
        return None, hdrs
    check(hdrs.get("content-type") == "application/json",
          "%s: Content-Type is application/json, not %s" % (what, hdrs.get("content-type")))
    try:
        resp = json.loads(data)
    except ValueError:
        check(False, "%s: the body is not JSON: %r" % (what, data[:200]))
        return None, hdrs
    schemas.valid(schema, resp, what)
    if code is not None:
        check(resp.get("error", {}).get("code") == code,
              "%s: error code %s (expected %s)" % (what, resp.get("error", {}).get("code"), code))
    return resp, hdrs



def check_builtin_files_name_each_key_once(root):
    """The built-in device files (estimator/devices/*.json) name each key once at every
    level: a JSON reader keeps one of two equal keys, so a second "sources" entry for a
    figure would silently replace the first in every answer (GET /v1/devices/NAME)."""
    folder = os.path.join(root, "estimator", "devices")
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".json"):
            continue
        twice = []

        def pairs(items, twice=twice):
            keys = [k for k, _ in items]
            twice.extend(sorted({k for k in keys if keys.count(k) > 1}))
            return dict(items)

        with open(os.path.join(folder, name)) as f:
            json.load(f, object_pairs_hook=pairs)
        check(not twice, "estimator/devices/%s names each key once (twice: %s)" % (name, twice))


def check_sources_cover_every_figure(dev):
    """Issue 44, item 1: a built-in device says where each of its figures comes from.
    Its "sources" keys (figure names, comma-separated where several share a sentence)
    name every figure of "units", "fits", "l1_model" and "provenance" exactly once, and
    nothing else; a model-v2 figure of a device not measured says whose it borrows, or,
    on a derived device, from what it is derived."""
    named = {}
    for key in dev.get("sources", {}):
        for fig in key.split(","):
            named[fig] = named.get(fig, 0) + 1
    want = set(dev["units"]) | {"fits", "l1_model", "provenance"}
    check(not sorted(want - set(named)),
          "%s: sources for every figure (missing %s)" % (dev["name"], sorted(want - set(named))))
    check(not sorted(set(named) - want),
          "%s: sources name only figures (unknown %s)" % (dev["name"], sorted(set(named) - want)))
    check(all(n == 1 for n in named.values()),
          "%s: each figure in one source" % dev["name"])
    if dev["provenance"] != "measured":
        for fig in ("latency_ns", "limit_sharpness"):
            text = " ".join(v for k, v in dev["sources"].items() if fig in k.split(","))
            check("borrowed from H100-SXM5-80GB" in text or
                  (dev["provenance"] == "derived" and text.startswith("derived: ")),
                  "%s: its model-v2 figure %s says whose it borrows or how it is derived" %
                  (dev["name"], fig))

def check_arrays(d, schemas, root):
    """PUT /v1/arrays/{sha256} (issue 45): the answer, a new array's and a stored one's,
    and a mismatched digest's error; the estimate request naming the array."""
    with open(os.path.join(root, "tests", "data", "index8.i32"), "rb") as f:
        raw = f.read()
    digest = hashlib.sha256(raw).hexdigest()
    octets = {"Content-Type": "application/octet-stream"}
    for status in (201, 200):
        expect(d, schemas, "array upload (%d)" % status, "PUT", "/v1/arrays/" + digest, status,
               "array-response.json", raw, octets)
    expect(d, schemas, "array upload with another digest", "PUT", "/v1/arrays/" + "0" * 64, 400,
           "error.json", raw, octets, code="invalid_request")
    expect(d, schemas, "unknown array", "GET", "/v1/arrays/" + "1" * 64, 404, "error.json",
           code="not_found")
    req = {"device": "K20m", "domain": [8, 1, 1], "launch": {"block": [32, 1, 1]},
           "kernel": {"fields": [
               {"name": "u", "dims": [8], "loads": [["nbr(0, x)"]]},
               {"name": "nbr", "dims": [4, 8], "integer": True, "values": {"sha256": digest},
                "loads": [["0", "x"]]},
               {"name": "out", "dims": [8], "stores": [["x"]]}]}}
    schemas.valid("estimate-request.json", req, "a request naming an uploaded array")
    expect(d, schemas, "estimate naming an uploaded array", "POST", "/v1/estimate", 200,
           "estimate-response.json", json.dumps(req).encode(), JSON_CT)


def check_live(d, schemas, reqs):
    for name, req in reqs.items():
        resp, _ = expect(d, schemas, "estimate " + name, "POST", "/v1/estimate", 200,
                         "estimate-response.json", json.dumps(req).encode(), JSON_CT)
        if resp:
            check(resp["cached"] is False, "estimate %s: first answer is not cached" % name)
            kepler = req["device"] == "K20m"
            est = resp["estimate"]
            check((est["l1_cycles"] is None) == kepler and (est["smx_load"] is None) != kepler,
                  "estimate %s: l1_cycles null exactly on Kepler, smx_load otherwise" % name)
    # the cache: the same request again, and the canonical form (key order, defaults
    # spelt out, device name case) hits the same entry
    ref = reqs["ref2_2d5pt_a100_80gb.json"]
    again = copy.deepcopy(ref)
    again["device"] = "a100-sxm4-80gb"
    again["launch"]["folding"] = [1, 1, 1]
    again = dict(reversed(list(again.items())))
    resp, _ = expect(d, schemas, "estimate again", "POST", "/v1/estimate", 200,
                     "estimate-response.json", json.dumps(again).encode(), JSON_CT)
    if resp:
        check(resp["cached"] is True, "the same request in another spelling is answered from the cache")
    # a flop-free kernel: the flop limit is null
    noflops = copy.deepcopy(ref)
    noflops["kernel"]["flops"] = 0
    resp, _ = expect(d, schemas, "estimate without flops", "POST", "/v1/estimate", 200,
                     "estimate-response.json", json.dumps(noflops).encode(), JSON_CT)
    if resp:
        check(resp["performance"]["flops"] is None, "without flops, performance.flops is null")
    # a full device description (as GET returns it, minus units), and an override
    _, _, data = d.request("GET", "/v1/devices/K20m")
    full = json.loads(data)["device"]
    full.pop("units")
    full["name"] = "my K20"
    custom = copy.deepcopy(reqs["su_k20_7pt.json"])
    custom["device"] = full
    check(not schemas.errors("device.json", full), "a full device description matches device.json")
    resp, _ = expect(d, schemas, "estimate with a full device", "POST", "/v1/estimate", 200,
                     "estimate-response.json", json.dumps(custom).encode(), JSON_CT)
    if resp:
        check(resp["device"] == "my K20", "a full device keeps its name")

    rank = rank_variant(ref, 3)
    resp, _ = expect(d, schemas, "rank top 3", "POST", "/v1/rank", 200, "rank-response.json",
                     json.dumps(rank).encode(), JSON_CT)
    if resp:
        check(len(resp["results"]) == 3, "rank top 3 returns 3 results")
        # a 2-D domain: bz = 1, powers of two with 32 <= bx*by <= 1024 and bx a multiple of
        # 32 (docs/api.md, search), each with the foldings [1, 1, 1] and [1, 2, 1]
        check(resp["evaluated"] == 42,
              "the default search space of a 2-D domain has 21 blocks x 2 foldings")
        check(resp["cached_results"] >= 1, "rank reuses the estimate cached before")
        check([r["rank"] for r in resp["results"]] == [1, 2, 3], "ranks are 1, 2, 3")
    rank = rank_variant(reqs["su_k20_7pt.json"], 0)
    rank["search"] = {"blocks": [[32, 4], [1024, 2], [64, 4, 2]], "foldings": [[1], [1, 2]]}
    resp, _ = expect(d, schemas, "rank with not launchable blocks", "POST", "/v1/rank", 200,
                     "rank-response.json", json.dumps(rank).encode(), JSON_CT)
    if resp:
        check(len(resp["not_launchable"]) == 2 and resp["launchable"] == 4,
              "1024x2 blocks are listed as not launchable with both foldings")

    # issue 45: a mesh kernel ranked over cell orderings names each result's ordering
    mesh = rank_variant(reqs["langguth_fv_mesh_h200.json"], 0)
    mesh["search"] = {"blocks": [[64], [256]], "orderings": ["given", "rcm", "blocks:32"]}
    resp, _ = expect(d, schemas, "rank over orderings", "POST", "/v1/rank", 200,
                     "rank-response.json", json.dumps(mesh).encode(), JSON_CT)
    if resp:
        check(len(resp["results"]) == 6 and all("ordering" in r for r in resp["results"]),
              "every ordering x block is ranked and names its ordering")
        check([o["name"] for o in resp["orderings"]] == ["given", "rcm", "blocks:32"],
              "orderings lists each ordering's cost in the request's order")

    # issue 45, item 6: the levels of the mesh kernel, and of a kernel without a mesh
    lv = reqs["langguth_fv_mesh_h200.json"]
    check(not schemas.errors("levels-request.json", lv), "the mesh request is a levels request")
    resp, _ = expect(d, schemas, "levels of a mesh", "POST", "/v1/levels", 200,
                     "levels-response.json", json.dumps(lv).encode(), JSON_CT)
    if resp:
        check([r["block_cells"] for r in resp["rows"]] == [32, 128, 512],
              "the levels' rows are diagonal blocks of 32, 128 and 512 cells")
    expect(d, schemas, "levels of a kernel without an index field", "POST", "/v1/levels", 400,
           "error.json", json.dumps(ref).encode(), JSON_CT, code="invalid_request")

    # timing the best result: "unavailable" without a GPU, timings with one
    timed = rank_variant(ref, 2)
    timed["search"]["blocks"] = [[512], [256, 2]]
    timed["measure"] = {"top": 1, "repetitions": 1, "warmup": 0}
    resp, _ = expect(d, schemas, "rank with measure.top 1", "POST", "/v1/rank", 200,
                     "rank-response.json", json.dumps(timed).encode(), JSON_CT)
    if resp:
        check("measure" in resp, "measure.top > 0 adds a measure summary")
    resp, _ = expect(d, schemas, "devices", "GET", "/v1/devices", 200, "devices-response.json")
    if resp:
        names = [x["name"] for x in resp["devices"]]
        check("K20m" in names and "A100-SXM4-40GB" in names, "devices lists the built-ins")
        for dev in resp["devices"]:
            schemas.valid("device.json", dev, "device " + dev["name"])
            if not dev["stored"]:
                check_sources_cover_every_figure(dev)
    expect(d, schemas, "device K20m", "GET", "/v1/devices/K20m", 200, "device-response.json")
    expect(d, schemas, "device by lower-case name", "GET", "/v1/devices/h100-sxm5-80gb", 200,
           "device-response.json")
    expect(d, schemas, "healthz", "GET", "/healthz", 200, "health-response.json")

    # errors
    bad = b'{"device": "K20m", "kernel": '
    expect(d, schemas, "invalid JSON", "POST", "/v1/estimate", 400, "error.json", bad, JSON_CT,
           "invalid_json")
    expect(d, schemas, "empty body", "POST", "/v1/estimate", 400, "error.json", b"", JSON_CT,
           "invalid_json")
    expect(d, schemas, "nesting too deep", "POST", "/v1/rank", 400, "error.json",
           b"[" * 40 + b"]" * 40, JSON_CT, "invalid_json")
    unknown = copy.deepcopy(ref)
    unknown["device"] = "V100"
    resp, _ = expect(d, schemas, "unknown device in a request", "POST", "/v1/estimate", 400,
                     "error.json", json.dumps(unknown).encode(), JSON_CT, "invalid_request")
    if resp:
        check(resp["error"]["path"] == "device", "an unknown device names the path device")
    nonaffine = copy.deepcopy(ref)
    nonaffine["kernel"]["fields"][0]["loads"][1] = ["x", "y*y"]
    resp, _ = expect(d, schemas, "non-affine expression", "POST", "/v1/estimate", 422, "error.json",
                     json.dumps(nonaffine).encode(), JSON_CT, "unsupported_expression")
    if resp:
        check(resp["error"]["path"] == "kernel.fields[0].loads[1][1]",
              "a non-affine expression names its path (got %s)" % resp["error"]["path"])
    indirect = rank_variant(nonaffine)
    indirect["kernel"]["fields"][0]["loads"][1] = ["B[x]", "y"]
    expect(d, schemas, "indirect addressing in rank", "POST", "/v1/rank", 422, "error.json",
           json.dumps(indirect).encode(), JSON_CT, "unsupported_expression")
    big = copy.deepcopy(ref)
    big["launch"]["block"] = [1024, 2]
    expect(d, schemas, "not launchable", "POST", "/v1/estimate", 422, "error.json",
           json.dumps(big).encode(), JSON_CT, "not_launchable")
    expect(d, schemas, "unknown device name", "GET", "/v1/devices/nope", 404, "error.json",
           code="not_found")
    expect(d, schemas, "unknown path", "GET", "/v1/nope", 404, "error.json", code="not_found")
    expect(d, schemas, "unknown path under /v1/devices/", "GET", "/v1/devices/K20m/x", 404,
           "error.json", code="not_found")
    _, hdrs = expect(d, schemas, "GET of a POST endpoint", "GET", "/v1/estimate", 405, "error.json",
                     code="method_not_allowed")
    check(hdrs.get("allow") == "POST", "405 sends Allow: POST (got %s)" % hdrs.get("allow"))
    _, hdrs = expect(d, schemas, "POST of a GET endpoint", "POST", "/v1/devices", 405, "error.json",
                     b"{}", JSON_CT, code="method_not_allowed")
    check(hdrs.get("allow") == "GET, HEAD", "405 sends Allow: GET, HEAD (got %s)" % hdrs.get("allow"))
    oversized = b"[" + b" " * (1 << 20) + b"]"
    expect(d, schemas, "body over 1 MiB", "POST", "/v1/estimate", 413, "error.json", oversized,
           JSON_CT, "limit_exceeded")
    many = rank_variant(ref)
    many["search"] = {"blocks": [[32, 4]] * 300, "foldings": [[1]] * 18}
    expect(d, schemas, "search space over 4096", "POST", "/v1/rank", 413, "error.json",
           json.dumps(many).encode(), JSON_CT, "limit_exceeded")
    expect(d, schemas, "form content type", "POST", "/v1/estimate", 415, "error.json",
           json.dumps(ref).encode(), {"Content-Type": "application/x-www-form-urlencoded"},
           "invalid_request")
    expect(d, schemas, "text content type", "POST", "/v1/rank", 415, "error.json",
           json.dumps(ref).encode(), {"Content-Type": "text/plain"}, "invalid_request")
    expect(d, schemas, "JSON with a charset", "POST", "/v1/estimate", 200, "estimate-response.json",
           json.dumps(ref).encode(), {"Content-Type": "application/json; charset=utf-8"})

    resp, _ = expect(d, schemas, "stats", "GET", "/v1/stats", 200, "stats-response.json")
    if resp:
        check(resp["errors"]["not_found"] >= 3 and resp["errors"]["method_not_allowed"] >= 2,
              "stats count the errors sent")
        check(resp["cache"]["hits"] >= 1, "stats count cache hits")


def check_stored_devices(binary, schemas, req):
    """A device stored with `launchrank devices add` is listed, shown and usable by name,
    in the shapes the schemas give (issue 9, item 2)."""
    with tempfile.TemporaryDirectory(prefix="lr-schema-devices-") as tmp:
        db = os.path.join(tmp, "lab.sqlite")
        desc = os.path.join(tmp, "fast.json")
        with open(desc, "w") as f:
            json.dump({"base": "A100-SXM4-80GB", "name": "A100-fast", "dram_bw_gbs": 1800,
                       "sources": {"dram_bw_gbs": "a test"}}, f)
        added = subprocess.run([binary, "devices", "add", "--db", db, desc],
                               capture_output=True, text=True)
        check(added.returncode == 0, "devices add stores a device (%s)" % added.stderr.strip())
        with lrdaemon.Daemon(binary, db=db) as d:
            resp, _ = expect(d, schemas, "devices with a stored one", "GET", "/v1/devices", 200,
                             "devices-response.json")
            if resp:
                stored = [x["name"] for x in resp["devices"] if x["stored"]]
                check(stored == ["A100-fast"], "devices marks the stored device (got %r)" % stored)
            resp, _ = expect(d, schemas, "stored device", "GET", "/v1/devices/a100-FAST", 200,
                             "device-response.json")
            if resp:
                check(resp["device"]["stored"] and resp["device"]["dram_bw_gbs"] == 1800,
                      "the stored device keeps its figures")
            named = dict(req, device="A100-fast")
            resp, _ = expect(d, schemas, "estimate naming a stored device", "POST",
                             "/v1/estimate", 200, "estimate-response.json",
                             json.dumps(named).encode(), JSON_CT)
            if resp:
                check(resp["device"] == "A100-fast", "the estimate names the stored device")


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    binary, root = sys.argv[1], sys.argv[2]
    if not os.access(binary, os.X_OK):
        print("FAIL: %s is not an executable launchrank binary" % binary)
        return 1
    schemas = Schemas(load_schemas(root))
    check_builtin_files_name_each_key_once(root)
    reqs = example_requests(root)
    for name, req in reqs.items():
        schemas.valid("estimate-request.json", req, "tests/data/" + name)
        schemas.valid("rank-request.json", rank_variant(req), "tests/data/%s as a rank request" % name)
    with lrdaemon.Daemon(binary, cache=True) as d:
        check_live(d, schemas, reqs)
        check_agreement(d, schemas, reqs["ref2_2d5pt_a100_80gb.json"])
        check_arrays(d, schemas, root)
    check_stored_devices(binary, schemas, reqs["ref2_2d5pt_a100_80gb.json"])
    # the cache status without a cache
    with lrdaemon.Daemon(binary, cache=False) as d:
        resp, _ = expect(d, schemas, "healthz without cache", "GET", "/healthz", 200,
                         "health-response.json")
        if resp:
            check(resp["cache"] != "ok" and "--no-cache" in resp["cache"],
                  "healthz says why there is no cache (got %r)" % resp["cache"])
    print("%d checks, %d failed" % (checks, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
