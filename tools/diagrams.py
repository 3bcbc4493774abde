#!/usr/bin/env python3
"""diagrams.py: the pictures of docs/memory-spaces.md (docs/img/*.svg), drawn from the project's own shape constants.

  diagrams.py            write docs/img/*.svg
  diagrams.py --check    exit 1 when a file in docs/img differs from what this script draws (CI, ctest)

Standard library only, deterministic (no dates, no randomness, fixed number formatting). The shapes come from
the headers the kernels and hosts share (common/geometry/tile_shape.h, fast_shape.h, separable_shape.h,
kernels_cuda/launchers.h) and the border rule from conv_args.h, read here with regular expressions, so a change of
a constant there changes the picture, and --check says the picture is stale. The measured figures of the hierarchy
(the probe's peaks among them) and of the two-GPU picture are read from docs/performance.md and
docs/memory-spaces-evidence.md's own tables, never typed here. What the pictures share (the readers, the border rule, the
SVG writer) is diagram_base.py; the memory-path pictures (hierarchy, bank rule, cluster, async, two GPUs) are
diagrams_memory.py; this file draws the variants' pictures and writes or checks them all.
"""
from fractions import Fraction
import math
import sys

from diagram_base import (COLOURS, IMG, REPO, Svg, border_index, measured, separable_shape,  # noqa: F401
                          shapes)
from diagrams_memory import (async_sources, async_svg, bank_rule_cases, bank_rule_svg,  # noqa: F401
                             cluster_sources, cluster_svg, hierarchy_levels, hierarchy_svg, plan_bands,
                             tiled_warp_words, two_gpus_svg)


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
    svg = Svg(40 + 32 * cell + 20, 78 + len(cases) * 150)
    # the title in two lines: one line ran past the 700-pixel canvas
    svg.text(10, 20, f"Banks: separable's row pass at r = {r}, warp 1 (items 32-63), first tap", 14, weight="bold")
    svg.text(10, 38, "32 banks of 4 bytes, word w in bank w mod 32", 12)
    for k, (label, band, pitch) in enumerate(cases):
        oy = 68 + k * 150
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
            "bank-rule.svg": bank_rule_svg, "two-gpus.svg": two_gpus_svg}


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
