#!/usr/bin/env python3
"""scipy_check.py: cross-checks convcompare's written results against scipy.ndimage on random inputs.

Usage:
  python3 tools/scipy_check.py CONVCOMPARE --backend opencl|cuda|cpu --device ID
      [--variants a,b,...|all] [--matrix f32|u8|lowrank|all] [--work DIR] [--jobs N]

It writes random images (PFM for float, PNG for 8-bit, 1 and 3 channels) and random filters
(file:PATH text files) with a fixed seed, runs convcompare once per (variant, image, flip) with every
border and that image's filters, reads each result image convcompare wrote under --output-dir (the
path is the JSON report's runs[].output) and compares it with scipy.ndimage.correlate (convolve with
--flip) computed in float64. convcompare's own validation is not consulted for the verdict, except that
a run it reports `failed` counts as a failure too. docs/correctness.md describes the tolerances.

Matrices:
  f32      random full-rank filters in [-1, 1] on float images in [-1, 1]
  u8       filters whose weights sum to 1 (some negative) on 8-bit images, 1 and 3 channels (RGB PNG,
           which convcompare pads to RGBA8)
  lowrank  random rank-1 and rank-2 filters (sums of outer products) on float images

Needs numpy, scipy and pillow (Debian: python3-numpy python3-scipy python3-pil).
Exit status: 0 when nothing failed and at least one run was checked, 1 otherwise, 2 for bad usage.
"""

import argparse
import concurrent.futures
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

try:
    import numpy as np
    import scipy
    import scipy.ndimage as ndimage
    from PIL import Image
except ImportError as missing:
    print(f"scipy_check: {missing}: this script needs numpy, scipy and pillow "
          f"(Debian: apt-get install python3-numpy python3-scipy python3-pil)", file=sys.stderr)
    sys.exit(2)

SEED = 20261129
BORDERS = ("zero", "clamp", "mirror", "wrap")
SIZES = ((1, 1), (1, 37), (37, 1), (5, 9), (67, 45), (100, 100), (257, 255))
# Filter radii (rx, ry): 1, 2, one asymmetric (so that a flip or a transposed window shows), a wide
# one everywhere, and a wider one only where the image is small (radius far beyond the image, where
# every border folds more than once).
RADII = ((1, 1), (2, 2), (2, 1), (9, 9))
WIDE_RADIUS = (20, 20)
WIDE_MAX_PIXELS = 67 * 45
SCIPY_MODES = {"zero": "constant", "clamp": "nearest", "mirror": "mirror", "wrap": "grid-wrap"}

# Skip reasons that are the variant's or device's documented limits, not a fault (docs/correctness.md,
# backends/launch_plan.cpp). A skip whose reason matches none of these counts as a failure.
ACCEPTED_SKIPS = (
    ("not separable", re.compile(r"not separable")),
    ("no sub-group shuffle", re.compile(r"sub-group shuffle")),
    ("no kernels for the pixel type", re.compile(r"has no \w+ kernels?")),
    ("border", re.compile(r"takes the .* border only")),
    ("image format", re.compile(r"image format")),
    ("rank/terms limit", re.compile(r"numerical rank|over the \S+ variant's \d+ terms")),
    ("API lacks the variant", re.compile(r"OpenCL has no|CUDA has no")),
    ("no tensor cores", re.compile(r"OpenCL C has no tensor-core matrix product|need compute capability 8\.0")),
    ("device limit", re.compile(r"the device allows|exceeds|the device has|needs \S+ MB")),
    ("TMA row stride", re.compile(r"tensor memory accelerator steps between rows in multiples of 16 bytes")),
    ("implementation fault", re.compile(r"PoCL \S+'s (kernel library cannot link|work-group compiler aborts)")),
)


# --- the border rule -------------------------------------------------------------------------------

