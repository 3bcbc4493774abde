#!/usr/bin/env python3
"""diagrams_memory.py: the memory-path pictures of docs/memory-spaces.md and its evidence page (the hierarchy, the bank rule, the
cluster's apron, the async copy split, two GPUs), drawn by tools/diagrams.py from the kernels' index arithmetic,
the shape constants, the band plan and the pages' own tables (diagram_base.py reads them). Standard library only,
deterministic."""
import re

import bank_model
from diagram_base import COLOURS, Svg, border_index, measured, two_gpus

def hierarchy_levels(s, m):
    """The hierarchy figure's rows: name, scope, lifetime, size, the level's peak (the probe's, or the nearest this
    tree measures), and what one of this tree's kernels asked of it ("" where none is measured). Sizes from the
    code's constants where the code fixes them, the device's from docs/performance.md's header; the peaks from the
    page's paths-peaks table (tools/probes/bandwidth_probe.cu), the kernels' figures from the profiler tables."""
    frame_bytes = 1
    for side in m["host_size"].split("x"):
        frame_bytes *= int(side)
    frame_bytes *= 4  # the host-to-host run's frames: float32, one channel (docs/performance.md)
    peaks = m["peaks"]
    shared_rate = m["shared_wavefronts"] / m["shared_us"] / 1e3  # G wavefronts per second
    # a wavefront serves each of the 32 banks one 4-byte word at most (the bank rule below): 128 bytes
    shared_peak_rate = peaks["shared"][0] / 128
    l1_rate = m["l1_sectors"] * 32 / m["l1_us"] / 1e6  # TB/s
    l2_rate = m["l2_bytes_mb"] / m["l2_us"]  # TB/s: MB per µs
    return [
        ("registers", "CUDA registers / OpenCL __private", "one thread", "the thread",
         f"{m['registers'][0]}-{m['registers'][1]} per thread here (ptxas table)",
         "FFMA operands: no memory traffic", ""),
        ("shared", "__shared__ / __local", "one block / work-group", "the block",
         f"{s['portable_bytes'] // 1024} KB per block portable (separable_shape.h); more by opt-in",
         f"probe peak: {peaks['shared'][0]} GB/s ({peaks['shared'][1]}) = {shared_peak_rate:.0f} G wavefronts/s "
         "of 128 B",
         f"tiled at r = 12 asked {m['shared_wavefronts']:,} wavefronts in {m['shared_us']:g} µs = "
         f"{shared_rate:.0f} G/s ({100 * shared_rate / shared_peak_rate:.0f}% of it)"),
        ("constant", "__constant__ / __constant", "the grid, read-only", "module (CUDA) / launch (OpenCL)",
         f"CUDA {s['constant_taps'] * 4 // 1024} KB (launchers.h); OpenCL: the device's",
         "one address per request: broadcast; not measured alone", ""),
        ("L1", "L1 / texture cache (per SM)", "one SM's blocks", "a cache line's stay",
         "shared with __shared__ on the SM",
         f"probe peak: {peaks['L1'][0]} GB/s ({peaks['L1'][1]})",
         f"global at r = 3 asked {m['l1_sectors']:,} sectors x 32 B in {m['l1_us']:g} µs = {l1_rate:.1f} TB/s "
         f"({100 * l1_rate * 1e3 / peaks['L1'][0]:.0f}% of it)"),
        ("L2", "L2 cache", "the device", "a cache line's stay", f"{m['l2_mb']} MB",
         f"probe peak: {peaks['L2'][0]} GB/s ({peaks['L2'][1]})",
         f"tiled at r = 3 (8192^2) moved {m['l2_bytes_mb']:g} MB through L2 in {m['l2_us']:g} µs = {l2_rate:.2f} TB/s "
         f"({100 * l2_rate * 1e3 / peaks['L2'][0]:.0f}% of it)"),
        ("dram", "global memory (DRAM)", "the device (all grids)", "the allocation", f"{m['dram_gb']} GB",
         f"copy kernel {m['copy_gbs']} GB/s (performance.md, the tables; the probe does not read DRAM)", ""),
        ("host", "host memory: pinned, mapped, managed / SVM", "host and device", "the allocation", "the host's",
         f"{frame_bytes / 1e6:.1f} MB in {m['host_floor_ms']:g} ms = "
         f"{frame_bytes / m['host_floor_ms'] / 1e6:.1f} GB/s (PCIe floor, pinned)", ""),
    ]


