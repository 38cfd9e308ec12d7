"""test_arrays: issue 45, item 1 (the daemon part) and item 3's downloadable permutation,
against a real daemon (`launchrank serve` with a database):

  - PUT /v1/arrays/{sha256} of the 512-cell mesh's neighbour list
    (tests/data/langguth_fv_mesh_h200.json) as int32-le answers 201, again 200, and GET
    gives back the same bytes;
  - an estimate naming it {"sha256": ...} answers exactly as the same values inline, from
    the same cache entry (one canonical request), and so does an int64-le upload of the
    same integers;
  - a ranking with search.orderings stores each ordering's permutation: GET of each
    reported permutation_sha256 gives bytes of that digest, a permutation of the cells;
  - every bad case is a 4xx JSON error naming what is wrong: a body that is not
    application/octet-stream (415), a path that is not a SHA-256, a body whose digest is
    not the path's, a length that is not whole integers, an unknown format, stored bytes
    named again with another format (400), a body over --max-array-mb (413, announced or
    chunked), an unknown hash or a length that
    does not match dims in a request (400 naming kernel.fields[i].values.sha256), an
    unknown array to GET (404); a daemon without a database answers 503;
  - the Python client's upload_array, and its Remote back end uploading a request's
    {"file": ...} values, give the same answer as inline values.

Usage: test_arrays.py LAUNCHRANK SOURCE_ROOT
"""
import copy
import hashlib
import http.client
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

LR, ROOT = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(ROOT, "clients", "python"))
from launchrank_client import Client  # noqa: E402

FAILED = []
START_TIMEOUT_S = 15
MESH = os.path.join(ROOT, "tests", "data", "langguth_fv_mesh_h200.json")
NBR = "kernel.fields[2].values"  # the mesh's index field in MESH


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILED.append(what)


