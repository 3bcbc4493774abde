#!/usr/bin/env python3
"""test_docs_page.py: docs/memory-spaces-evidence.md's claims re-checked against the code and the page's own tables
(and the lesson's map, docs/memory-spaces.md, where the claim moved there); run by tests/docs/test_docs_scripts.py,
which imports these tests (ctest `docs_scripts`).

  python3 tests/docs/test_docs_page.py
"""
import csv
import difflib
import pathlib
import re
import sys
import unittest

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))
import bank_model  # noqa: E402
import diagrams  # noqa: E402
import memory_spaces_tables as tables  # noqa: E402


class Page(unittest.TestCase):
    """docs/memory-spaces-evidence.md's claims about the code and its own tables, re-checked."""

    @classmethod
    def setUpClass(cls):
        cls.text = (REPO / "docs/memory-spaces-evidence.md").read_text()
        cls.flat = " ".join(cls.text.split())
        cls.lesson = (REPO / "docs/memory-spaces.md").read_text()  # the map's rows live there

    def generated(self, name):
        return self.text.split(f"<!-- generated: {name} -->\n", 1)[1].split("<!-- end generated -->", 1)[0]

    def test_texture_differs_from_constant_where_the_page_says(self):
        """Counted, not claimed: diff's hunks past each file's header comment (error 8)."""
        words = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}

        def hunks(a, b):
            def body(path):  # without the header comment, which says what the file is for
                text = (REPO / path).read_text()
                return re.sub(r"\A(?:\s*//[^\n]*\n|\s*/\*.*?\*/\n)+", "", text, flags=re.S).splitlines()
            opcodes = difflib.SequenceMatcher(None, body(a), body(b), autojunk=False).get_opcodes()
            return sum(1 for tag, *_ in opcodes if tag != "equal")

        match = re.search(r"differs from `constant` in (\w+) places in CUDA .*? and (\w+) in OpenCL", self.flat)
        self.assertIsNotNone(match)
        self.assertEqual(words[match.group(1)], hunks("kernels_cuda/constant.cu", "kernels_cuda/texture.cu"))
        self.assertEqual(words[match.group(2)], hunks("kernels_cl/constant.cl", "kernels_cl/texture.cl"))

    def test_a_note_that_promises_skipped_cells_has_them(self):
        """A sentence just above a generated table that says a row shows `skipped` needs a skipped cell (error 11)."""
        for match in re.finditer(r"((?:[^\n]+\n)+)\n<!-- generated: ([\w-]+) -->", self.text):
            if "show `skipped`" in match.group(1) or "shows `skipped`" in match.group(1):
                self.assertIn("skipped", self.generated(match.group(2)), match.group(2))

    def test_which_cu_files_have_which_constant_filter(self):
        """Those that include filter_in_constant.cuh, and those that declare their own __constant__ (error 12)."""
        cu = sorted((REPO / "kernels_cuda").glob("*.cu"))
        including = {f.name for f in cu if re.search(r'#include "[\w/]*filter_in_constant\.cuh"', f.read_text())}
        declaring = {f.name for f in cu if re.search(r"^__constant__ ", f.read_text(), re.M)}
        names = r"((?:`\w+\.cu`(?:, | and ))*`\w+\.cu`)"
        claims = re.findall(names + r"[^`]*?(?:`[^`]*`[^`]*?)?? each include `filter_in_constant\.cuh`", self.flat)
        self.assertTrue(claims)
        for claim in claims:
            self.assertEqual(set(re.findall(r"`(\w+\.cu)`", claim)), including, claim)
        claims = re.findall(names + r"[^`]*?(?:`[^`]*`[^`]*?)?? declare their own", self.flat)
        self.assertTrue(claims)
        for claim in claims:
            self.assertEqual(set(re.findall(r"`(\w+\.cu)`", claim)), declaring, claim)

    def test_eight_bit_texture_fetches(self):
        """pixel.h fetches a cc_value: float for one 8-bit channel, float4 for RGBA8 (error 1)."""
        pixel = (REPO / "common/geometry/pixel.h").read_text()
        cuda = pixel.split("defined(__CUDACC__)", 1)[1]
        self.assertIn("#define cc_texel(texture, x, y) tex2D<cc_value>(texture, x, y)", cuda)
        for fmt, value in (("U8", "float"), ("U8X4", "float4")):
            section = cuda.split(f"#elif CC_PIXEL == CC_PIXEL_{fmt}\n", 1)[1]
            self.assertRegex(section.split("#elif", 1)[0].split("#else", 1)[0], rf"typedef {value} cc_value;")
        lesson = " ".join(self.lesson.split())
        self.assertIn("`tex2D<float>` of a `uchar1` array", lesson)
        self.assertNotRegex(lesson + self.flat, r"`tex2D<float4>` of a `uchar1`")

    def test_every_global_load_is_the_read_only_one(self):
        """The page says the SASS table's plain LDG column is 0 in every row, for the six variants in it (error 2)."""
        self.assertIn("Every global load of the six variants in the SASS table compiles to it (its plain `LDG` column "
                      "is 0 in every row", self.flat)
        rows = [line.split("|")[1:-1] for line in self.generated("sass").splitlines() if line.startswith("| ")]
        header = [c.strip() for c in rows[0]]
        column = header.index("LDG")
        self.assertTrue(all(r[column].strip() == "0" for r in rows[2:]))
        self.assertIn("| global-F32 | 22 | 65 | 0 | 44 |", self.generated("sass"))  # 22 taps, 2 loads each

    def test_amd_spills_are_shown_as_the_csv_has_them(self):
        """Every vendor cell with its spills, AMD's too (error 5)."""
        block = self.generated("vendors")
        rows = {line.split(" | ")[0][2:]: line for line in block.splitlines() if line.startswith("| ")}
        with open(tables.VENDOR_CSV) as handle:
            csv_rows = list(csv.DictReader(handle))
        checked = 0
        for file, options, label in tables.THREE_VENDOR:
            for r in csv_rows:
                if r["file"] == file and r["options"] == options and r["target"] in ("gfx1030", "gfx90a"):
                    self.assertIn(f"{r['registers']}; spills {r['spills']}; LDS {r['local']} B", rows[label])
                    checked += 1
        self.assertGreaterEqual(checked, 18)
        self.assertIn("0 VGPR, 55 SGPR", rows["fast, quads, r = 4"])
        # "the CSV's scratch column is 0 in every row": AMD's SGPR spills went to VGPR lanes, not to memory
        self.assertIn("the CSV's scratch column is 0 in every row", self.flat)
        self.assertEqual({r["scratch"] for r in csv_rows}, {"0"})

    def test_arithmetic_blocks_are_current(self):
        """The blocks computed from the code (apron, banks) are what the scripts compute now."""
        for name in ("apron", "banks"):
            self.assertEqual(self.generated(name), tables.blocks(pathlib.Path("/nonexistent"), {})[name](), name)

    def test_counting_section_is_arithmetic_of_the_code_and_tables(self):
        """The apron's ratios from the first tile group, the DRAM/FMA crossover where fast changes scheme, and the
        instruction-mix figures the section quotes, as the mix table has them."""
        gx, gy = diagrams.shapes()["tile_groups"][0]
        section = self.text.split("## Counting the memory traffic", 1)[1].split("\n## ", 1)[0]
        rows = re.findall(r"^\| (\d+) \| ([\d.]+) \| (\d+) \| ([\d.]+) \|$", section, re.M)
        self.assertEqual([int(r[0]) for r in rows], [1, 3, 8, 12, 16])
        for r, loads, fmas, ratio in rows:
            r = int(r)
            expected = (gx + 2 * r) * (gy + 2 * r) / (gx * gy)
            self.assertEqual(loads, f"{expected:.2f}")
            self.assertEqual(int(fmas), (2 * r + 1) ** 2)
            self.assertAlmostEqual(float(ratio), (2 * r + 1) ** 2 / expected, delta=0.051)
        crossover = next(r for r in range(64) if (2 * r + 1) ** 2 > 8 * 32.6e12 / 2856e9)
        self.assertEqual(crossover, diagrams.shapes()["rows_radius"])
        mix = self.generated("ncu-mix")
        for quoted in ("| tiled, r = 3 | 9306112 | 261631 | 6422528 |",
                       "| tiled, r = 12 | 92798976 | 815360 | 81920000 |",
                       "| constant, r = 3 | 22675456 | 6421504 | 0 | 0 | 36583496 |",
                       "| global, r = 3 | 19923968 | 12845056 | 0 | 0 | 43006024 |",
                       "| texture, r = 3 | 655360 | 0 | 0 | 6422528 | 0 | 95334400 |",
                       "| texture, r = 12 | 655360 | 0 | 0 | 81920000 | 0 | 1125376000 |"):
            self.assertIn(quoted, mix)
        self.assertIn("`2 x (2 + 6 x 3) / 7 = 5.71`", section)  # one of 2r + 1 = 7 offsets 32-byte aligned

    def test_hierarchy_table_is_the_pictures(self):
        """The page's hierarchy table quotes what hierarchy.svg draws from the tables, figure by figure (item 2)."""
        section = self.text.split("## The hierarchy in one picture", 1)[1].split("\n## ", 1)[0]
        flat = " ".join(section.split())
        self.assertIn("](img/hierarchy.svg)", section)
        levels = {row[0]: row for row in diagrams.hierarchy_levels(diagrams.shapes(), diagrams.measured())}
        m = diagrams.measured()
        self.assertIn(f"{m['shared_wavefronts']:,} wavefronts in {m['shared_us']:g} µs", flat)
        self.assertIn(f"{m['shared_wavefronts'] / m['shared_us'] / 1e3:.0f} G wavefronts/s", flat)
        tiled12 = self.generated("ncu").split("**r = 12**", 1)[1]
        conflicts = re.search(r"^\| tiled \| (?:[^|]+\|){5} (\d+) \|", tiled12, re.M).group(1)
        self.assertIn(f"{int(conflicts):,} of them counted as bank conflicts", flat)
        self.assertIn(f"{m['l1_sectors']:,} sectors of 32 bytes in {m['l1_us']:g} µs: "
                      f"{m['l1_sectors'] * 32 / m['l1_us'] / 1e6:.1f} TB/s", flat)
        self.assertIn(f"| DRAM | {m['copy_gbs']} GB/s |", section)
        self.assertIn(levels["host"][5].split(" (PCIe")[0].replace(" = ", ": "), flat)
        self.assertIn(f"{m['registers'][0]} to {m['registers'][1]} per thread", flat)
        l2_rate = m["l2_bytes_mb"] / m["l2_us"]  # TB/s
        self.assertIn(f"| L2 | {m['l2_bytes_mb']:g} MB through L2 in {m['l2_us']:g} µs: {l2_rate:.2f} TB/s |", section)
        self.assertIn(f"moves {l2_rate:.2f} TB/s through it, {100 * l2_rate * 1e3 / m['peaks']['L2'][0]:.0f}% of the "
                      f"probe's {m['peaks']['L2'][0]} GB/s", flat)
        self.assertIn(f"moved {m['l2_bytes_mb']:g} MB through L2", levels["L2"][6])

    def test_tile_size_table_is_the_formula_over_the_tile_groups(self):
        """Loads per output and FMAs per byte for every kTileGroups shape, and the other variants' tiles (item 2)."""
        groups = diagrams.shapes()["tile_groups"]
        section = self.text.split("**The same price for every tile this tree uses.**", 1)[1].split("\n\n**", 1)[0]
        header = re.search(r"^\| r \| (.*) \|$", section, re.M).group(1).split(" | ")
        self.assertEqual(header, [f"{x} x {y}" for x, y in groups])
        rows = re.findall(r"^\| (\d+) \| (.*) \|$", section, re.M)
        self.assertEqual([int(r) for r, _ in rows], [1, 3, 8, 12, 16])
        for r, cells in rows:
            r = int(r)
            for (gx, gy), cell in zip(groups, cells.split(" | ")):
                loads = (gx + 2 * r) * (gy + 2 * r) / (gx * gy)
                self.assertEqual(cell, f"{loads:.2f} ({(2 * r + 1) ** 2 / (4 * loads):.1f})", (r, gx, gy))
        s = diagrams.shapes()
        sep = diagrams.separable_shape(12, s["portable_bytes"], s["min_band"])
        self.assertEqual((sep["tile_w"], sep["tile_h"]), (32, 128))
        flat = " ".join(section.split())
        self.assertIn(f"= {(32 + 24) * (128 + 24) / (32 * 128):.2f} pixels per output for its {2 * 25} FMAs", flat)
        tx, ty = s["tall_rows"][0]
        tile_w = tx * 8 + (2 * 12 + 7) // 8 * 8
        tile_h = ty * 4 + 2 * 12
        self.assertEqual((tile_w, tile_h), (88, 88))
        self.assertIn(f"an {tile_w} x {tile_h} tile", flat)
        loads = tile_w * tile_h / (tx * 8 * ty * 4)
        self.assertIn(f"{loads:.2f} per output for 625 FMAs, {625 / (4 * loads):.1f} FMAs per byte", flat)

    def test_banks_paragraph_is_the_model_and_the_tables(self):
        """tiled's two half-warps: pitch 16 + 2r conflicts at r = 3 and 12, a pitch of 48 would not; the quoted counts
        are the tables' (item 2); the padded tile the paragraph points at is in both separable twins."""
        flat = self.flat.split("**Banks, and the padding fix.**", 1)[1].split("**The texture cache", 1)[0]

        def half_warps(pitch):
            return bank_model.wavefronts([a * pitch + x for a in (0, 1) for x in range(16)])
        self.assertEqual((half_warps(16 + 6), half_warps(16 + 24), half_warps(48)), (2, 2, 1))
        self.assertEqual(bank_model.wavefronts([row * 32 for row in range(32)]), 32)
        self.assertEqual(bank_model.wavefronts([row * 33 for row in range(32)]), 1)
        for path in ("kernels_cuda/separable.cu", "kernels_cl/separable.cl"):
            text = (REPO / path).read_text()
            self.assertIn("#define IN_PITCH (IN_W | 1)", text)
            self.assertIn("#define DONE_PITCH (TILE_W + 1)", text)
        # bank-rule.svg: the same warps, tiled's as tiled.cu indexes its tile (lane l: row l / 16, column l % 16)
        kernel = " ".join((REPO / "kernels_cuda/tiled.cu").read_text().split())
        self.assertIn("cc_load(tile, (ly + fy) * tile_width + lx + fx)", kernel)
        self.assertEqual(diagrams.tiled_warp_words(16, 3)[:17], list(range(16)) + [22])
        self.assertEqual([bank_model.wavefronts(words) for _, words, _ in diagrams.bank_rule_cases(diagrams.shapes())],
                         [32, 1, 2, 1])
        svg = (REPO / "docs/img/bank-rule.svg").read_text()
        for text in (">32 wavefronts<", "pitch 16 + 2r = 22", ">2 wavefronts<", "a pitch of 48 (16 mod 32): not built"):
            self.assertIn(text, svg)
        self.assertIn("](img/bank-rule.svg)", self.text)
        ncu, mix = self.generated("ncu"), self.generated("ncu-mix")
        self.assertRegex(ncu.split("**r = 12**")[0], r"\| tiled \| (?:[^|]+\|){6} 13618929 \|")
        self.assertRegex(ncu.split("**r = 12**")[1], r"\| tiled \| (?:[^|]+\|){6} 165350046 \|")
        self.assertIn("| tiled, r = 3 | 9306112 | 261631 | 6422528 |", mix)
        self.assertIn("13,618,929 wavefronts for 6,422,528 shared loads", flat)
        self.assertIn("165,350,046 for 81,920,000 at r = 12 (pitch 40)", flat)

    def test_every_memory_path_section_has_its_measurement_or_its_command(self):
        """Item 4: each path's section has its measurement; tma's range is docs/performance.md's tma/tiled cells."""
        sections = {name: self.text.split(f"## {name}", 1)[1].split("\n## ", 1)[0] for name in (
            "Asynchronous copies", "Warp and sub-group shuffles", "Thread-block clusters", "Zero-copy host memory",
            "One pointer, pages migrated", "Tensor Memory Accelerator", "Two GPUs")}
        self.assertIn("**Measured** (docs/performance.md", sections["Asynchronous copies"])
        for name in ("Warp and sub-group shuffles", "Thread-block clusters", "Zero-copy host memory",
                     "One pointer, pages migrated", "Tensor Memory Accelerator", "Two GPUs"):
            self.assertIn("**Measured**", sections[name], name)
            self.assertNotIn("Placeholder", sections[name], name)
        paths = (REPO / "docs/performance.md").read_text().split("<!-- paths tables: begin -->", 1)[1]
        paths = paths.split("<!-- paths tables: end -->", 1)[0]
        ratios = []  # every tma/tiled cell of the paths tables: a rerun that moves them fails here until the prose follows
        for header, rows in re.findall(r"^(\|[^\n]*tma/tiled CUDA[^\n]*)\n\|[-|]+\n((?:\|[^\n]*\n)+)", paths, re.M):
            column = [cell.strip() for cell in header.strip("|").split("|")].index("tma/tiled CUDA")
            ratios += [float(row.strip("|").split("|")[column]) for row in rows.splitlines()]
        self.assertEqual(len(ratios), 28)
        self.assertIn(f"{min(ratios):.2f}-{max(ratios):.2f}x `tiled`'s kernel time in all {len(ratios)} problems",
                      " ".join(sections["Tensor Memory Accelerator"].split()))
        self.assertIn("](img/async-pipeline.svg)", sections["Asynchronous copies"])
        self.assertIn("](img/cluster-apron.svg)", sections["Thread-block clusters"])
        cluster = " ".join(sections["Thread-block clusters"].split())
        top = diagrams.cluster_sources((16, 16), (1, 0), (4, 2), 3)
        left = diagrams.cluster_sources((16, 16), (0, 1), (4, 2), 3)
        apron = 22 * 22 - 256
        self.assertIn(f"block 1 of the cluster reads {apron - top.count('global')} of its {apron} apron cells", cluster)
        self.assertIn(f"and {top.count('global')} (the three rows above", cluster)
        self.assertIn(f"{apron - left.count('global')} and {left.count('global')}.", cluster)
        # the files the host-memory sections cite hold what they say
        self.assertIn("cudaHostAllocMapped", (REPO / "backends/cuda/cuda_resources.cpp").read_text())
        self.assertIn("cudaMallocManaged(&data, bytes, cudaMemAttachGlobal)",
                      (REPO / "backends/cuda/cuda_resources.cpp").read_text())
        self.assertIn("CL_DEVICE_SVM_COARSE_GRAIN_BUFFER", (REPO / "backends/opencl/cl_svm.cpp").read_text())
        self.assertIn("CL_DEVICE_HOST_UNIFIED_MEMORY", (REPO / "backends/opencl/cl_devices.cpp").read_text())
        self.assertIn("CL_MEM_ALLOC_HOST_PTR", (REPO / "backends/opencl/cl_frame.h").read_text())

    def test_group_size_promises_are_where_the_page_says(self):
        """The vocabulary table's kernels with __launch_bounds__ / reqd_work_group_size are the ones that have them."""
        row = next(line for line in self.lesson.splitlines() if line.startswith("| a promise about the group size"))
        named = set(re.findall(r"`(\w+)`(?:, | and | in both)", row.split(" | ")[3]))
        cuda = {f.stem for f in (REPO / "kernels_cuda").glob("*.cu") if "__launch_bounds__" in f.read_text()}
        cl = {f.stem for f in (REPO / "kernels_cl").glob("*.cl") if "reqd_work_group_size" in f.read_text()}
        self.assertEqual(named, cuda)
        self.assertEqual(named, cl)
        self.assertIn("__launch_bounds__(THREADS, 1024 / THREADS)", (REPO / "kernels_cuda/separable.cu").read_text())

    def test_a_left_out_metric_has_empty_cells(self):
        """No metric is called left out while a column that needs it is filled (error 4)."""
        note = re.search(r"Metrics this ncu did not know \(left out[^)]*\): (.*)", self.generated("ncu"))
        if note and "sm__maximum_warps_per_active_cycle_pct" in note.group(1):
            self.assertNotRegex(self.generated("ncu"), r"\| [\d.]+ / [\d.]+ \|")


if __name__ == "__main__":
    unittest.main()