def hierarchy_svg(s):
    """One picture of every memory space: scope, lifetime, size, the level's peak and what a kernel asked of it,
    nearest first."""
    m = measured()
    levels = hierarchy_levels(s, m)
    columns = [("space (CUDA / OpenCL)", 20), ("scope", 310), ("lifetime", 450), ("size", 660),
               ("peak / what a kernel of this tree asked", 1030)]
    row_h = 42
    svg = Svg(1600, 70 + len(levels) * row_h + 56)
    svg.text(10, 20, f"The memory hierarchy, nearest the FMA first ({m['gpu']}, {m['sms']} SMs)", 14, weight="bold")
    for label, x in columns:
        svg.text(x, 50, label, 11, weight="bold")
    shades = ["#08519c", "#2171b5", "#4292c6", "#6baed6", "#9ecae1", "#c6dbef", "#eeeeee"]
    for k, (key, name, scope, lifetime, size, peak, asked) in enumerate(levels):
        y = 60 + k * row_h
        indent = 2 * k  # further from the FMA, narrower: a picture of distance, not of size
        svg.rect(6 + indent, y, 1586 - 2 * indent, row_h - 4, shades[k], COLOURS["line"], 0.5, opacity=0.45)
        for (text, (_, x)) in zip((name, scope, lifetime, size), columns):
            svg.text(x + 4, y + 23, text, 11)
        x = columns[-1][1] + 4
        if asked:
            svg.text(x, y + 15, peak, 11)
            svg.text(x, y + 31, asked, 11)
        else:
            svg.text(x, y + 23, peak, 11)
    y = 60 + len(levels) * row_h + 18
    svg.text(10, y, f"probe peak: {m['peaks_source']} (docs/memory-spaces-evidence.md, the paths-peaks table); the line "
             "under it: what one of this tree's kernels asked of the level under ncu (the profiler tables),", 11)
    svg.text(10, y + 16, "and its share of the peak. DRAM and host: convcompare's own copy kernel and pinned copies "
             "(docs/performance.md), achieved rates, the nearest this tree has to a peak there.", 11)
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


def plan_bands(height, radius, devices, wrap=False):
    """common/geometry/band_plan.cpp's plan_bands: (first_row, rows, halo_above, halo_below) per device, height //
    devices rows each, the last taking the remainder; a halo is r rows, fewer where the image ends (the kernel's
    border rule acts there), r on both sides of every band for wrap."""
    each = height // devices
    bands = []
    for index in range(devices):
        first = index * each
        rows = height - first if index == devices - 1 else each
        bands.append((first, rows, radius if wrap else min(radius, first),
                      radius if wrap else min(radius, height - first - rows)))
    return bands