def border_index(i, n, border):
    """cc_border_index of common/geometry/conv_args.h for an array of indices; -1 means a zero."""
    i = np.asarray(i)
    inside = (i >= 0) & (i < n)
    if border == "zero":
        folded = np.full_like(i, -1)
    elif border == "clamp":
        folded = np.clip(i, 0, n - 1)
    elif border == "wrap":
        folded = np.mod(i, n)
    elif n == 1:
        folded = np.zeros_like(i)
    else:  # mirror, REFLECT_101: period 2n - 2
        m = np.mod(i, 2 * n - 2)
        folded = np.where(m < n, m, 2 * n - 2 - m)
    return np.where(inside, i, folded)


def scipy_modes_that_agree():
    """The borders whose scipy mode gives cc_border_index's result for every line length and radius
    the matrices use, radius beyond the image included. Where scipy's mode differs (older scipy
    versions treat a radius past the image, or a 1-pixel line, differently), the reference pads the
    image with indices from border_index itself and lets scipy only multiply and add."""
    rng = np.random.default_rng(1)
    agree = set(BORDERS)
    lengths = sorted({n for size in SIZES for n in size} | {2, 3})
    for border in BORDERS:
        for n in lengths:
            for r in (1, 2, 9, 20):
                x, w = rng.random(n), rng.random(2 * r + 1)
                index = border_index(np.arange(n)[:, None] + np.arange(-r, r + 1)[None, :], n, border)
                taps = np.where(index >= 0, x[np.maximum(index, 0)], 0.0)
                expected = taps @ w
                got = ndimage.correlate1d(x, w, mode=SCIPY_MODES[border], cval=0.0)
                if not np.allclose(expected, got, rtol=1e-12, atol=1e-12):
                    agree.discard(border)
    return agree


SCIPY_AGREES = set()


def correlate(planes, weights, border):
    """Correlation of each (H, W) plane of `planes` (C, H, W) with `weights` (float64) under `border`."""
    ry, rx = weights.shape[0] // 2, weights.shape[1] // 2
    out = np.empty(planes.shape, dtype=np.float64)
    for c, plane in enumerate(planes):
        if border in SCIPY_AGREES:
            out[c] = ndimage.correlate(plane, weights, mode=SCIPY_MODES[border], cval=0.0)
            continue
        h, w = plane.shape
        rows = border_index(np.arange(-ry, h + ry), h, border)
        cols = border_index(np.arange(-rx, w + rx), w, border)
        padded = np.pad(plane, 1)[rows[:, None] + 1, cols[None, :] + 1]  # index -1 reads the zero pad
        full = ndimage.correlate(padded, weights, mode="constant", cval=0.0)
        out[c] = full[ry:ry + h, rx:rx + w]
    return out


# --- inputs ------------------------------------------------------------------------------------------

def write_pfm(path, planes):
    c, h, w = planes.shape
    data = np.ascontiguousarray(np.transpose(planes, (1, 2, 0))[::-1], dtype="<f4")  # rows bottom to top
    with open(path, "wb") as f:
        f.write(f"{'Pf' if c == 1 else 'PF'}\n{w} {h}\n-1.0\n".encode())
        f.write(data.tobytes())


def read_pfm(path):
    with open(path, "rb") as f:
        kind = f.readline().strip()
        w, h = map(int, f.readline().split())
        scale = float(f.readline())
        c = 1 if kind == b"Pf" else 3
        data = np.frombuffer(f.read(), dtype="<f4" if scale < 0 else ">f4")
    return np.transpose(data.reshape(h, w, c)[::-1], (2, 0, 1)).astype(np.float64)


def write_png(path, planes):
    c = planes.shape[0]
    pixels = planes[0] if c == 1 else np.transpose(planes, (1, 2, 0))
    Image.fromarray(pixels.astype(np.uint8), "L" if c == 1 else "RGB").save(path)


def read_png(path):
    pixels = np.asarray(Image.open(path)).astype(np.float64)
    return pixels[None] if pixels.ndim == 2 else np.transpose(pixels, (2, 0, 1))


def read_image(path):
    return read_pfm(path) if path.endswith(".pfm") else read_png(path)


def write_filter(path, weights):
    h, w = weights.shape
    lines = [f"{w} {h}"] + [" ".join(repr(float(v)) for v in row) for row in weights]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