def request(port, method, path, body=None, ctype=None, chunked=False, head_only=False):
    """One request; chunked: the body in chunks of 64 KiB, without a length; head_only:
    only the head announcing the body's length (what a refusal by length answers)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        headers = {"Content-Type": ctype} if ctype else {}
        if head_only:
            conn.putrequest(method, path)
            for k, v in headers.items():
                conn.putheader(k, v)
            conn.putheader("Content-Length", str(len(body)))
            conn.endheaders()
        elif chunked:
            conn.putrequest(method, path)
            for k, v in headers.items():
                conn.putheader(k, v)
            conn.putheader("Transfer-Encoding", "chunked")
            conn.endheaders()
            step = 64 * 1024
            try:
                for i in range(0, len(body), step):
                    piece = body[i:i + step]
                    conn.send(b"%x\r\n%s\r\n" % (len(piece), piece))
                conn.send(b"0\r\n\r\n")
            except (BrokenPipeError, ConnectionResetError):
                pass  # the daemon answered 413 and closed
        else:
            conn.request(method, path, body, headers)
        resp = conn.getresponse()
        return resp.status, resp.getheader("Content-Type", ""), resp.read()
    finally:
        conn.close()


def post(port, endpoint, body):
    s, _, raw = request(port, "POST", "/v1/" + endpoint, json.dumps(body), "application/json")
    return s, json.loads(raw)


def error(raw):
    try:
        return json.loads(raw)["error"]
    except (ValueError, KeyError, TypeError):
        return {}


def check_error(answer, status, path, words, what):
    s, _, raw = answer
    e = error(raw)
    check(s == status and e.get("path") == path and words in e.get("message", ""),
          f"{what}: {status} naming '{path}' ({s}, {e})")


def start(tmp, name, *args):
    port_file = os.path.join(tmp, name + ".port")
    proc = subprocess.Popen([LR, "serve", "--listen", "127.0.0.1:0", "--port-file", port_file,
                             "--quiet", "--threads", "2", *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        try:
            with open(port_file) as f:
                return proc, int(f.read().strip())
        except (OSError, ValueError):
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("launchrank serve did not start: " + proc.stderr.read().decode())


def stop(proc):
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def without_cached(answer):
    return {k: v for k, v in answer.items() if k != "cached"}


def uploads_and_estimates(port, mesh, values):
    """int32 and int64 uploads, and estimates naming them, against inline values."""
    raw = struct.pack("<%di" % len(values), *values)
    digest = hashlib.sha256(raw).hexdigest()
    put = request(port, "PUT", "/v1/arrays/" + digest, raw, "application/octet-stream")
    check(put[0] == 201, f"PUT of a new array is 201 ({put[0]} {put[2][:200]!r})")
    check(json.loads(put[2]) == {"sha256": digest, "format": "int32-le", "count": len(values),
                                 "bytes": len(raw), "evicted": 0},
          f"PUT answers sha256, format, count, bytes, evicted ({put[2][:200]!r})")
    again = request(port, "PUT", "/v1/arrays/" + digest, raw, "application/octet-stream")
    check(again[0] == 200, f"PUT of a stored array is 200 ({again[0]})")
    got = request(port, "GET", "/v1/arrays/" + digest)
    check(got[0] == 200 and got[1] == "application/octet-stream" and got[2] == raw,
          f"GET gives the bytes back as application/octet-stream ({got[0]}, {got[1]})")

    s_inline, inline = post(port, "estimate", mesh)
    check(s_inline == 200 and inline.get("cached") is False,
          f"the inline estimate is computed ({s_inline})")
    by_hash = copy.deepcopy(mesh)
    by_hash["kernel"]["fields"][2]["values"] = {"sha256": digest}
    s, named = post(port, "estimate", by_hash)
    check(s == 200 and named.get("cached") is True,
          f"the estimate naming the upload is the inline one's cache entry: the same "
          f"canonical request ({s}, cached {named.get('cached')})")
    check(without_cached(named) == without_cached(inline),
          "the estimate naming the upload answers as the inline one")

    raw64 = struct.pack("<%dq" % len(values), *values)
    d64 = hashlib.sha256(raw64).hexdigest()
    put64 = request(port, "PUT", "/v1/arrays/%s?format=int64-le" % d64, raw64,
                    "application/octet-stream")
    check(put64[0] == 201 and json.loads(put64[2]).get("format") == "int64-le",
          f"PUT ?format=int64-le stores int64 ({put64[0]} {put64[2][:200]!r})")
    check_error(request(port, "PUT", "/v1/arrays/" + d64, raw64, "application/octet-stream"),
                400, "format", "stored already as int64-le",
                "stored bytes named again with another format")
    by_hash["kernel"]["fields"][2]["values"] = {"sha256": d64}
    s, named64 = post(port, "estimate", by_hash)
    check(s == 200 and named64.get("cached") is True and
          without_cached(named64) == without_cached(inline),
          f"an int64 upload of the same integers is the same request ({s})")
    return digest, inline


def orderings(port, mesh, digest):
    rank = copy.deepcopy(mesh)
    rank.pop("launch")
    rank["kernel"]["fields"][2]["values"] = {"sha256": digest}
    rank["search"] = {"blocks": [[128, 1, 1]], "orderings": ["given", "rcm", "blocks:32"]}
    s, answer = post(port, "rank", rank)
    check(s == 200 and len(answer.get("orderings", [])) == 3,
          f"the ranking with orderings answers ({s})")
    n = mesh["domain"][0]
    for o in answer.get("orderings", []):
        h = o.get("permutation_sha256", "")
        got = request(port, "GET", "/v1/arrays/" + h)
        perm = struct.unpack("<%dq" % (len(got[2]) // 8), got[2]) if got[0] == 200 else ()
        check(got[0] == 200 and hashlib.sha256(got[2]).hexdigest() == h and
              sorted(perm) == list(range(n)),
              f"{o.get('name')}: GET of its permutation_sha256 gives int64-le bytes of that "
              f"digest, a permutation of the {n} cells ({got[0]}, {len(got[2])} bytes)")


def bad_uploads(port, values):
    raw = struct.pack("<%di" % len(values), *values)
    digest = hashlib.sha256(raw).hexdigest()
    path = "/v1/arrays/" + digest
    s, _, body = request(port, "PUT", path, raw, "application/json")
    check(s == 415 and "application/octet-stream" in error(body).get("message", ""),
          f"a body sent as application/json is 415 saying what to send ({s})")
    s, _, body = request(port, "PUT", path, raw)
    check(s == 415, f"a body without a Content-Type is 415 ({s})")
    check_error(request(port, "PUT", "/v1/arrays/not-a-hash", raw, "application/octet-stream"),
                400, "sha256", "not a SHA-256", "a path that is not a SHA-256")
    check_error(request(port, "PUT", "/v1/arrays/" + digest.upper(), raw,
                        "application/octet-stream"),
                400, "sha256", "lowercase", "a SHA-256 in capitals")
    check_error(request(port, "PUT", "/v1/arrays/" + "0" * 64, raw, "application/octet-stream"),
                400, "sha256", digest, "a body whose digest is not the path's")
    odd = raw[:6]
    check_error(request(port, "PUT", "/v1/arrays/" + hashlib.sha256(odd).hexdigest(), odd,
                        "application/octet-stream"),
                400, "body", "not a whole number", "a length that is not whole int32s")
    check_error(request(port, "PUT", path + "?format=int16-le", raw, "application/octet-stream"),
                400, "format", "int64-le", "an unknown format")
    big = bytes(1024 * 1024 + 4)
    big_path = "/v1/arrays/" + hashlib.sha256(big).hexdigest()
    s, _, body = request(port, "PUT", big_path, big, "application/octet-stream", head_only=True)
    check(s == 413 and "--max-array-mb" in error(body).get("message", ""),
          f"a body over --max-array-mb is 413 naming the option ({s})")
    s, _, body = request(port, "PUT", big_path, big, "application/octet-stream", chunked=True)
    check(s == 413 and "--max-array-mb" in error(body).get("message", ""),
          f"a chunked body over --max-array-mb is 413 too ({s})")
    small = bytes(512 * 1024)
    s, _, _ = request(port, "PUT", "/v1/arrays/" + hashlib.sha256(small).hexdigest(), small,
                      "application/octet-stream")
    check(s == 201, f"an array of 512 KiB, over --max-body, is accepted on this route ({s})")
    s, _, body = request(port, "GET", "/v1/arrays/" + "1" * 64)
    check(s == 404 and error(body).get("path") == "sha256", f"GET of an unknown array is 404 ({s})")
    check_error(request(port, "GET", "/v1/arrays/xyz"), 400, "sha256", "not a SHA-256",
                "GET of a name that is not a SHA-256")


def bad_references(port, mesh, values):
    req = copy.deepcopy(mesh)
    req["kernel"]["fields"][2]["values"] = {"sha256": "2" * 64}
    s, body = post(port, "estimate", req)
    e = body.get("error", {})
    check(s == 400 and e.get("path") == NBR + ".sha256" and "PUT /v1/arrays/" in e.get("message", ""),
          f"an unknown hash is 400 naming {NBR}.sha256 and saying how to upload ({s}, {e})")
    short = struct.pack("<%di" % (len(values) - 1), *values[:-1])
    d = hashlib.sha256(short).hexdigest()
    request(port, "PUT", "/v1/arrays/" + d, short, "application/octet-stream")
    req["kernel"]["fields"][2]["values"] = {"sha256": d}
    s, body = post(port, "estimate", req)
    e = body.get("error", {})
    check(s == 400 and e.get("path") == NBR + ".sha256" and "dims" in e.get("message", ""),
          f"an array whose length does not match dims is 400 naming it ({s}, {e})")
    req["kernel"]["fields"][2]["values"] = {"sha256": "G" * 64}
    s, body = post(port, "estimate", req)
    check(s == 400 and body.get("error", {}).get("path") == NBR + ".sha256",
          f"a values.sha256 that is not a digest is 400 ({s})")
    req["kernel"]["fields"][2]["values"] = {"sha256": d, "data": values}
    s, body = post(port, "estimate", req)
    check(s == 400 and body.get("error", {}).get("path") == NBR,
          f"sha256 beside data is 400 naming the values ({s})")


def evictions(tmp, mesh, values):
    """--max-arrays-mb bounds all arrays together: past it the least recently stored or
    read go; a request naming one is refused, saying why. The bound below the largest
    upload is a start-up mistake."""
    proc, port = start(tmp, "lru", "--db", os.path.join(tmp, "lru.sqlite"),
                       "--max-array-mb", "1", "--max-arrays-mb", "1")
    try:
        names = []
        for fill in (1, 2, 3):  # three arrays of 0.4 MiB: the third needs the first's room
            raw = struct.pack("<%di" % (100 * 1024), *([fill] * (100 * 1024)))
            names.append(hashlib.sha256(raw).hexdigest())
            if fill == 3:  # the first is read again, so the second is the least recent
                request(port, "GET", "/v1/arrays/" + names[0])
            put = request(port, "PUT", "/v1/arrays/" + names[-1], raw,
                          "application/octet-stream")
            want = 1 if fill == 3 else 0
            check(put[0] == 201 and json.loads(put[2]).get("evicted") == want,
                  f"upload {fill} of 0.4 MiB under --max-arrays-mb 1 evicts {want} ({put[2][:200]!r})")
        got = [request(port, "GET", "/v1/arrays/" + n)[0] for n in names]
        check(got == [200, 404, 200],
              f"the least recently used array went, the one read again stayed ({got})")
        req = copy.deepcopy(mesh)
        req["kernel"]["fields"][2]["values"] = {"sha256": names[1]}
        s, body = post(port, "estimate", req)
        e = body.get("error", {})
        check(s == 400 and e.get("path") == NBR + ".sha256" and
              "--max-arrays-mb" in e.get("message", ""),
              f"a request naming an evicted array is 400 saying arrays are evicted ({s}, {e})")
    finally:
        stop(proc)
    bad = subprocess.run([LR, "serve", "--listen", "127.0.0.1:0", "--max-array-mb", "8",
                          "--max-arrays-mb", "4", "--no-cache"], capture_output=True, text=True,
                         timeout=30)
    check(bad.returncode == 2 and "--max-arrays-mb" in bad.stderr and "--max-array-mb" in bad.stderr,
          f"--max-arrays-mb below --max-array-mb is a usage error naming both ({bad.returncode}, "
          f"{bad.stderr[:200]!r})")


def python_client(port, mesh, values, inline, tmp):
    client = Client("http://127.0.0.1:%d" % port)
    digest = client.upload_array(values)
    raw = struct.pack("<%di" % len(values), *values)
    check(digest == hashlib.sha256(raw).hexdigest(),
          "Client.upload_array of integers returns the SHA-256 of their int32-le bytes")
    check(client.download_array(digest) == raw, "Client.download_array gives them back")
    path = os.path.join(tmp, "nbr.i64")
    with open(path, "wb") as f:
        f.write(struct.pack("<%dq" % len(values), *values))
    req = copy.deepcopy(mesh)
    req["kernel"]["fields"][2]["values"] = {"file": path, "format": "int64-le"}
    est = client.estimate(req)
    check(without_cached(est.raw) == without_cached(inline),
          "the Remote back end uploads a request's {\"file\"} values and answers as inline")
    check(req["kernel"]["fields"][2]["values"]["file"] == path,
          "the caller's request is left as it was")


def main():
    with open(MESH) as f:
        mesh = json.load(f)
    values = mesh["kernel"]["fields"][2]["values"]["data"]
    tmp = tempfile.mkdtemp(prefix="lr-arrays-")
    try:
        proc, port = start(tmp, "db", "--db", os.path.join(tmp, "db.sqlite"),
                           "--max-array-mb", "1", "--max-body", "262144")
        try:
            digest, inline = uploads_and_estimates(port, mesh, values)
            orderings(port, mesh, digest)
            bad_uploads(port, values)
            bad_references(port, mesh, values)
            python_client(port, mesh, values, inline, tmp)
        finally:
            stop(proc)
        evictions(tmp, mesh, values)
        proc, port = start(tmp, "nodb", "--no-cache")
        try:
            raw = struct.pack("<4i", 1, 2, 3, 0)
            s, _, body = request(port, "PUT", "/v1/arrays/" + hashlib.sha256(raw).hexdigest(),
                                 raw, "application/octet-stream")
            check(s == 503 and "--no-cache" in error(body).get("message", ""),
                  f"a daemon without a database answers 503 saying why ({s})")
        finally:
            stop(proc)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if FAILED:
        print("%d checks failed" % len(FAILED))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
