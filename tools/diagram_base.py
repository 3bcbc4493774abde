#!/usr/bin/env python3
"""diagram_base.py: what tools/diagrams.py's pictures share: the shape constants read from the headers, the
border rule, the pages' tables read back, and a tiny SVG writer. Standard library only, deterministic."""
import math
import pathlib
import re

REPO = pathlib.Path(__file__).resolve().parent.parent
GEOMETRY = REPO / "common" / "geometry"
IMG = REPO / "docs" / "img"
DOCS = REPO / "docs"

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

    def arrow(self, x1, y1, x2, y2, stroke=COLOURS["line"], width=1.0, dash=None):
        """A line with a head at (x2, y2): two strokes of 7 px at 25 degrees either side of it."""
        self.line(x1, y1, x2, y2, stroke, width, dash)
        angle = math.atan2(y2 - y1, x2 - x1)
        for side in (-1, 1):
            a = angle + math.pi + side * math.radians(25)
            self.line(x2, y2, x2 + 7 * math.cos(a), y2 + 7 * math.sin(a), stroke, width)

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


# --- the measured figures, from the pages' own tables -----------------------------------------------------------

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
    docs/memory-spaces-evidence.md's profiler, ptxas and probe-peak (paths-peaks) tables, and the paths profiler table's
    tiled row (an H100; the figures change when those tables do). peaks: {space: (read GB/s, how)} for L2, L1
    and shared."""
    perf = (DOCS / "performance.md").read_text()
    page = (DOCS / "memory-spaces-evidence.md").read_text()
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
    probe = generated_block(page, "paths-peaks")
    peaks = {r["space"]: (int(r["read GB/s"]), r["how"]) for r in table_rows(probe)}
    # L2: what tiled asked of it at 8192^2, r = 3 (docs/performance.md's paths profiler table, lts__t_bytes.sum)
    profile = table_rows(perf.split("#### The profiler's reading (CUDA,", 1)[1])
    tiled_l2 = next(r for r in profile if r.get("kernel") == "tiled, r = 3")
    return dict(
        gpu=head.group(1), dram_gb=int(head.group(2)), sms=int(head.group(3)), l2_mb=int(head.group(4)),
        copy_gbs=int(copy.group(1)),
        host_floor_ms=float(host["PCIe floor ms/frame"]), host_size=host["size"],
        shared_wavefronts=int(tiled12["shared wavefronts"]), shared_us=float(tiled12["time µs"]),
        l1_sectors=int(mix["global, r = 3"]["L1 global-load sectors"]), l1_us=float(global3["time µs"]),
        registers=(min(registers), max(registers)),
        l2_bytes_mb=float(tiled_l2["L2 bytes MB"]), l2_us=float(tiled_l2["time µs"]),
        peaks=peaks, peaks_source=re.search(r"\*(tools/probes/bandwidth_probe\.cu[^*]*?), GB/s", probe).group(1))


def two_gpus():
    """docs/performance.md's "Two GPUs" section: rows, its table as {row label: {column: cell}}
    (columns "one GPU", "two GPUs", "gain", "target"; labels as the table writes them: "split, kernel ms, CUDA",
    ...); link, the host link probe's table as {"copies at once" cell: row} (columns "up", "down", "both
    directions"); and the variant, frame size and box radius of the command the split rows were measured with."""
    perf = (DOCS / "performance.md").read_text()
    section = perf.split("### Two GPUs\n", 1)[1].split("\n#", 1)[0]
    run = re.search(r"--variant (\w+) --size (\d+)x(\d+) --filter box:r=(\d+)", " ".join(section.split()))
    rows = table_rows(section)
    return dict(rows={row[""]: row for row in rows if "" in row},
                link={row["copies at once"]: row for row in rows if "copies at once" in row},
                variant=run.group(1), width=int(run.group(2)), height=int(run.group(3)), radius=int(run.group(4)))
