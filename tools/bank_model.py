#!/usr/bin/env python3
"""bank_model.py: shared-memory bank conflicts of separable's and fast's on-chip accesses, from their index arithmetic.

  bank_model.py [RADIUS ...]    print the model's wavefronts and conflicts per access, 2048x2048, f32

The banks as the CUDA guide gives them: 32 banks of 4-byte words; a warp's 32-bit access takes as many
wavefronts as the most distinct words any one bank is asked for (one word read by several lanes is a
broadcast); a 128-bit access (LDS.128) is served a quarter warp at a time, 8 lanes whose 16-byte groups must
fall in distinct quarters of the banks. "Conflicts" are the wavefronts beyond one per access (per quarter
warp for LDS.128), as Nsight Compute's l1tex__data_bank_conflicts counts them. The index arithmetic is
kernels_cuda/separable.cu's and fast.cu's (the OpenCL twins index the same way), the shapes those
common/geometry/ chooses (tools/diagrams.py's ports). Arithmetic, not a measurement: docs/memory-spaces-evidence.md
sets it beside the profiler's counts.
"""
import math
import sys
from collections import defaultdict


def wavefronts(words):
    """One 32-bit access by the lanes that ask for `words` (None: inactive)."""
    banks = defaultdict(set)
    for word in words:
        if word is not None:
            banks[word % 32].add(word)
    return max((len(s) for s in banks.values()), default=0)


def quad_wavefronts(groups):
    """One 128-bit access: `groups` are the lanes' 16-byte group indices; each quarter warp on its own."""
    total = ideal = 0
    for quarter in range(0, len(groups), 8):
        part = [g for g in groups[quarter:quarter + 8] if g is not None]
        if part:
            quads = defaultdict(set)
            for g in part:
                quads[g % 8].add(g)
            total += max(len(s) for s in quads.values())
            ideal += 1
    return total, ideal


class Tally:
    def __init__(self):
        self.by_access = defaultdict(lambda: [0, 0])  # access -> [wavefronts, conflicts]

    def scalar(self, access, words, times=1):
        w = wavefronts(words)
        if w:
            self.by_access[access][0] += w * times
            self.by_access[access][1] += (w - 1) * times

    def quad(self, access, groups, times=1):
        w, ideal = quad_wavefronts(groups)
        self.by_access[access][0] += w * times
        self.by_access[access][1] += (w - ideal) * times

    def scaled(self, factor):
        return {k: (v[0] * factor, v[1] * factor) for k, v in self.by_access.items()}


def warps(items, threads):
    """The lanes of each warp of a loop `for (item = tid; item < items; item += threads)`: lists of item or None."""
    for base in range(0, items, threads):
        for w0 in range(0, threads, 32):
            yield [i if i < items else None for i in range(base + w0, base + w0 + 32)]