class Problem:
    """One image and its filters, for one pixel type: what one convcompare call (per variant, flip) runs."""

    def __init__(self, name, image_path, planes, pixel, filters):
        self.name, self.image_path, self.planes, self.pixel = name, image_path, planes, pixel
        self.filters = filters  # "file:PATH" -> float64 weights (float32 values, as convcompare reads them)
        self.cache = {}  # (filter bytes, border, flip) -> (reference, magnitude): the same for every variant
        self.lock = threading.Lock()

    def correlations(self, weights, border, flip):
        """The reference and sum(|w| * |window|) per pixel, computed once for all variants."""
        key = (weights.tobytes(), weights.shape, border, flip)
        with self.lock:
            if key in self.cache:
                return self.cache[key]
        found = (correlate(self.planes, weights, border), correlate(np.abs(self.planes), np.abs(weights), border))
        with self.lock:
            return self.cache.setdefault(key, found)


def radii_for(width, height):
    return RADII + ((WIDE_RADIUS,) if width * height <= WIDE_MAX_PIXELS else ())


def random_filter(rng, matrix, rx, ry, index):
    shape = (2 * ry + 1, 2 * rx + 1)
    if matrix == "f32":
        weights = rng.uniform(-1, 1, shape)
    elif matrix == "u8":
        weights = rng.uniform(-0.25, 1, shape)
        weights /= weights.sum()
    else:  # lowrank: rank 1 for the even filters, rank 2 for the odd ones
        rank = 1 + index % 2
        weights = sum(np.outer(rng.uniform(-1, 1, shape[0]), rng.uniform(-1, 1, shape[1])) for _ in range(rank))
    return weights.astype(np.float32).astype(np.float64)


def make_problems(matrix, work):
    rng = np.random.default_rng([SEED, ("f32", "u8", "lowrank").index(matrix)])
    directory = os.path.join(work, "inputs", matrix)
    os.makedirs(directory, exist_ok=True)
    problems = []
    shapes = [(w, h, 1) for w, h in SIZES]
    if matrix != "lowrank":
        shapes += [(w, h, 3) for w, h in SIZES if matrix == "u8" or (w, h) == (67, 45)]
    for width, height, channels in shapes:
        name = f"{width}x{height}x{channels}"
        if matrix == "u8":
            planes = rng.integers(0, 256, (channels, height, width)).astype(np.float64)
            image_path = os.path.join(directory, name + ".png")
            write_png(image_path, planes)
            pixel = "u8"
        else:
            planes = rng.uniform(-1, 1, (channels, height, width)).astype(np.float32).astype(np.float64)
            image_path = os.path.join(directory, name + ".pfm")
            write_pfm(image_path, planes)
            pixel = "f32"
        filters = {}
        for index, (rx, ry) in enumerate(radii_for(width, height)):
            path = os.path.join(directory, f"{name}_filter{index}_{2 * rx + 1}x{2 * ry + 1}.txt")
            weights = random_filter(rng, matrix, rx, ry, index)
            write_filter(path, weights)
            filters["file:" + path] = weights
        problems.append(Problem(name, image_path, planes, pixel, filters))
    return problems


# --- the reference and the tolerance -------------------------------------------------------------------

def truncated_terms(weights, terms):
    """The sum of a rank-`terms` SVD's |column|_1 |row|_1 (the lowrank rounding term's scale) and the
    residual the truncation leaves (docs/correctness.md, the lowrank and separable variants)."""
    u, s, vt = np.linalg.svd(weights)
    approximation = (u[:, :terms] * s[:terms]) @ vt[:terms]
    scale = sum(s[k] * np.abs(u[:, k]).sum() * np.abs(vt[k]).sum() for k in range(terms))
    return scale, weights - approximation