def two_gpus_svg(s):
    """Two GPUs (docs/multi-device.md): --split's bands, their halo rows and the stitched frame, drawn row by row for
    a small frame, with the measured frame's bands beside; and --stream's frames dealt round robin."""
    g = two_gpus()
    rows = g["rows"]
    gpus = [COLOURS["output"], COLOURS["thread"]]
    height, r, width, cell = 20, 2, 12, 9
    bands = plan_bands(height, r, 2)
    svg = Svg(1180, 660)
    svg.text(10, 20, "Two GPUs (docs/multi-device.md): --split cuts one frame into bands, --stream deals whole frames",
             14, weight="bold")
    svg.text(10, 38, "Two drawn; N devices: the same, N bands of H / N rows (the last takes the remainder), frame i "
             "to device i mod N", 11)
    # (a) --split, row by row: the host frame, each GPU's sub-image at its rows' height, the stitched result
    oy = 110
    svg.text(10, 66, f"--split: a {height}-row frame, r = {r} (common/geometry/band_plan.h), one row a strip", 12,
             weight="bold")
    columns = [("the frame (host)", 10), ("GPU 0's sub-image", 230), ("GPU 1's sub-image", 430),
               ("the result (host)", 690)]
    for label, x in columns:
        svg.text(x, oy - 12, label, 11, weight="bold")
    for row in range(height):
        owner = 0 if row < bands[1][0] else 1
        svg.rect(10, oy + row * cell, width * cell, cell, gpus[owner], COLOURS["grid"], 0.5, opacity=0.8)
        svg.rect(690, oy + row * cell, width * cell, cell, gpus[owner], COLOURS["grid"], 0.5, opacity=0.8)
    for k, (first, own, above, below) in enumerate(bands):
        x = columns[1 + k][1]
        for row in range(first - above, first + own + below):
            halo = not first <= row < first + own
            svg.rect(x, oy + row * cell, width * cell, cell, gpus[1 - k if halo else k], COLOURS["grid"], 0.5,
                     opacity=0.35 if halo else 0.8)
        top, bottom = oy + (first - above) * cell, oy + (first + own + below) * cell
        svg.rect(x, top, width * cell, bottom - top, "none", COLOURS["line"], 1.2)
        for row0, n in ((first - above, above), (first + own, below)):
            if n:
                svg.rect(x, oy + row0 * cell, width * cell, n * cell, "none", COLOURS["corner"], 2)
        svg.arrow(10 + width * cell + 4, oy + (first + own / 2) * cell, x - 4, oy + (first + own / 2) * cell,
                  gpus[k], 1.5)
        svg.arrow(x + width * cell + 4, oy + (first + own / 2) * cell, 690 - 4, oy + (first + own / 2) * cell,
                  gpus[k], 1.5, dash="4 3")
    # the halo exchange: GPU 1's first r rows into GPU 0's halo below, GPU 0's last r rows into GPU 1's halo above
    split = bands[1][0]
    x0, x1 = columns[1][1] + width * cell, columns[2][1]
    svg.arrow(x1 - 2, oy + (split + r / 2) * cell, x0 + 2, oy + (split + r / 2) * cell, COLOURS["corner"], 2)
    svg.arrow(x0 + 2, oy + (split - r / 2) * cell, x1 - 2, oy + (split - r / 2) * cell, COLOURS["corner"], 2)
    notes = [(columns[1][1], oy + height * cell + 18, "uploads its own rows;"),
             (columns[1][1], oy + height * cell + 32, f"halo: the r = {r} rows below (red)"),
             (columns[2][1], oy + height * cell + 18, "uploads its own rows;"),
             (columns[2][1], oy + height * cell + 32, f"halo: the r = {r} rows above (red)"),
             (10, oy + height * cell + 18, "solid: each GPU's own"), (10, oy + height * cell + 32, "rows go up"),
             (690, oy + height * cell + 18, "dashed: each GPU downloads"),
             (690, oy + height * cell + 32, "only its own rows; halo rows"),
             (690, oy + height * cell + 46, "are computed and dropped")]
    for x, y, text in notes:
        svg.text(x, y, text, 10)
    xn = 860
    for i, line in enumerate(["red arrows, the halo rows GPU to GPU:",
                              "CUDA: cudaMemcpyPeerAsync over NVLink,", "queued after the source's upload;",
                              "OpenCL: in one context over both GPUs,", "read into page-locked staging, then written;",
                              "CUDA's texture through the host (a", "CUDA array is no peer target)", "",
                              "at the image's top and bottom no halo:", "the kernel's border rule acts there",
                              "(wrap: r rows on both sides, round", "the image)"]):
        svg.text(xn, oy + 4 + 14 * i, line, 10)
    # the measured split: its bands from the same plan, its times from docs/performance.md's table
    big = plan_bands(g["height"], g["radius"], 2)
    cuda, opencl = rows["split, kernel ms, CUDA"], rows["split, kernel ms, OpenCL"]
    y = oy + height * cell + 76
    svg.text(10, y, f"measured (docs/performance.md, \"Two GPUs\"): {g['variant']}, one {g['width']}x{g['height']} "
             f"f32 frame, box r = {g['radius']}: bands of {big[0][1]} and {big[1][1]} rows, each with "
             f"{big[0][3]} halo rows, {big[0][1] + big[0][3]} rows a GPU", 11)
    svg.text(10, y + 16, f"kernel ms, one GPU -> two: CUDA {cuda['one GPU']} -> {cuda['two GPUs']} ({cuda['gain']}), "
             f"OpenCL {opencl['one GPU']} -> {opencl['two GPUs']} ({opencl['gain']}); the frame is done when the "
             "slower band is", 11)
    # (b) --stream: whole frames dealt round robin, each GPU pipelining its own over its own link
    oy2 = y + 60
    svg.text(10, oy2, "--stream: frame i to GPU i mod 2, each GPU with three slots (its own stream / queue, device "
             "frame, pinned host buffers) and its own host link", 12, weight="bold")
    frames, fw = 6, 40
    svg.text(10, oy2 + 26, "frames from the host", 10)
    for i in range(frames):
        svg.rect(10 + i * (fw + 6), oy2 + 34, fw, 20, gpus[i % 2], COLOURS["line"], 0.5, opacity=0.8)
        svg.text(10 + i * (fw + 6) + fw / 2, oy2 + 48, f"{i}", 11, "middle", fill="#ffffff")
    step, lane = 62, 18  # not to scale: a frame's upload, kernel and download as three equal steps
    for k in range(2):
        ly = oy2 + 72 + k * (3 * lane + 16)
        svg.text(10, ly + 2 * lane - 4, f"GPU {k}, its own link", 11, weight="bold", fill=gpus[k])
        for part, name in enumerate(("up", "filter", "down")):
            svg.text(150, ly + part * lane + 13, name, 10)
            for j, i in enumerate(range(k, frames, 2)):  # the GPU's j-th frame: up at step j, filter j + 1, ...
                x = 200 + (j + part) * step
                svg.rect(x, ly + part * lane, step - 2, lane - 2, gpus[k], COLOURS["line"], 0.5,
                         opacity=(0.9, 0.5, 0.9)[part])
                svg.text(x + step / 2 - 1, ly + part * lane + 12, f"frame {i}", 10, "middle")
    svg.text(200, oy2 + 72 + 2 * (3 * lane + 16) + 4, "time ->  (not to scale; a slot waits only for its own "
             "previous frame)", 10)
    sx = 200 + 5 * step + 40
    stream = [(label, row) for label, row in rows.items() if label.startswith("stream frames/s, ")]
    for i, (label, row) in enumerate(stream):
        api, side, pixel = re.search(r"stream frames/s, (\w+), (\d+)\^2 (f32|RGBA8)", label).groups()
        frame_bytes = int(side) ** 2 * 4  # f32: one float a pixel; RGBA8: four bytes a pixel
        svg.text(sx, oy2 + 84 + 17 * i, f"{api}, {side}^2 {pixel}: {row['one GPU']} frames/s alone, {row['two GPUs']} "
                 f"on both ({row['gain']}): {float(row['two GPUs']) * frame_bytes / 1e9:.0f} GB/s each way", 11)
    # host_link_probe's rows: both directions at once, on both GPUs and on one ("96.3 / 96.5": each GPU's)
    both = float(g["link"]["both GPUs"]["both directions"]) / 2
    one = min(float(x) for x in g["link"]["one GPU (each of the two)"]["both directions"].split("/")) / 2
    svg.text(sx, oy2 + 84 + 17 * len(stream), f"the ceiling: both links both ways at once carry {both:.0f} GB/s each "
             f"way (host_link_probe), one GPU {one:.0f}: {both / one:.1f}x", 11)
    return svg.render()
