#!/usr/bin/env python3
"""diagrams.py: the pictures of docs/memory-spaces.md (docs/img/*.svg), drawn from the project's own shape constants.

  diagrams.py            write docs/img/*.svg
  diagrams.py --check    exit 1 when a file in docs/img differs from what this script draws (CI, ctest)

Standard library only, deterministic (no dates, no randomness, fixed number formatting). The shapes come from
the headers the kernels and hosts share (common/geometry/tile_shape.h, fast_shape.h, separable_shape.h,
kernels_cuda/launchers.h) and the border rule from conv_args.h, read here with regular expressions, so a change of
a constant there changes the picture, and --check says the picture is stale. The hierarchy's measured figures are
read from docs/performance.md and docs/memory-spaces.md's own tables, never typed here.
"""
import math
from fractions import Fraction
import pathlib
import re
import sys

import bank_model

REPO = pathlib.Path(__file__).resolve().parent.parent
GEOMETRY = REPO / "common" / "geometry"
IMG = REPO / "docs" / "img"

COLOURS = dict(output="#4e79a7", apron="#f28e2b", corner="#e15759", idle="#bab0ac", outside="#eeeeee",
               thread="#59a14f", window="#edc948", band="#76b7b2", done="#b07aa1", line="#333333", grid="#ffffff")


# --- the constants, from the headers ------------------------------------------------------------------------

def header(name):
    return (GEOMETRY / name).read_text()


def constant(text, name):
    return int(re.search(rf"\b{name}\s*=\s*(\d+)(?:\s*\*\s*(\d+))?", text).group(1)) * int(
        re.search(rf"\b{name}\s*=\s*(\d+)(?:\s*\*\s*(\d+))?", text).group(2) or 1)


def pairs(text, pattern):
    body = re.search(pattern, text, re.S).group(1)
    return [(int(x), int(y)) for x, y in re.findall(r"\{(\d+),\s*(\d+)\}", body)]


def shapes():
    tile = header("tile_shape.h")
    fast = header("fast_shape.h")
    separable = header("separable_shape.h")
    return dict(
        tile_groups=pairs(tile, r"kTileGroups\[\]\s*=\s*\{(.*?)\};"),
        rows_radius=constant(fast, "kFastRowsRadius"),
        tall_radius=constant(fast, "kFastTallRowsRadius"),
        max_radius=constant(fast, "kFastMaxRadius"),
        warp_wide=pairs(fast, r"fast_warp_wide_blocks\(\).*?blocks(\{.*?\});"),
        tall_rows=pairs(fast, r"fast_tall_row_blocks\(\).*?blocks(\{.*?\});"),
        wide_rows=pairs(fast, r"fast_wide_row_blocks\(\).*?blocks(\{.*?\});"),
        min_band=constant(separable, "kSeparableMinBand"),
        portable_bytes=constant(separable, "kSeparablePortableBytes"),
        cluster_groups=pairs(tile, r"kClusterGroups\s*=\s*(\{\d+,\s*\d+\})")[0],
        constant_taps=constant((REPO / "kernels_cuda" / "launchers.h").read_text(), "kMaxConstantTaps"),
    )


def separable_shape(radius, portable_bytes, min_band):
    """separable_shape.h's choice for a square radius on a large device (no work-group limit), within the
    portable 48 KB: the same tiles, the same cost model (separable_slots_per_output), the same search."""
    if radius <= 4:
        tiles = [(256, 64, 32)]
    elif radius <= 8:
        tiles = [(256, 64, 64)]
    else:
        tiles = [(128, 32, 128), (64, 32, 64)]
    best = None
    for threads, tile_w, tile_h in tiles:
        rows_needed = tile_h + 2 * radius
        bands = 1
        while math.ceil(rows_needed / bands) >= min_band:
            band = math.ceil(rows_needed / bands)
            in_pitch = (tile_w + 2 * radius) | 1
            bytes_ = (band * in_pitch + band * bands * (tile_w + 1)) * 4
            if bytes_ <= portable_bytes:
                rounds = lambda items: math.ceil(items / threads)  # noqa: E731
                staged = bands * rounds(band * (tile_w + 2 * radius)) * 5.0
                row_item = (8 + 2 * radius) + 8 * (2 * radius + 1) + 8 + 8
                rows = bands * rounds(band * tile_w / 8) * row_item
                columns = rounds(tile_w * tile_h / 8) * row_item
                cost = (staged + rows + columns) * threads / (tile_w * tile_h)
                if best is None or cost < best[0]:
                    best = (cost, dict(threads=threads, tile_w=tile_w, tile_h=tile_h, band=band, bands=bands,
                                       bytes=bytes_))
            bands += 1
    return best[1]


def border_index(i, n, mode):
    """conv_args.h's cc_border_index (-1: the zero border)."""
    if 0 <= i < n:
        return i
    if mode == "zero":
        return -1
    if mode == "clamp":
        return 0 if i < 0 else n - 1
    if mode == "wrap":
        return i % n
    period = 2 * n - 2  # mirror: REFLECT_101
    m = i % period
    return m if m < n else period - m


# --- the measured figures, from the pages' own tables -----------------------------------------------------------

DOCS = REPO / "docs"


def generated_block(text, name):
    return text.split(f"<!-- generated: {name} -->\n", 1)[1].split("<!-- end generated -->", 1)[0]


def table_rows(block):
    """A markdown table's rows as dicts by header, the first table of the block (later tables append theirs)."""
    rows, header = [], None
    for line in block.splitlines():
        if not line.startswith("|"):
            header = None if rows else header
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = cells
        elif not set(cells[0]) <= set("-"):
            rows.append(dict(zip(header, cells)))
    return rows


