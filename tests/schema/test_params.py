"""test_params: schema/device.json and docs/model.md hold every model parameter of
estimator/params.def, the schema with the table's bounds, the model's parameter table
with its H100 value (issue 42, item 1: the table is the one declaration; the C code
takes it through the EST_PARAM macro, the documents are checked against it here).

Every row of params.def must appear, as a number with the same lower and upper bound
(inclusive or exclusive alike), in each device object of the schema that has the
model's parameters (a request's device and an answer's), and the schema may name no
model parameter the table lacks.

Usage: test_params.py SOURCE_ROOT
"""
import json
import os
import re
import sys

ROOT = sys.argv[1]
FAILED = []


def check(cond, what):
    if not cond:
        print("FAIL " + what)
        FAILED.append(what)


def rows():
    text = open(os.path.join(ROOT, "estimator/params.def")).read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    out = {}
    for m in re.finditer(r"EST_PARAM\(\s*(\w+)\s*,\s*(\w+)\s*,\s*([^,]+),\s*([^,]+),\s*(\d)\s*,"
                         r"\s*([^,]+),\s*(\d)\s*,", text):
        name, kind, h100, lo, lo_open, hi, hi_open = m.groups()
        out[name] = dict(kind=kind, h100=float(h100), lo=float(lo), lo_open=lo_open == "1",
                         hi=float(hi), hi_open=hi_open == "1")
    return out


def device_objects(node):
    """Every schema object whose properties hold the model's first parameter."""
    if isinstance(node, dict):
        props = node.get("properties")
        if isinstance(props, dict) and "block_rate_per_sm" in props and \
                props["block_rate_per_sm"].get("type") == "number":
            yield props
        for v in node.values():
            yield from device_objects(v)
    elif isinstance(node, list):
        for v in node:
            yield from device_objects(v)


def main():
    table = rows()
    check(len(table) >= 19, "params.def has its rows (%d read)" % len(table))
    schema = json.load(open(os.path.join(ROOT, "schema/device.json")))
    objects = list(device_objects(schema))
    check(len(objects) >= 2, "device.json has a request's and an answer's device (%d found)"
          % len(objects))
    for props in objects:
        for name, r in table.items():
            p = props.get(name)
            check(p is not None and p.get("type") == "number",
                  "device.json names %s as a number" % name)
            if not p:
                continue
            lo_key = "exclusiveMinimum" if r["lo_open"] else "minimum"
            hi_key = "exclusiveMaximum" if r["hi_open"] else "maximum"
            check(p.get(lo_key) == r["lo"],
                  "%s: %s %s in device.json, %s in params.def" % (name, lo_key, p.get(lo_key),
                                                                  r["lo"]))
            check(p.get(hi_key) == r["hi"],
                  "%s: %s %s in device.json, %s in params.def" % (name, hi_key, p.get(hi_key),
                                                                  r["hi"]))
    print("%d parameters of params.def checked in %d device objects of schema/device.json"
          % (len(table), len(objects)))
    # docs/model.md's table of fitted parameters: a row per model parameter of the
    # table (rank_precision is no model input), with its H100 value
    model = open(os.path.join(ROOT, "docs/model.md")).read()
    documented = {}
    for m in re.finditer(r"^\| `(\w+)` \|[^\n]*\| ([-+0-9.e]+) \|$", model, flags=re.M):
        documented[m.group(1)] = float(m.group(2))
    for name, r in table.items():
        if r["kind"] == "EST_RANKING":
            continue
        check(name in documented, "docs/model.md's parameter table lists %s" % name)
        if name in documented:
            check(abs(documented[name] - r["h100"]) <= 5e-3 * abs(r["h100"]),
                  "%s: H100 value %g in docs/model.md, %g in params.def"
                  % (name, documented[name], r["h100"]))
    if FAILED:
        print("%d check(s) failed" % len(FAILED))
        sys.exit(1)


main()