def separable_block(r, shape, row_out=8, column_out=8):
    """One block of separable.cu (IN_PITCH = IN_W | 1, DONE_PITCH = TILE_W + 1): its on-chip accesses."""
    tile_w, tile_h, band, bands, threads = (shape[k] for k in ("tile_w", "tile_h", "band", "bands", "threads"))
    in_w = tile_w + 2 * r
    in_pitch, done_pitch = in_w | 1, tile_w + 1
    t = Tally()
    for b in range(bands):
        for lanes in warps(band * in_w, threads):  # stage_band: band[row * IN_PITCH + col]
            t.scalar("separable: staging stores", [None if i is None else i // in_w * in_pitch + i % in_w
                                                   for i in lanes])
        for lanes in warps(band * (tile_w // row_out), threads):  # row_pass: row = item % BAND
            for i in range(row_out + 2 * r):
                t.scalar("separable: row-pass loads", [None if it is None else
                                                       it % band * in_pitch + it // band * row_out + i
                                                       for it in lanes])
            for o in range(row_out):
                t.scalar("separable: row-pass stores", [None if it is None else
                                                        (b * band + it % band) * done_pitch + it // band * row_out + o
                                                        for it in lanes])
    for lanes in warps(tile_w * (tile_h // column_out), threads):  # column_pass: x = item % TILE_W
        for i in range(column_out + 2 * r):
            t.scalar("separable: column-pass loads", [None if it is None else
                                                      (it // tile_w * column_out + i) * done_pitch + it % tile_w
                                                      for it in lanes])
    return t


def fast_rows_block(r, block_x, block_y, out_x, out_y, inside):
    """One block of fast.cu's rows scheme (OUT_X >= 8, OUT_Y >= 4): the tile stores of load_tile (the path for
    blocks inside the image, or the folding one) and load_segment's swizzled float4 reads."""
    tile_w = block_x * out_x + (2 * r + out_x - 1) // out_x * out_x
    tile_h = block_y * out_y + 2 * r
    segment = out_x + (2 * r + 3) // 4 * 4
    groups_per_thread = out_x // 4

    def swizzle(group):
        return group ^ ((group >> 3) & (groups_per_thread - 1))

    def tile_index(row, col):
        return row * tile_w + swizzle(col // 4) * 4 + col % 4

    threads = block_x * block_y
    t = Tally()
    lane_xy = [(lane % block_x, lane // block_x) for lane in range(threads)]
    for w0 in range(0, threads, 32):
        lanes = lane_xy[w0:w0 + 32]
        if inside:
            for row0 in range(0, tile_h, block_y):
                for col0 in range(0, tile_w, block_x):
                    t.scalar("fast rows: tile stores", [tile_index(row0 + ty, col0 + tx)
                                                        if row0 + ty < tile_h and col0 + tx < tile_w else None
                                                        for tx, ty in lanes])
        else:
            for base in range(0, tile_w * tile_h, threads):
                idx = [base + ty * block_x + tx for tx, ty in lanes]
                t.scalar("fast rows: tile stores", [tile_index(i // tile_w, i % tile_w) if i < tile_w * tile_h
                                                    else None for i in idx])
        for o in range(out_y):
            for g in range(segment // 4):
                # the row differs by fy only, which moves every lane by the same whole row: one pattern per (o, g)
                t.quad("fast rows: segment loads (LDS.128)",
                       [(ty * out_y + o) * (tile_w // 4) + swizzle(tx * groups_per_thread + g) for tx, ty in lanes],
                       times=2 * r + 1)
    return t


def separable_grid(r, shape, size=2048):
    blocks = math.ceil(size / shape["tile_w"]) * math.ceil(size / shape["tile_h"])
    return separable_block(r, shape).scaled(blocks)


def fast_rows_grid(r, block_x=8, block_y=16, out_x=8, out_y=4, size=2048):
    tile_w = block_x * out_x + (2 * r + out_x - 1) // out_x * out_x
    tile_h = block_y * out_y + 2 * r
    bx, by = math.ceil(size / (block_x * out_x)), math.ceil(size / (block_y * out_y))
    inside_x = sum(1 for i in range(bx) if i * block_x * out_x - r >= 0 and i * block_x * out_x - r + tile_w <= size)
    inside_y = sum(1 for j in range(by) if j * block_y * out_y - r >= 0 and j * block_y * out_y - r + tile_h <= size)
    inside = inside_x * inside_y
    totals = defaultdict(lambda: [0, 0])
    for flag, count in ((True, inside), (False, bx * by - inside)):
        if count:
            for k, (w, c) in fast_rows_block(r, block_x, block_y, out_x, out_y, flag).scaled(count).items():
                totals[k][0] += w
                totals[k][1] += c
    return {k: tuple(v) for k, v in totals.items()}


def main(argv):
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
    import diagrams
    s = diagrams.shapes()
    for r in [int(a) for a in argv] or [3, 12]:
        shape = diagrams.separable_shape(r, s["portable_bytes"], s["min_band"])
        rows = list(separable_grid(r, shape).items())
        if r >= s["rows_radius"]:
            rows += list(fast_rows_grid(r).items())
        for access, (w, c) in rows:
            print(f"r = {r}\t{access}\t{w} wavefronts\t{c} conflicts")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