def measured():
    """What the hierarchy figure quotes: docs/performance.md's device line, header and host-to-host table, and
    docs/memory-spaces.md's profiler and ptxas tables (an H100; the figures change when those tables do)."""
    perf = (DOCS / "performance.md").read_text()
    page = (DOCS / "memory-spaces.md").read_text()
    head = re.search(r"\((NVIDIA H100 (\d+)GB[^,]*), (\d+) SMs, (\d+) MB L2", perf)
    copy = re.search(r"`cuda:0` [^:]*: copy kernel (\d+) GB/s", perf)
    host = next(r for r in table_rows(perf.split("#### Host to host with overlap (--stream)", 1)[1])
                if r["backend"] == "cuda" and r["memory"] == "pinned")
    ncu = generated_block(page, "ncu")
    r3 = table_rows(ncu.split("**r = 3**", 1)[1].split("**r = 12**", 1)[0])
    r12 = table_rows(ncu.split("**r = 12**", 1)[1])
    mix = {r[next(iter(r))]: r for r in table_rows(generated_block(page, "ncu-mix"))}
    tiled12 = next(r for r in r12 if r["kernel"] == "tiled")
    global3 = next(r for r in r3 if r["kernel"] == "global")
    registers = [int(r["registers"]) for r in table_rows(generated_block(page, "ptxas"))]
    return dict(
        gpu=head.group(1), dram_gb=int(head.group(2)), sms=int(head.group(3)), l2_mb=int(head.group(4)),
        copy_gbs=int(copy.group(1)),
        host_floor_ms=float(host["PCIe floor ms/frame"]), host_size=host["size"],
        shared_wavefronts=int(tiled12["shared wavefronts"]), shared_us=float(tiled12["time µs"]),
        l1_sectors=int(mix["global, r = 3"]["L1 global-load sectors"]), l1_us=float(global3["time µs"]),
        registers=(min(registers), max(registers)))


# --- a tiny SVG writer ----------------------------------------------------------------------------------------

class Svg:
    def __init__(self, width, height):
        self.width, self.height, self.items = width, height, []

    def rect(self, x, y, w, h, fill, stroke="none", width=1.0, opacity=None):
        extra = f' fill-opacity="{opacity}"' if opacity is not None else ""
        self.items.append(f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" fill="{fill}" '
                          f'stroke="{stroke}" stroke-width="{width:g}"{extra}/>')

    def line(self, x1, y1, x2, y2, stroke=COLOURS["line"], width=1.0, dash=None):
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        self.items.append(f'<line x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" stroke="{stroke}" '
                          f'stroke-width="{width:g}"{extra}/>')

    def text(self, x, y, s, size=12, anchor="start", weight="normal", fill="#000000"):
        s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        self.items.append(f'<text x="{x:g}" y="{y:g}" font-size="{size}" text-anchor="{anchor}" '
                          f'font-weight="{weight}" fill="{fill}">{s}</text>')

    def grid(self, x, y, columns, rows, cell, colour):
        for c in range(columns + 1):
            self.line(x + c * cell, y, x + c * cell, y + rows * cell, colour, 0.5)
        for r in range(rows + 1):
            self.line(x, y + r * cell, x + columns * cell, y + r * cell, colour, 0.5)

    def legend(self, x, y, entries):
        for i, (colour, label) in enumerate(entries):
            self.rect(x, y + i * 18, 12, 12, colour, COLOURS["line"], 0.5)
            self.text(x + 18, y + i * 18 + 10, label, 11)

    def render(self):
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{self.height}" '
                f'viewBox="0 0 {self.width} {self.height}" font-family="DejaVu Sans, Arial, sans-serif">\n'
                f'<rect width="100%" height="100%" fill="#ffffff"/>\n' + "\n".join(self.items) + "\n</svg>\n")


# --- the pictures ---------------------------------------------------------------------------------------------

