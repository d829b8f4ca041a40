#!/usr/bin/env python3
"""Cross-checks trit's .npy reader and writer and `trit compare` against numpy.

1. numpy writes .npy files of every kind trit reads (float16, float32,
   float64; one and two dimensions; headers 1.0, 2.0 and 3.0) and
   `trit compare --json --rows` must give numpy's own figures for each row:
   cosine similarity, max and mean |A - B| (to 1e-12), argmax (exactly).
2. The same numbers saved as JSON (a plain array of arrays and an OpenAI
   embeddings response) compare equal to the .npy file.
3. Tolerances: the row trit names is numpy's worst row, and the exit status
   flips where numpy's figure says it should.
4. Files numpy writes that trit does not read (Fortran order, integers,
   big-endian, three dimensions) are refused naming why.
5. numpy reads the files trit's writer makes (write_npy_f32) to the same
   values, and they are byte for byte what numpy.save writes.

Prints one line per check and a closing "N passed, N failed" line.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

passed = 0
failed = 0


def check(ok, what):
    global passed, failed
    print(("PASS " if ok else "FAIL ") + what, flush=True)
    if ok:
        passed += 1
    else:
        failed += 1
    return ok


def run(*args):
    return subprocess.run(list(args), capture_output=True, text=True, timeout=120)


def numpy_figures(a, b):
    """Per row of a and b (as float64): cosine, max |a-b|, its column, mean |a-b|, argmaxes."""
    a = np.atleast_2d(a.astype(np.float64))
    b = np.atleast_2d(b.astype(np.float64))
    rows = []
    for x, y in zip(a, b):
        d = np.abs(x - y)
        cos = float(x @ y / (np.linalg.norm(x) * np.linalg.norm(y)))
        rows.append({"cosine": cos, "max_abs": float(d.max()), "max_abs_column": int(d.argmax()),
                     "mean_abs": float(d.mean()), "argmax_a": int(x.argmax()), "argmax_b": int(y.argmax())})
    return rows


def close(x, y, tol=1e-12):
    return abs(x - y) <= tol * max(1.0, abs(x), abs(y))


def pair(rng, shape, dtype):
    """A and B of `shape`: B is A plus noise, one row scaled (same direction), one row's maximum moved."""
    a = rng.standard_normal(shape).astype(dtype)
    b = (a.astype(np.float64) + rng.standard_normal(shape) * 0.01).astype(dtype)
    if a.ndim == 2 and a.shape[0] >= 3:
        b[1] = a[1] * 2
        b[2, int(np.argmin(a[2]))] = a[2].max() + 1
    return a, b


def compare_json(trit, fa, fb, *extra):
    r = run(trit, "compare", fa, fb, "--json", "--rows", *extra)
    try:
        return r, json.loads(r.stdout)
    except json.JSONDecodeError:
        return r, None