def reference_and_tolerance(problem, weights, border, flip, variant, terms):
    """The float64 reference and each pixel's bound: 1e-5 * sum(|w| * |window|) + 1e-6.

    sum(|w| * |window|) bounds every partial sum the pixel's kernel forms; 1e-5 is about 84 float
    ulps of it, the project's rounding allowance (c = max(8, taps / 2 + 1) ulps, docs/correctness.md)
    for filters up to ~170 taps and, on these random-signed inputs, far more than any real rounding
    at 41x41. Unlike the project's bound it is per pixel, so a wrong pixel in a quiet region is not
    hidden by the image's largest value. Variants that compute another way get the project's extra
    terms: separable and lowrank the truncation residual and the terms' magnitudes, fft its
    16 * log2(N) * FLT_EPSILON * sum|w| * max|x| spread over the whole plane."""
    if flip:
        weights = weights[::-1, ::-1]
    reference, magnitude = problem.correlations(weights, border, flip)
    tolerance = 1e-5 * magnitude + 1e-6
    if variant in ("separable", "lowrank", "npp-separable"):
        terms = terms or (1 if variant != "lowrank" else variant_terms(weights))
        scale, residual = truncated_terms(weights, terms)
        tolerance = (1e-5 * max(1.0, scale / np.abs(weights).sum()) * magnitude + 1e-6
                     + correlate(np.abs(problem.planes), np.abs(residual), border))
    elif variant == "fft":
        ry, rx = weights.shape[0] // 2, weights.shape[1] // 2
        _, h, w = problem.planes.shape
        n = (w + 2 * rx) * (h + 2 * ry)
        spread = 16 * max(1.0, math.log2(n)) * np.finfo(np.float32).eps * np.abs(weights).sum() * np.abs(
            problem.planes).max()
        tolerance = np.maximum(tolerance, spread)
    return reference, tolerance


def variant_terms(weights):
    """The numerical rank lowrank uses: singular values above 1e-6 of the largest (at most 4)."""
    s = np.linalg.svd(weights, compute_uv=False)
    return int(min(4, max(1, np.count_nonzero(s > 1e-6 * s[0]))))


# NPP rounds its 8-bit results its own way, which NPP does not document (docs/correctness.md, "NPP's
# 8-bit baselines"): levels either side of the exact value saturated to 0..255, beyond the bound.
def npp_levels(variant, weights):
    if variant == "npp":
        return 1.0
    if variant == "npp-separable":
        return 1.0 + float(np.abs(weights).sum())  # the first pass's rounding, weighed by the second's |w|
    return 0.0


def compare(problem, output, reference, tolerance, npp_slack=0.0):
    """(passed, max error, worst error / tolerance, first bad pixel or None)."""
    if problem.pixel == "u8" and npp_slack > 0:
        exact = np.clip(reference, 0, 255)
        error = np.abs(output - exact)
        bad = error > npp_slack + tolerance
        ratio = float(error.max()) if error.size else 0.0
    elif problem.pixel == "u8":
        # The kernels round half to even and saturate (common/geometry/pixel.h); a level either side
        # is right only where the float sum lies within rounding reach of an x.5 boundary.
        reach = np.maximum(1e-3, tolerance)
        low = np.clip(np.rint(reference - reach), 0, 255)
        high = np.clip(np.rint(reference + reach), 0, 255)
        error = np.abs(output - np.clip(np.rint(reference), 0, 255))
        bad = (output < low) | (output > high)
        ratio = float(error.max()) if error.size else 0.0
    else:
        error = np.abs(output - reference)
        error = np.where(np.isnan(output), np.inf, error)
        bad = ~(error <= tolerance)
        ratio = float((error / tolerance).max())
    first = None
    if bad.any():
        c, y, x = (int(v) for v in np.argwhere(bad)[0])
        first = f"channel {c} pixel (x {x}, y {y}): {output[c, y, x]!r}, scipy {reference[c, y, x]!r}"
    return not bad.any(), float(error.max()), ratio, first


# --- running convcompare ---------------------------------------------------------------------------------

class Tally:
    def __init__(self):
        self.checked = self.passed = self.failed = self.skipped = self.pixels = 0
        self.max_error = 0.0
        self.worst_ratio = 0.0
        self.notes = []
        self.skip_reasons = {}


def accepted_skip(reason):
    for label, pattern in ACCEPTED_SKIPS:
        if pattern.search(reason):
            return label
    return None