def tile_svg(s):
    """tiled: a block's outputs, its apron, the four corners, and the rounds its threads load the tile in."""
    gx, gy = s["tile_groups"][0]
    r = 3
    tw, th = gx + 2 * r, gy + 2 * r
    cell = 12
    svg = Svg(2 * tw * cell + 220, th * cell + 90)
    svg.text(10, 20, f"tiled: one {gx} x {gy} block, r = {r}: a {tw} x {th} tile in __shared__ / __local memory", 14,
             weight="bold")
    ox, oy = 10, 40
    for ty in range(th):
        for tx in range(tw):
            inside_x, inside_y = r <= tx < r + gx, r <= ty < r + gy
            colour = (COLOURS["output"] if inside_x and inside_y else
                      COLOURS["corner"] if not inside_x and not inside_y else COLOURS["apron"])
            svg.rect(ox + tx * cell, oy + ty * cell, cell, cell, colour)
    svg.grid(ox, oy, tw, th, cell, COLOURS["grid"])
    svg.rect(ox, oy, tw * cell, th * cell, "none", COLOURS["line"], 1.5)
    svg.text(ox, oy + th * cell + 18, "what one block needs: its outputs, the apron on every side,", 11)
    svg.text(ox, oy + th * cell + 32, "and the four corners (loading the apron as side strips loses one)", 11)
    # the load rounds: index i = ly * gx + lx + round * gx * gy walks the tile row by row
    threads = gx * gy
    rounds = math.ceil(tw * th / threads)
    ox2 = ox + tw * cell + 120
    shades = ["#9ecae1", "#4292c6", "#08519c", "#08306b"]
    for i in range(tw * th):
        svg.rect(ox2 + (i % tw) * cell, oy + (i // tw) * cell, cell, cell, shades[min(i // threads, len(shades) - 1)])
    svg.grid(ox2, oy, tw, th, cell, COLOURS["grid"])
    svg.rect(ox2, oy, tw * cell, th * cell, "none", COLOURS["line"], 1.5)
    idle = rounds * threads - tw * th
    svg.text(ox2, oy + th * cell + 18, f"the load: {threads} threads walk the {tw * th} pixels in {rounds} rounds", 11)
    svg.text(ox2, oy + th * cell + 32, f"(i += {threads}); in the last, {threads - idle} load and {idle} wait", 11)
    svg.legend(ox + tw * cell + 8, oy + 4, [(COLOURS["output"], "out"), (COLOURS["apron"], "apron"),
                                            (COLOURS["corner"], "corner")])
    svg.legend(ox + tw * cell + 8, oy + 80, [(shades[k], f"round {k + 1}") for k in range(rounds)])
    return svg.render()


def load_rounds(tile_w, tile_h, threads):
    """The round of each tile pixel (row by row) in tiled.cu / tiled.cl's load loop: the thread of flat index t
    loads i = t, t + threads, ..., so pixel i is loaded in round i // threads."""
    rounds = [None] * (tile_w * tile_h)
    for t in range(threads):
        for k, i in enumerate(range(t, tile_w * tile_h, threads)):
            rounds[i] = k
    return rounds


def idle_svg(s):
    """Idle threads: seed 004's one-thread-per-tile-pixel block against ours, and the blocks at the image's edge."""
    gx, gy = s["tile_groups"][0]
    r = 16
    tw = gx + 2 * r
    cell = 4
    svg = Svg(940, 310)
    svg.text(10, 20, f"Idle threads at r = {r} ({gx} x {gy} outputs per block)", 14, weight="bold")
    ox, oy = 10, 40
    svg.rect(ox, oy, tw * cell, tw * cell, COLOURS["idle"])
    svg.rect(ox + r * cell, oy + r * cell, gx * cell, gy * cell, COLOURS["output"])
    svg.rect(ox, oy, tw * cell, tw * cell, "none", COLOURS["line"], 1.5)
    svg.text(ox, oy + tw * cell + 16, f"seed 004, figure 5: {tw} x {tw} threads,", 11)
    svg.text(ox, oy + tw * cell + 30, "one per tile pixel; after the load only", 11)
    svg.text(ox, oy + tw * cell + 44, f"{gx * gy} of {tw * tw} compute (1/{tw * tw // (gx * gy)})", 11)
    # ours: the tiled kernels' one loop, i = ly * gx + lx, i += gx * gy, over the tw x tw tile (load_rounds)
    ox2 = ox + tw * cell + 70
    threads = gx * gy
    rounds = load_rounds(tw, tw, threads)
    shades = ["#c6dbef", "#6baed6"]
    for row in range(tw):  # one rect per run of a round within a row: a round ends mid-row
        start = 0
        for col in range(1, tw + 1):
            if col == tw or rounds[row * tw + col] != rounds[row * tw + start]:
                svg.rect(ox2 + start * cell, oy + row * cell, (col - start) * cell, cell,
                         shades[rounds[row * tw + start] % 2])
                start = col
    for k in range(max(rounds) + 1):
        first = k * threads
        svg.text(ox2 + tw * cell + 4, oy + (first // tw) * cell + 8, f"{k + 1}", 9)
    svg.rect(ox2, oy, tw * cell, tw * cell, "none", COLOURS["line"], 1.5)
    n_rounds = max(rounds) + 1
    svg.text(ox2, oy + tw * cell + 16, f"ours: {threads} threads walk the {tw} x {tw} tile", 11)
    per_round = Fraction(threads, tw)
    whole, part = divmod(per_round, 1)
    svg.text(ox2, oy + tw * cell + 30, f"(i += {threads}): {n_rounds} rounds of {whole}"
             f"{f' {part}' if part else ''} rows each,", 11)
    svg.text(ox2, oy + tw * cell + 44, f"then all {threads} compute an output", 11)
    # the image's edge: a 40-pixel-wide image in blocks of gx
    ox3, width, blocks = ox2 + tw * cell + 90, 40, 3
    c3 = 4
    for b in range(blocks):
        for t in range(gx):
            x = b * gx + t
            svg.rect(ox3 + x * c3, oy, c3, gy * c3, COLOURS["output"] if x < width else COLOURS["idle"])
        svg.rect(ox3 + b * gx * c3, oy, gx * c3, gy * c3, "none", COLOURS["line"], 1)
    svg.line(ox3 + width * c3, oy - 6, ox3 + width * c3, oy + gy * c3 + 6, COLOURS["corner"], 2)
    svg.text(ox3, oy + gy * c3 + 20, f"an image {width} pixels wide, blocks of {gx}:", 11)
    svg.text(ox3, oy + gy * c3 + 34, f"the last block's {blocks * gx - width} threads past the edge", 11)
    svg.text(ox3, oy + gy * c3 + 48, "load their share, then return after the barrier", 11)
    return svg.render()


def fast_svg(s):
    """fast's schemes: quads (4 x 4 outputs per thread from global memory) and rows (8 x 4 / 8 x 2 from a tile)."""
    qx, qy = s["warp_wide"][0]
    tx, ty = s["tall_rows"][0]
    wx, wy = s["wide_rows"][0]
    svg = Svg(800, 420)
    svg.text(10, 20, "fast: one scheme per radius (common/geometry/fast_shape.h)", 14, weight="bold")
    # quads: one thread's 4 x 4 outputs and the 12 x (4 + 2r) window it reads, r = 3
    r, cell, ox, oy = 3, 14, 10, 72
    svg.text(ox, oy - 28, f"quads, r < {s['rows_radius']}", 12, weight="bold")
    svg.text(ox, oy - 12, f"{qx} x {qy} threads, 4 x 4 outputs each (r = {r})", 11)
    for row in range(4 + 2 * r):
        for col in range(12):
            svg.rect(ox + col * cell, oy + row * cell, cell, cell, COLOURS["window"])
    for row in range(4):
        for col in range(4):
            svg.rect(ox + (4 + col) * cell, oy + (r + row) * cell, cell, cell, COLOURS["output"])
    svg.grid(ox, oy, 12, 4 + 2 * r, cell, COLOURS["grid"])
    for k in range(3):
        svg.rect(ox + 4 * k * cell, oy, 4 * cell, (4 + 2 * r) * cell, "none", COLOURS["line"], 1.2)
    y = oy + (4 + 2 * r) * cell
    svg.text(ox, y + 16, "per input row: three 16-byte loads (left, centre,", 11)
    svg.text(ox, y + 30, "right quad) straight from global memory; L1", 11)
    svg.text(ox, y + 44, f"serves the overlap; block = {qx * 4} x {qy * 4} outputs", 11)
    # rows: a thread's 8 x 4 outputs and its segments, r = 12, in a block's tile
    r2, cell2, ox2 = 12, 3, 290
    out_x, out_y = 8, 4
    tile_w = tx * out_x + (2 * r2 + out_x - 1) // out_x * out_x
    tile_h = ty * out_y + 2 * r2
    svg.text(ox2, oy - 28, f"rows, {s['rows_radius']} <= r <= {s['tall_radius']}", 12, weight="bold")
    svg.text(ox2, oy - 12, f"{tx} x {ty} threads, {out_x} x {out_y} outputs each (r = {r2})", 11)
    svg.rect(ox2, oy, tile_w * cell2, tile_h * cell2, COLOURS["apron"])
    svg.rect(ox2 + r2 * cell2, oy + r2 * cell2, tx * out_x * cell2, ty * out_y * cell2, COLOURS["output"], opacity=0.55)
    for k in range(1, tx):
        svg.line(ox2 + (r2 + k * out_x) * cell2, oy + r2 * cell2, ox2 + (r2 + k * out_x) * cell2,
                 oy + (r2 + ty * out_y) * cell2, COLOURS["grid"], 0.5)
    for k in range(1, ty):
        svg.line(ox2 + r2 * cell2, oy + (r2 + k * out_y) * cell2, ox2 + (r2 + tx * out_x) * cell2,
                 oy + (r2 + k * out_y) * cell2, COLOURS["grid"], 0.5)
    # one thread (3, 5): its outputs, and the segment it reads for filter row fy = 0
    t_x, t_y = 3, 5
    seg = out_x + (2 * r2 + 3) // 4 * 4
    svg.rect(ox2 + t_x * out_x * cell2, oy + t_y * out_y * cell2, seg * cell2, out_y * cell2, COLOURS["window"],
             COLOURS["line"], 1)
    svg.rect(ox2 + (r2 + t_x * out_x) * cell2, oy + (r2 + t_y * out_y) * cell2, out_x * cell2, out_y * cell2,
             COLOURS["thread"], COLOURS["line"], 1)
    svg.rect(ox2, oy, tile_w * cell2, tile_h * cell2, "none", COLOURS["line"], 1.5)
    y2 = oy + tile_h * cell2
    svg.text(ox2, y2 + 16, f"a {tile_w} x {tile_h} tile; a thread (green) reads one {seg}-pixel", 11)
    svg.text(ox2, y2 + 30, "segment (yellow) per output row and filter row, as float4s,", 11)
    svg.text(ox2, y2 + 44, f"and uses each coefficient for {out_x * out_y} FMAs; the loop over", 11)
    svg.text(ox2, y2 + 58, "filter rows stays rolled", 11)
    ox3 = 610
    svg.text(ox3, oy - 28, f"rows, r > {s['tall_radius']}", 12, weight="bold")
    lines = [f"8 x 2 outputs per thread,", f"blocks {wx} x {wy} first, then", "smaller where the tile",
             "does not fit on chip", "(NVIDIA's OpenCL, 48 KB:", f"8 x 16 at r = {s['max_radius']});",
             "columns (1 x 8 or 1 x 4)", "only where no rows", "tile fits"]
    for i, line in enumerate(lines):
        svg.text(ox3, oy + 12 + 15 * i, line, 11)
    svg.legend(ox3, oy + 160, [(COLOURS["output"], "block's outputs"), (COLOURS["apron"], "apron"),
                               (COLOURS["thread"], "one thread's outputs"), (COLOURS["window"], "what it reads")])
    return svg.render()


def separable_svg(s):
    """separable: the input rows staged in bands, the row pass into rows_done, the column pass out."""
    r = 12
    shape = separable_shape(r, s["portable_bytes"], s["min_band"])
    tile_w, tile_h, band, bands = shape["tile_w"], shape["tile_h"], shape["band"], shape["bands"]
    cell = 2
    in_w = tile_w + 2 * r
    rows = band * bands
    svg = Svg(780, rows * cell + 140)
    svg.text(10, 20, f"separable, r = {r}: a {tile_w} x {tile_h} tile, {shape['threads']} threads, "
             f"{bands} bands of {band} rows ({shape['bytes']} bytes on chip)", 14, weight="bold")
    ox, oy = 10, 70
    shades = ["#c6dbef", "#9ecae1", "#6baed6", "#4292c6", "#2171b5", "#08519c", "#08306b"]
    for b in range(bands):
        svg.rect(ox, oy + b * band * cell, in_w * cell, band * cell, shades[b % len(shades)], COLOURS["line"], 0.5)
        svg.text(ox + in_w * cell + 6, oy + b * band * cell + band * cell / 2 + 4, f"band {b + 1}", 10)
    svg.rect(ox + r * cell, oy + r * cell, tile_w * cell, tile_h * cell, "none", COLOURS["corner"], 1.5)
    svg.text(ox, oy - 22, f"input: {in_w} wide,", 11)
    svg.text(ox, oy - 8, "staged one band at a time", 11)
    ox2 = ox + in_w * cell + 170
    svg.rect(ox2, oy, tile_w * cell, (tile_h + 2 * r) * cell, COLOURS["done"], COLOURS["line"], 0.5)
    svg.text(ox2, oy - 22, "rows_done: each", 11)
    svg.text(ox2, oy - 8, "band's row pass", 11)
    svg.line(ox + in_w * cell + 60, oy + rows * cell / 2, ox2 - 6, oy + rows * cell / 2, COLOURS["line"], 1.5)
    svg.text(ox + in_w * cell + 62, oy + rows * cell / 2 - 6, f"2r+1 = {2 * r + 1} taps", 10)
    ox3 = ox2 + tile_w * cell + 150
    svg.rect(ox3, oy + r * cell, tile_w * cell, tile_h * cell, COLOURS["output"], COLOURS["line"], 0.5)
    svg.text(ox3, oy - 22, "output: the", 11)
    svg.text(ox3, oy - 8, "column pass", 11)
    svg.line(ox2 + tile_w * cell + 6, oy + rows * cell / 2, ox3 - 6, oy + rows * cell / 2, COLOURS["line"], 1.5)
    svg.text(ox2 + tile_w * cell + 8, oy + rows * cell / 2 - 6, f"{2 * r + 1} taps down", 10)
    y = oy + rows * cell + 20
    svg.text(ox, y, "Each thread computes 8 outputs of a row in the row pass and 8 of a column in the column pass;", 11)
    svg.text(ox, y + 14, "the image crosses DRAM once each way, with no temporary image. Bands keep the staged input", 11)
    svg.text(ox, y + 28, f"within {s['portable_bytes'] // 1024} KB (common/geometry/separable_shape.h).", 11)
    return svg.render()


def sampler_svg(s):
    """The sampler's address modes on a 5-pixel row: what each returns 3 pixels beyond either edge."""
    n, beyond, cell = 5, 3, 26
    names = "abcde"
    modes = [
        ("zero: cudaAddressModeBorder / CLK_ADDRESS_CLAMP", lambda i: border_index(i, n, "zero")),
        ("clamp: cudaAddressModeClamp / CLK_ADDRESS_CLAMP_TO_EDGE", lambda i: border_index(i, n, "clamp")),
        ("mirror (ours, OpenCV's REFLECT_101): folded in code", lambda i: border_index(i, n, "mirror")),
        ("hardware mirror: cudaAddressModeMirror / CLK_ADDRESS_MIRRORED_REPEAT (normalized only): repeats the edge",
         lambda i: (i if 0 <= i < n else (-i - 1 if i < 0 else 2 * n - 1 - i))),
        ("wrap: cudaAddressModeWrap / CLK_ADDRESS_REPEAT with normalized coordinates", lambda i: i % n),
        ("'wrap' with unnormalized coordinates: CUDA clamps (seen on the H100); OpenCL's specification: undefined",
         lambda i: border_index(i, n, "clamp")),
    ]
    svg = Svg(760, 40 + len(modes) * 56)
    svg.text(10, 20, "The sampler's address modes, 3 pixels beyond each edge of a 5-pixel row", 14, weight="bold")
    for k, (label, fold) in enumerate(modes):
        y = 40 + k * 56
        svg.text(10, y + 10, label, 11, weight="bold" if k in (3, 5) else "normal",
                 fill=COLOURS["corner"] if k in (3, 5) else "#000000")
        for j, i in enumerate(range(-beyond, n + beyond)):
            x = 10 + j * cell
            source = fold(i)
            inside = 0 <= i < n
            svg.rect(x, y + 16, cell, cell, COLOURS["output"] if inside else COLOURS["outside"], COLOURS["line"], 0.5)
            svg.text(x + cell / 2, y + 16 + cell * 0.68, "0" if source < 0 else names[source], 12, "middle",
                     fill="#ffffff" if inside else "#000000")
        svg.line(10 + beyond * cell, y + 12, 10 + beyond * cell, y + 20 + cell, COLOURS["corner"], 2)
        svg.line(10 + (beyond + n) * cell, y + 12, 10 + (beyond + n) * cell, y + 20 + cell, COLOURS["corner"], 2)
    return svg.render()


def hierarchy_levels(s, m):
    """The hierarchy figure's rows: name, scope, lifetime, size, and the measured (or derived) figure. Sizes from the
    code's constants where the code fixes them, the device's from docs/performance.md's header."""
    frame_bytes = 1
    for side in m["host_size"].split("x"):
        frame_bytes *= int(side)
    frame_bytes *= 4  # the host-to-host run's frames: float32, one channel (docs/performance.md)
    shared_rate = m["shared_wavefronts"] / m["shared_us"] / 1e3  # G wavefronts per second
    l1_rate = m["l1_sectors"] * 32 / m["l1_us"] / 1e6  # TB/s
    return [
        ("registers", "CUDA registers / OpenCL __private", "one thread", "the thread",
         f"{m['registers'][0]}-{m['registers'][1]} per thread here (ptxas table)",
         "FFMA operands: no memory traffic"),
        ("shared", "__shared__ / __local", "one block / work-group", "the block",
         f"{s['portable_bytes'] // 1024} KB per block portable (separable_shape.h); more by opt-in",
         f"{m['shared_wavefronts']:,} wavefronts in {m['shared_us']:g} µs = {shared_rate:.0f} G/s (tiled, r = 12)"),
        ("constant", "__constant__ / __constant", "the grid, read-only", "module (CUDA) / launch (OpenCL)",
         f"CUDA {s['constant_taps'] * 4 // 1024} KB (launchers.h); OpenCL: the device's",
         "one address per request: broadcast; not measured alone"),
        ("L1", "L1 / texture cache (per SM)", "one SM's blocks", "a cache line's stay",
         "shared with __shared__ on the SM",
         f"{m['l1_sectors']:,} sectors x 32 B in {m['l1_us']:g} µs = {l1_rate:.1f} TB/s (global, r = 3)"),
        ("L2", "L2 cache", "the device", "a cache line's stay", f"{m['l2_mb']} MB",
         "not measured on this tree (the page's TODO)"),
        ("dram", "global memory (DRAM)", "the device (all grids)", "the allocation", f"{m['dram_gb']} GB",
         f"copy kernel {m['copy_gbs']} GB/s (performance.md, the tables)"),
        ("host", "host memory: pinned, mapped, managed / SVM", "host and device", "the allocation", "the host's",
         f"{frame_bytes / 1e6:.1f} MB in {m['host_floor_ms']:g} ms = "
         f"{frame_bytes / m['host_floor_ms'] / 1e6:.1f} GB/s (PCIe floor, pinned)"),
    ]


def hierarchy_svg(s):
    """One picture of every memory space: scope, lifetime, size and the measured figure, nearest first."""
    m = measured()
    levels = hierarchy_levels(s, m)
    columns = [("space (CUDA / OpenCL)", 20), ("scope", 310), ("lifetime", 450), ("size", 660), ("measured", 1050)]
    row_h = 34
    svg = Svg(1490, 70 + len(levels) * row_h + 40)
    svg.text(10, 20, f"The memory hierarchy, nearest the FMA first ({m['gpu']}, {m['sms']} SMs)", 14, weight="bold")
    for label, x in columns:
        svg.text(x, 50, label, 11, weight="bold")
    shades = ["#08519c", "#2171b5", "#4292c6", "#6baed6", "#9ecae1", "#c6dbef", "#eeeeee"]
    for k, (key, name, scope, lifetime, size, figure) in enumerate(levels):
        y = 60 + k * row_h
        indent = 2 * k  # further from the FMA, narrower: a picture of distance, not of size
        svg.rect(6 + indent, y, 1476 - 2 * indent, row_h - 4, shades[k], COLOURS["line"], 0.5, opacity=0.45)
        for (text, (_, x)) in zip((name, scope, lifetime, size, figure), columns):
            svg.text(x + 4, y + 19, text, 11)
    y = 60 + len(levels) * row_h + 18
    svg.text(10, y, "Measured figures are achieved rates of this tree's kernels read from the page's tables "
             "(docs/performance.md, docs/memory-spaces.md), not the hardware's peaks.", 11)
    return svg.render()


def cluster_sources(block, cluster_index, cluster_dims, radius):
    """cluster.cu's step 2 for one block: where each cell of its tile comes from, row by row: "own" (staged by the
    block itself), the rank of the cluster block whose shared memory holds it (DSMEM), or "global" (outside the
    cluster's rectangle: the border rule on global memory). block: (x, y) threads; cluster_index: the block's
    (x, y) in its cluster; cluster_dims: (columns, rows) of blocks."""
    (bw, bh), (ix, iy), (columns, rows) = block, cluster_index, cluster_dims
    tile_w, tile_h = bw + 2 * radius, bh + 2 * radius
    sources = []
    for i in range(tile_w * tile_h):
        tx, ty = i % tile_w, i // tile_w
        if radius <= tx < radius + bw and radius <= ty < radius + bh:
            sources.append("own")
            continue
        cx, cy = ix * bw - radius + tx, iy * bh - radius + ty  # the cell's position in the cluster's rectangle
        if 0 <= cx < columns * bw and 0 <= cy < rows * bh:
            sources.append(cy // bh * columns + cx // bw)  # rank = x + y * columns
        else:
            sources.append("global")
    return sources


def cluster_svg(s):
    """The cluster's apron from its neighbours: two blocks' tiles, each cell coloured by where it is read from."""
    bw, bh = s["tile_groups"][0]
    columns, rows = s["cluster_groups"]
    r = 3
    tile_w, tile_h = bw + 2 * r, bh + 2 * r
    ranks = ["#4e79a7", "#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#9c755f", "#ff9da7", "#86bcb6"]
    svg = Svg(1100, 400)
    svg.text(10, 20, f"cluster: {columns} x {rows} blocks of {bw} x {bh} (tile_shape.h's kClusterGroups), r = {r}: "
             "where each tile cell is read from", 14, weight="bold")
    # the cluster: blocks numbered by rank, x first
    c0, ox, oy = 3, 10, 60
    svg.text(ox, oy - 10, "the cluster, ranks x first (rank = x + y * columns)", 11)
    for rank in range(columns * rows):
        x, y = rank % columns, rank // columns
        svg.rect(ox + x * bw * c0, oy + y * bh * c0, bw * c0, bh * c0, ranks[rank], COLOURS["line"], 1, opacity=0.8)
        svg.text(ox + (x + 0.5) * bw * c0, oy + (y + 0.5) * bh * c0 + 4, f"{rank}", 12, "middle", fill="#ffffff")
    cases = [(1, 0), (0, 1)]
    cell = 11
    for k, (ix, iy) in enumerate(cases):
        sources = cluster_sources((bw, bh), (ix, iy), (columns, rows), r)
        x0 = ox + 320 + k * (tile_w * cell + 140)
        neighbours = sum(1 for v in sources if isinstance(v, int))
        from_global = sources.count("global")
        svg.text(x0, oy - 10, f"block {iy * columns + ix} ({ix}, {iy}): its {tile_w} x {tile_h} tile", 11, weight="bold")
        own_rank = iy * columns + ix
        for i, source in enumerate(sources):
            colour = (COLOURS["apron"] if source == "global" else ranks[own_rank if source == "own" else source])
            svg.rect(x0 + (i % tile_w) * cell, oy + (i // tile_w) * cell, cell, cell, colour, opacity=0.8)
        svg.text(x0 + tile_w * cell / 2, oy + tile_h * cell / 2 + 5, f"own: rank {own_rank}", 13, "middle",
                 weight="bold", fill="#ffffff")
        svg.grid(x0, oy, tile_w, tile_h, cell, COLOURS["grid"])
        svg.rect(x0 + r * cell, oy + r * cell, bw * cell, bh * cell, "none", COLOURS["line"], 1.5)
        svg.rect(x0, oy, tile_w * cell, tile_h * cell, "none", COLOURS["line"], 1.5)
        y = oy + tile_h * cell + 18
        svg.text(x0, y, f"{bw * bh} staged by the block itself,", 11)
        svg.text(x0, y + 14, f"{neighbours} from neighbours' shared memory (DSMEM),", 11)
        svg.text(x0, y + 28, f"{from_global} from global memory (outside the cluster)", 11)
    svg.legend(ox, oy + rows * bh * c0 + 24, [(COLOURS["apron"], "global memory, through the border rule")])
    notes = ["every other colour: the rank whose shared", "memory holds the cell (DSMEM)", "",
             "cluster.sync() before step 2 (all staged)", "and after it (no block leaves while",
             "a neighbour reads its tile)"]
    for i, note in enumerate(notes):
        svg.text(ox, oy + rows * bh * c0 + 62 + 14 * i, note, 11)
    return svg.render()


def async_sources(block, block_index, radius, width, height, border):
    """async.cu's two loops for one block: "copy" for a cell the asynchronous copies bring (its row folded by the
    border rule, its column inside the image), "threads" for one the threads fill through the border rule."""
    (bw, bh), (bx, by) = block, block_index
    tile_w, tile_h = bw + 2 * radius, bh + 2 * radius
    tile_x0, tile_y0 = bx * bw - radius, by * bh - radius
    copy_x0 = max(tile_x0, 0)
    copy_width = min(tile_x0 + tile_w, width) - copy_x0
    sources = []
    for i in range(tile_w * tile_h):
        gx = tile_x0 + i % tile_w
        sy = border_index(tile_y0 + i // tile_w, height, border)
        sources.append("copy" if sy >= 0 and copy_x0 <= gx < copy_x0 + copy_width else "threads")
    return sources


def async_svg(s):
    """async: which cells of a corner block's tile the asynchronous copies bring, and the order of the steps."""
    bw, bh = s["tile_groups"][0]
    r, size = 3, 2048
    tile_w, tile_h = bw + 2 * r, bh + 2 * r
    cell = 11
    svg = Svg(1290, 400)
    svg.text(10, 20, f"async: the top-left block's {tile_w} x {tile_h} tile (r = {r}, a {size} x {size} image), "
             "and one block's steps", 14, weight="bold")
    ox, oy = 10, 60
    for k, border in enumerate(("zero", "mirror")):
        sources = async_sources((bw, bh), (0, 0), r, size, size, border)
        x0 = ox + k * (tile_w * cell + 70)
        svg.text(x0, oy - 10, f"{border} border", 11, weight="bold")
        for i, source in enumerate(sources):
            svg.rect(x0 + (i % tile_w) * cell, oy + (i // tile_w) * cell, cell, cell,
                     COLOURS["band"] if source == "copy" else COLOURS["apron"])
        svg.grid(x0, oy, tile_w, tile_h, cell, COLOURS["grid"])
        svg.rect(x0 + r * cell, oy + r * cell, bw * cell, bh * cell, "none", COLOURS["line"], 1.5)
        svg.rect(x0, oy, tile_w * cell, tile_h * cell, "none", COLOURS["line"], 1.5)
        y = oy + tile_h * cell + 18
        svg.text(x0, y, f"{sources.count('copy')} copied asynchronously,", 11)
        svg.text(x0, y + 14, f"{sources.count('threads')} filled by the threads", 11)
    svg.legend(ox, oy + tile_h * cell + 50, [(COLOURS["band"], "cp.async / async_work_group_copy: the image's "
                                              "columns, rows folded"),
                                             (COLOURS["apron"], "the threads, through cc_border_index")])
    # the order of one block's steps (not to scale)
    x0, y0 = ox + 2 * (tile_w * cell + 70) + 10, oy
    svg.text(x0, y0 - 10, "one block, in order (not to scale)", 11, weight="bold")
    steps = [("1. issue the copies", "CUDA: __pipeline_memcpy_async, 4 B a pixel (u8: a plain copy)",
              "OpenCL: async_work_group_copy, one per tile row"),
             ("   commit", "CUDA: __pipeline_commit()", "OpenCL: the rows share one event"),
             ("2. fill the other cells", "CUDA: ld.global + st.shared, as tiled", "OpenCL: the same"),
             ("3. wait", "CUDA: __pipeline_wait_prior(0); __syncthreads()",
              "OpenCL: wait_group_events; barrier(CLK_LOCAL_MEM_FENCE)"),
             ("4. convolve from the tile", "CUDA: as tiled", "OpenCL: as tiled")]
    for k, (step, cuda, opencl) in enumerate(steps):
        y = y0 + k * 48
        svg.rect(x0, y, 300, 40, COLOURS["outside"], COLOURS["line"], 0.5)
        svg.text(x0 + 6, y + 14, step, 11, weight="bold")
        svg.text(x0 + 6, y + 30, cuda, 9)
        svg.text(x0 + 324, y + 30, opencl, 9)
    # the copies in flight from the commit to the wait
    svg.rect(x0 + 306, y0 + 48 + 20, 10, 2 * 48, COLOURS["band"], COLOURS["line"], 0.5)
    svg.text(x0, y0 + len(steps) * 48 + 14, "the bar: the copies in flight from the commit to the wait, beside", 10)
    svg.text(x0, y0 + len(steps) * 48 + 28, "step 2; a cp.async moves DRAM / L2 to shared memory with no register", 10)
    return svg.render()


def tiled_warp_words(group_x, radius, pitch=None, first_row=0):
    """tiled's shared loads for one warp of a group_x-wide block at tap (0, 0): lane l reads tile word
    (row + l // group_x) * pitch + l % group_x, the pitch being the tile's width (group_x + 2r) unless given."""
    pitch = group_x + 2 * radius if pitch is None else pitch
    return [(first_row + lane // group_x) * pitch + lane % group_x for lane in range(32)]


def bank_rule_cases(s):
    gx = s["tile_groups"][0][0]
    r = 3
    return [
        ("a 32 x 32 float tile read down a column, pitch 32: lane i reads word 32 i", [32 * i for i in range(32)],
         None),
        ("the same with a pitch of 33 (one word of padding per row): lane i reads word 33 i",
         [33 * i for i in range(32)], None),
        (f"tiled, r = {r}: a {gx}-wide block's warp reads two tile rows, pitch {gx} + 2r = {gx + 2 * r}",
         tiled_warp_words(gx, r), gx),
        ("the same two rows at a pitch of 48 (16 mod 32): not built", tiled_warp_words(gx, r, 48), gx),
    ]


def bank_rule_svg(s):
    """The bank rule: which bank each lane's word falls in, stacked by distinct word, for the textbook column read
    with and without padding and for tiled's two half-warps (the counts are tools/bank_model.py's)."""
    cell, depth_h = 18, 5
    cases = bank_rule_cases(s)
    heights = [max(12, 32 * depth_h if k == 0 else 2 * depth_h * 2) for k in range(len(cases))]
    svg = Svg(40 + 32 * cell + 240, 66 + sum(h + 70 for h in heights))
    svg.text(10, 20, "The bank rule: 32 banks of 4-byte words, word w in bank w mod 32", 13, weight="bold")
    svg.text(10, 38, "a warp's access takes one wavefront per distinct word in its fullest bank (a shared word is a "
             "broadcast)", 11)
    oy = 66
    for (label, words, group_x), height in zip(cases, heights):
        svg.text(10, oy, label, 11, weight="bold")
        by_bank = {}
        for lane, word in enumerate(words):
            by_bank.setdefault(word % 32, {}).setdefault(word, lane)
        for bank in range(32):
            x = 30 + bank * cell
            svg.text(x + cell / 2, oy + 16, f"{bank}", 8, "middle")
            for k, (word, lane) in enumerate(sorted(by_bank.get(bank, {}).items())):
                colour = COLOURS["output"] if group_x is None or lane < group_x else COLOURS["apron"]
                svg.rect(x + 1, oy + 22 + k * (depth_h * (1 if len(by_bank[bank]) > 2 else 2)), cell - 2,
                         depth_h * (1 if len(by_bank[bank]) > 2 else 2) - 1, colour)
        waves = bank_model.wavefronts(words)
        svg.text(30 + 32 * cell + 14, oy + 30, f"{waves} wavefront{'s' if waves > 1 else ''}", 12, weight="bold",
                 fill=COLOURS["corner"] if waves > 1 else "#000000")
        if group_x is not None:
            svg.legend(30 + 32 * cell + 14, oy + 42, [(COLOURS["output"], f"lanes 0-{group_x - 1}: row a"),
                                                      (COLOURS["apron"], f"lanes {group_x}-31: row a + 1")])
        oy += height + 70
    return svg.render()


def row_pass_words(warp, radius, band, in_pitch, tile_w=64, row_out=8):
    """separable.cu's row pass, first tap: the band word each lane of warp `warp` reads (row = item % BAND,
    x = item / BAND * ROW_OUT), with the item's row and column of items."""
    words = []
    for item in range(32 * warp, 32 * warp + 32):
        if item < band * (tile_w // row_out):
            row, column = item % band, item // band
            words.append((row * in_pitch + column * row_out, row, column))
    return words


def banks_svg(s):
    """The bank rule on separable's row pass at r = 3: a warp whose items wrap from the band's last row to row 0
    of the next column, as the kernel has it (BAND 38, IN_PITCH 71), and with BAND 40, IN_PITCH 73 (proposed)."""
    r = 3
    shape = separable_shape(r, s["portable_bytes"], s["min_band"])
    cases = [(f"as built: BAND = {shape['band']}, IN_PITCH = {(shape['tile_w'] + 2 * r) | 1}", shape["band"],
              (shape["tile_w"] + 2 * r) | 1),
             ("proposed: BAND = 40, IN_PITCH = 73 (BAND x IN_PITCH = 8 mod 32)", 40, 73)]
    cell = 20
    svg = Svg(40 + 32 * cell + 20, 60 + len(cases) * 150)
    svg.text(10, 20, f"Banks: separable's row pass at r = {r}, warp 1 (items 32-63), first tap: 32 banks of 4 bytes",
             14, weight="bold")
    for k, (label, band, pitch) in enumerate(cases):
        oy = 50 + k * 150
        svg.text(10, oy, label, 12, weight="bold")
        by_bank = {}
        for word, row, column in row_pass_words(1, r, band, pitch):
            by_bank.setdefault(word % 32, []).append((row, column))
        for bank in range(32):
            x = 30 + bank * cell
            svg.text(x + cell / 2, oy + 18, f"{bank}", 9, "middle")
            for depth, (row, column) in enumerate(by_bank.get(bank, [])):
                colour = COLOURS["output"] if column == 0 else COLOURS["apron"]
                svg.rect(x + 1, oy + 24 + depth * (cell + 2), cell - 2, cell, colour,
                         COLOURS["corner"] if len(by_bank[bank]) > 1 else "none", 2)
                svg.text(x + cell / 2, oy + 24 + depth * (cell + 2) + 14, f"{row}", 8, "middle", fill="#ffffff")
        worst = max(len(v) for v in by_bank.values())
        conflicts = sum(len(v) - 1 for v in by_bank.values() if len(v) > 1)
        svg.text(10, oy + 24 + 2 * (cell + 2) + 22, f"{worst} wavefront{'s' if worst > 1 else ''}: "
                 f"{conflicts} bank{'s' if conflicts != 1 else ''} asked for two words (red)", 11)
    svg.legend(30 + 20 * cell, 50 + 150 + 100, [(COLOURS["output"], "rows of item column 0 (x = 0)"),
                                                (COLOURS["apron"], "rows of item column 1 (x = 8)")])
    return svg.render()


PICTURES = {"tile.svg": tile_svg, "idle-threads.svg": idle_svg, "fast-schemes.svg": fast_svg,
            "separable-bands.svg": separable_svg, "sampler-modes.svg": sampler_svg, "banks.svg": banks_svg,
            "hierarchy.svg": hierarchy_svg, "cluster-apron.svg": cluster_svg, "async-pipeline.svg": async_svg,
            "bank-rule.svg": bank_rule_svg}


def main(argv):
    check = "--check" in argv
    s = shapes()
    stale = []
    IMG.mkdir(parents=True, exist_ok=True)
    for name, draw in PICTURES.items():
        text = draw(s)
        path = IMG / name
        if check:
            if not path.exists() or path.read_text() != text:
                stale.append(name)
        else:
            path.write_text(text)
    if stale:
        print(f"diagrams.py: stale in docs/img (run python3 tools/diagrams.py): {', '.join(stale)}")
        return 1
    print(f"diagrams.py: {len(PICTURES)} pictures {'up to date' if check else 'written'} in docs/img")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