def check_figures(name, got, a, b):
    want = numpy_figures(a, b)
    rows = got["per_row"]
    if not check(len(rows) == len(want), f"{name}: {len(want)} rows"):
        return
    bad = []
    for i, (g, w) in enumerate(zip(rows, want)):
        for key in ("cosine", "max_abs", "mean_abs"):
            if not close(g[key], w[key]):
                bad.append(f"row {i} {key} trit {g[key]!r} numpy {w[key]!r}")
        for key in ("max_abs_column", "argmax_a", "argmax_b"):
            if g[key] != w[key]:
                bad.append(f"row {i} {key} trit {g[key]} numpy {w[key]}")
    check(not bad, f"{name}: cosine, max/mean |A-B| and argmax of every row are numpy's" +
          (": " + "; ".join(bad[:5]) if bad else ""))
    cosines = [w["cosine"] for w in want]
    check(got["min_cosine_row"] == int(np.argmin(cosines)) and close(got["min_cosine"], min(cosines)),
          f"{name}: min cosine {got['min_cosine']:.10f} at row {got['min_cosine_row']}")
    d = np.abs(np.atleast_2d(a.astype(np.float64)) - np.atleast_2d(b.astype(np.float64)))
    check(close(got["max_abs"], float(d.max())) and close(got["mean_abs"], float(d.mean())),
          f"{name}: max |A-B| {got['max_abs']:.6g}, mean {got['mean_abs']:.6g}")
    agree = sum(w["argmax_a"] == w["argmax_b"] for w in want)
    check(got["argmax_agree"] == agree, f"{name}: argmax agrees on {agree} rows")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trit", required=True)
    ap.add_argument("--write-npy", required=True, help="the write_npy_f32 test program")
    args = ap.parse_args()
    rng = np.random.default_rng(1217)

    with tempfile.TemporaryDirectory() as tmp:
        path = lambda name: os.path.join(tmp, name)  # noqa: E731

        # 1. Every type, dimension count and header version numpy writes.
        cases = [
            ("float32 2-D, np.save", (6, 64), np.float32, None),
            ("float64 2-D, np.save", (5, 33), np.float64, None),
            ("float16 2-D, np.save", (4, 48), np.float16, None),
            ("float16 1-D, np.save", (100,), np.float16, None),
            ("float32 1-D, np.save", (7,), np.float32, None),
            ("float32 2-D, header 2.0", (3, 16), np.float32, (2, 0)),
            ("float64 2-D, header 3.0", (3, 16), np.float64, (3, 0)),
        ]
        for i, (name, shape, dtype, version) in enumerate(cases):
            a, b = pair(rng, shape, dtype)
            fa, fb = path(f"a{i}.npy"), path(f"b{i}.npy")
            for f, arr in ((fa, a), (fb, b)):
                if version is None:
                    np.save(f, arr)
                else:
                    with open(f, "wb") as out:
                        np.lib.format.write_array(out, arr, version=version)
            r, got = compare_json(args.trit, fa, fb)
            if not check(r.returncode == 0 and got is not None, f"{name}: trit compare exits 0 ({r.stderr.strip()})"):
                continue
            check(got["a"]["shape"] == list(shape), f"{name}: shape {got['a']['shape']}")
            want_version = f"{version[0]}.{version[1]}" if version else "1.0"
            want_descr = np.dtype(dtype).str
            check(got["a"]["detail"] == f"npy {want_version}, {want_descr}", f"{name}: {got['a']['detail']}")
            check_figures(name, got, a, b)

        # 2. The same numbers as JSON compare equal to the .npy file.
        a, _ = pair(rng, (4, 24), np.float32)
        np.save(path("m.npy"), a)
        rows = a.astype(np.float64).tolist()
        with open(path("m-array.json"), "w") as f:
            json.dump(rows, f)
        with open(path("m-openai.json"), "w") as f:
            json.dump({"object": "list", "model": "m",
                       "data": [{"object": "embedding", "index": i, "embedding": row} for i, row in enumerate(rows)],
                       "usage": {"prompt_tokens": 1, "total_tokens": 1}}, f)
        for name in ("m-array.json", "m-openai.json"):
            r, got = compare_json(args.trit, path("m.npy"), path(name), "--max-abs", "0")
            check(r.returncode == 0 and got is not None and got["max_abs"] == 0.0 and got["argmax_agree"] == 4,
                  f"{name} equals the .npy file exactly ({r.stderr.strip()})")

        # 3. Tolerances: numpy's worst row is named; the exit status flips at numpy's figure.
        a, b = pair(rng, (8, 32), np.float32)
        np.save(path("ta.npy"), a)
        np.save(path("tb.npy"), b)
        figs = numpy_figures(a, b)
        worst_cos = min(range(8), key=lambda i: figs[i]["cosine"])
        worst_abs = max(range(8), key=lambda i: figs[i]["max_abs"])
        lo_cos = figs[worst_cos]["cosine"]
        hi_abs = figs[worst_abs]["max_abs"]
        r = run(args.trit, "compare", path("ta.npy"), path("tb.npy"), "--min-cos", repr(lo_cos - 1e-9))
        check(r.returncode == 0, f"--min-cos just under numpy's minimum {lo_cos:.10f}: exit 0 ({r.stderr.strip()})")
        r = run(args.trit, "compare", path("ta.npy"), path("tb.npy"), "--min-cos", repr(lo_cos + 1e-9))
        check(r.returncode == 1 and f"row {worst_cos} has cosine" in r.stderr,
              f"--min-cos just over it: exit 1 naming row {worst_cos} ({r.stderr.strip()})")
        r = run(args.trit, "compare", path("ta.npy"), path("tb.npy"), "--max-abs", repr(hi_abs * (1 - 1e-9)))
        col = figs[worst_abs]["max_abs_column"]
        check(r.returncode == 1 and f"row {worst_abs} differs by" in r.stderr and f"at column {col}" in r.stderr,
              f"--max-abs just under numpy's maximum: exit 1 naming row {worst_abs}, column {col} ({r.stderr.strip()})")
        r = run(args.trit, "compare", path("ta.npy"), path("tb.npy"), "--max-abs", repr(hi_abs))
        check(r.returncode == 0, f"--max-abs at numpy's maximum {hi_abs:.6g}: exit 0 ({r.stderr.strip()})")

        # 4. What numpy writes and trit does not read is refused, saying why.
        refused = [
            ("fortran.npy", np.asfortranarray(rng.standard_normal((3, 4)).astype(np.float32)), "'fortran_order' is True"),
            ("int32.npy", np.arange(6, dtype=np.int32).reshape(2, 3), "'<i4' is an integer or boolean type"),
            ("uint8.npy", np.arange(6, dtype=np.uint8), "'|u1' is an integer or boolean type"),
            ("big.npy", np.ones((2, 3), dtype=">f4"), "'>f4' is big-endian"),
            ("cube.npy", np.ones((2, 3, 4), dtype=np.float32), "shape (2, 3, 4) has 3 dimensions"),
            ("scalar.npy", np.float32(1.0), "shape () has 0 dimensions"),
        ]
        for name, arr, why in refused:
            np.save(path(name), arr)
            r = run(args.trit, "compare", path(name), path(name))
            check(r.returncode == 1 and path(name) in r.stderr and why in r.stderr,
                  f"{name} refused: {r.stderr.strip()}")

        # 5. numpy reads what trit writes, and numpy.save writes the same bytes.
        for shape in ((3, 5), (1, 1), (0, 3), (1234, 2), (2, 100)):
            arr = rng.standard_normal(shape).astype(np.float32)
            out = path(f"trit-{shape[0]}x{shape[1]}.npy")
            r = run(args.write_npy, out, str(shape[0]), str(shape[1]), *[repr(float(v)) for v in arr.reshape(-1)])
            if not check(r.returncode == 0, f"write_npy_f32 {shape} ({r.stderr.strip()})"):
                continue
            back = np.load(out)
            check(back.dtype == np.float32 and back.shape == shape and np.array_equal(back, arr),
                  f"numpy reads trit's {shape} float32 file to the same values")
            np.save(path("numpy.npy"), arr)
            with open(out, "rb") as f1, open(path("numpy.npy"), "rb") as f2:
                check(f1.read() == f2.read(), f"trit's {shape} file is byte for byte numpy.save's")

    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