def variant_that_ran(run):
    """The variant whose tolerance applies: auto names its choice in compile_time (docs/json-schema.md)."""
    if run["variant"] != "auto":
        return run["variant"]
    if run.get("terms"):
        return "lowrank"
    chosen = re.findall(r"\b(fft|separable|lowrank)\b", run.get("compile_time") or "")
    return chosen[0] if chosen else "auto"


def run_one(args, variant, problem, flip, work, tally, lock):
    tag = f"{variant}/{problem.pixel}/{problem.name}{'/flip' if flip else ''}"
    out_dir = os.path.join(work, "out", variant, problem.pixel + "_" + problem.name + ("_flip" if flip else ""))
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    report = os.path.join(out_dir, "report.json")
    command = [args.convcompare, "--backend", args.backend, "--device", args.device, "--variant", variant,
               "--image", problem.image_path, "--pixel", problem.pixel, "--border", ",".join(BORDERS),
               "--repetitions", "1", "--warmup", "0", "--no-peaks", "--quiet", "--output-dir", out_dir,
               "--output-format", "png" if problem.pixel == "u8" else "pfm", "--json", report]
    for spec in problem.filters:
        command += ["--filter", spec]
    if flip:
        command.append("--flip")
    environment = dict(os.environ, CONVCOMPARE_CACHE_DIR=os.path.join(work, "tuning-cache"))
    planned = len(problem.filters) * len(BORDERS)
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout, env=environment)
    except subprocess.TimeoutExpired:
        with lock:
            tally.failed += planned
            tally.notes.append(f"{tag}: convcompare took over {args.timeout} s; its {planned} runs count as failed")
        return
    stderr = done.stderr.strip()
    everything_skipped = re.search(r"nothing ran: every run was skipped \((.*)\)\s*$", stderr, re.S)
    if done.returncode == 2 and everything_skipped:
        reason = everything_skipped.group(1)
        runs = [{"status": "skipped", "reason": reason}] * planned
    elif done.returncode in (0, 1) and os.path.exists(report):
        with open(report) as f:
            runs = json.load(f)["runs"]
    else:
        with lock:
            tally.failed += planned
            tail = stderr.splitlines()[-1] if stderr else "no message"
            tally.notes.append(f"{tag}: convcompare exited {done.returncode} ({tail}); "
                               f"its {planned} runs count as failed")
        return

    for run in runs:
        status = run["status"]
        if status == "skipped":
            label = accepted_skip(run["reason"])
            with lock:
                if label:
                    tally.skipped += 1
                    tally.skip_reasons[label] = tally.skip_reasons.get(label, 0) + 1
                else:
                    tally.failed += 1
                    tally.notes.append(f"{tag}: unexpected skip ({run['reason']})")
            continue
        where = f"{tag} {run['border']} {os.path.basename(run['filter'])}"
        problem_ok = run["flip"] == flip and run["pixel"] == problem.pixel and run["filter"] in problem.filters
        if not problem_ok or not run.get("output"):
            with lock:
                tally.failed += 1
                tally.notes.append(f"{where}: {status} run with no result image or an unknown problem")
            continue
        ran = variant_that_ran(run)
        reference, tolerance = reference_and_tolerance(problem, problem.filters[run["filter"]], run["border"],
                                                       flip, ran, run.get("terms"))
        output = read_image(run["output"])
        if output.shape != reference.shape:
            passed, error, ratio, first = False, math.inf, math.inf, (
                f"result is {output.shape}, scipy's {reference.shape} (channels, rows, columns)")
        else:
            passed, error, ratio, first = compare(problem, output, reference, tolerance,
                                                  npp_levels(ran, problem.filters[run["filter"]]))
        with lock:
            tally.checked += 1
            tally.pixels += reference[0].size
            tally.max_error = max(tally.max_error, error)
            tally.worst_ratio = max(tally.worst_ratio, ratio)
            if not passed:
                tally.failed += 1
                tally.notes.append(f"{where}: differs from scipy, max error {error:.3g}; first at {first}")
            elif status != "ok":
                tally.failed += 1
                tally.notes.append(f"{where}: convcompare reports {status} ({run['reason']}) though scipy agrees")
            else:
                tally.passed += 1


