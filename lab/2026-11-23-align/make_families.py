#!/usr/bin/env python3
"""Writes lab/2026-11-23-align/families/*.json: corpus families (tests/accuracy/corpus/families) again,
as they are ("<name>@ctrl", measured in the same run as the others) and with the x
extent of every array padded so that the first interior point, which every store
writes, starts a 128-B line and every row starts one too ("<name>@aligned"); for two
families also with only the rows aligned ("<name>@rows": the interior still starts 8 B
into a line). The corpus arrays have a halo of r points and n + 2r points per row,
so their stores start 8 or 16 B into a line and a different offset on every row.
lab/2026-11-23-align/README.md says what the measurements show."""
import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "..", "..", "tests", "accuracy", "corpus", "families")
OUT = os.path.join(HERE, "families")
LINE = 128

# family, halo offset of the stored point in x, whether to write the "@rows" variant
FAMILIES = [("star3d_r1_f64", 1, True), ("d3q19_pull_f64", 1, True),
            ("varcoef3d_f64", 1, False), ("star3d_r4_f64", 4, False),
            ("box3d_r1_f64", 1, False), ("star3d_r1_f32", 1, False)]


def shifted(expr, shift):
    m = re.match(r"^x([+-]\d+)?$", expr)
    assert m, "x index of the form x or x+k expected: " + expr
    off = int(m.group(1) or 0) + shift
    return "x%+d" % off if off else "x"


def variant(src, name, row_points, shift):
    fam = json.loads(json.dumps(src))
    fam["family"] = name
    for field in fam["kernel"]["fields"]:
        field["dims"] = [row_points] + field["dims"][1:]
        for key in ("loads", "stores"):
            for access in field.get(key, []):
                access[0] = shifted(access[0], shift)
    return fam


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, halo, rows in FAMILIES:
        src = json.load(open(os.path.join(CORPUS, name + ".json")))
        eb = src["kernel"]["fields"][0]["element_bytes"]
        per_line = LINE // eb
        n = src["domain"][0]
        # the corpus layout under its own name: measured in the same run as the others
        out = [variant(src, name + "@ctrl", src["kernel"]["fields"][0]["dims"][0], 0)]
        # the stored point x + halo moves to x + per_line: the interior starts a line;
        # rows of a whole number of lines, long enough for the widest access
        width = src["kernel"]["fields"][0]["dims"][0] - n  # 2 * halo
        aligned_row = -(-(n + per_line + width) // per_line) * per_line
        out.append(variant(src, name + "@aligned", aligned_row, per_line - halo))
        if rows:
            row = -(-(n + width) // per_line) * per_line
            out.append(variant(src, name + "@rows", row, 0))
        for fam in out:
            with open(os.path.join(OUT, fam["family"] + ".json"), "w") as f:
                json.dump(fam, f, indent=1)
                f.write("\n")


if __name__ == "__main__":
    main()