def implemented_variants(convcompare, backend):
    """The variants `convcompare --list` says the backend (or the driver, for auto) implements."""
    listing = subprocess.run([convcompare, "--list"], capture_output=True, text=True).stdout
    section = listing.split("\nVariants", 1)[-1].split("Filters:", 1)[0]
    variants = []
    for line in section.splitlines():
        found = re.match(r"\s+(\S+)\s.*\[([^\]]*)\]", line)
        if found and (backend in [b.strip() for b in found.group(2).split(",")] or "driver" in found.group(2)):
            variants.append(found.group(1))
    return variants


def main():
    parser = argparse.ArgumentParser(description="Cross-check convcompare's results against scipy.ndimage.")
    parser.add_argument("convcompare", help="the convcompare binary")
    parser.add_argument("--backend", required=True, choices=("opencl", "cuda", "cpu"))
    parser.add_argument("--device", required=True, help="a device id: opencl:P:D, cuda:N or cpu")
    parser.add_argument("--variants", default="all", help="comma list, or all (every variant the backend has)")
    parser.add_argument("--matrix", default="all", choices=("f32", "u8", "lowrank", "all"))
    parser.add_argument("--work", help="where inputs and results go (default: a temporary directory, removed)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="convcompare calls at a time")
    parser.add_argument("--timeout", type=int, default=600, help="seconds one convcompare call may take")
    args = parser.parse_args()
    args.convcompare = os.path.abspath(args.convcompare)
    if not os.access(args.convcompare, os.X_OK):
        parser.error(f"{args.convcompare} is not an executable")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")

    available = implemented_variants(args.convcompare, args.backend)
    if args.variants == "all":
        variants = available
    else:
        variants = [v for v in args.variants.split(",") if v]
        unknown = [v for v in variants if v not in available]
        if unknown:
            parser.error(f"the {args.backend} backend has no variant {', '.join(unknown)} "
                         f"(it has {', '.join(available)})")
    matrices = ("f32", "u8", "lowrank") if args.matrix == "all" else (args.matrix,)

    SCIPY_AGREES.update(scipy_modes_that_agree())
    folded = sorted(set(BORDERS) - SCIPY_AGREES)
    print(f"scipy_check: scipy {scipy.__version__}, numpy {np.__version__}; borders through scipy's modes: "
          f"{', '.join(b for b in BORDERS if b in SCIPY_AGREES) or 'none'}"
          f"{'; folded here: ' + ', '.join(folded) if folded else ''}", flush=True)

    temporary = None if args.work else tempfile.mkdtemp(prefix="scipy_check.")
    work = os.path.abspath(args.work or temporary)
    os.makedirs(work, exist_ok=True)
    try:
        problems = {matrix: make_problems(matrix, work) for matrix in matrices}
        tallies = {(v, m): Tally() for v in variants for m in matrices}
        lock = threading.Lock()
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            futures = [pool.submit(run_one, args, variant, problem, flip, work, tallies[(variant, matrix)], lock)
                       for variant in variants for matrix in matrices for problem in problems[matrix]
                       for flip in (False, True)]
            for future in concurrent.futures.as_completed(futures):
                future.result()
    finally:
        if temporary:
            shutil.rmtree(temporary, ignore_errors=True)

    passed = failed = skipped = 0
    for (variant, matrix), tally in tallies.items():
        skips = ", ".join(f"{label} {count}" for label, count in sorted(tally.skip_reasons.items()))
        error_unit = "levels" if matrix == "u8" else f"(worst {tally.worst_ratio:.2g} of the bound)"
        print(f"{variant:14} {matrix:8} checked {tally.checked:4} runs, {tally.pixels:9} pixels, "
              f"max error {tally.max_error:.3g} {error_unit}, failures {tally.failed}"
              f"{', skipped ' + str(tally.skipped) + ' (' + skips + ')' if tally.skipped else ''}")
        for note in tally.notes[:10]:
            print(f"    {note}")
        if len(tally.notes) > 10:
            print(f"    ... and {len(tally.notes) - 10} more")
        failed += tally.failed
        skipped += tally.skipped
        passed += tally.passed
    print(f"scipy_check: {passed} passed, {failed} failed, {skipped} skipped")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
