#!/usr/bin/env python3
"""test_docs_pictures.py: the measured figures docs/img/hierarchy.svg and two-gpus.svg carry are the pages' table
cells and the code's band plan, and a changed cell changes the picture; run by
tests/docs/test_docs_scripts.py, which imports these tests (ctest `docs_scripts`).

  python3 tests/docs/test_docs_pictures.py
"""
import pathlib
import shutil
import sys
import tempfile
import unittest

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))
import diagram_base  # noqa: E402
import diagrams  # noqa: E402


def drawn_with_cell(page, old, new, draw):
    """The picture `draw` makes from copies of both pages in which `page` has its first `old` replaced by `new`:
    diagram_base reads DOCS when called, so pointing it at the copies is enough."""
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("performance.md", "memory-spaces-evidence.md"):
            shutil.copy(REPO / "docs" / name, pathlib.Path(tmp) / name)
        changed = pathlib.Path(tmp) / page
        changed.write_text(changed.read_text().replace(old, new, 1))
        original, diagram_base.DOCS = diagram_base.DOCS, pathlib.Path(tmp)
        try:
            return draw(diagrams.shapes())
        finally:
            diagram_base.DOCS = original


class MeasuredPictures(unittest.TestCase):
    def test_the_hierarchy_carries_the_probe_peaks(self):
        """hierarchy.svg's L2, L1 and shared rows carry bandwidth_probe.cu's peaks from the paths-peaks table's cells
        (never "not measured"), beside what a kernel asked; a changed cell changes the picture."""
        page = (REPO / "docs/memory-spaces-evidence.md").read_text()
        peaks = page.split("<!-- generated: paths-peaks -->", 1)[1].split("<!-- end generated -->", 1)[0]
        cells = {}  # space -> (GB/s, how), read from the generated table, whatever the last probe run measured
        for space, how in (("L2", "half the L2 swept 100 times with ld.global.cg"),
                           ("L1", "a 32 KB window per block swept with ld.global.ca"),
                           ("shared", "32 KB per block, conflict-free LDS.128")):
            row = next(line for line in peaks.splitlines() if line.startswith(f"| {space} |"))
            rate = int(row.split("|")[2])
            self.assertIn(f"| {space} | {rate} | {how} |", peaks)
            cells[space] = rate
        l2, l1, shared = cells["L2"], cells["L1"], cells["shared"]
        svg = (REPO / "docs/img/hierarchy.svg").read_text()
        self.assertIn(f"probe peak: {l2} GB/s (half the L2 swept 100 times with ld.global.cg)", svg)
        self.assertIn(f"probe peak: {l1} GB/s (a 32 KB window per block swept with ld.global.ca)", svg)
        # 128 bytes a wavefront (32 banks of 4 bytes): shared / 128 G wavefronts/s; tiled's 204 G/s a share of it
        self.assertIn(f"probe peak: {shared} GB/s (32 KB per block, conflict-free LDS.128) = {shared / 128:.0f} G "
                      "wavefronts/s", svg)
        self.assertIn(f"= 204 G/s ({100 * 165350046 / 811e3 / (shared / 128):.0f}% of it)", svg)
        self.assertIn(f"= 8.3 TB/s ({100 * 43006024 * 32 / 165e3 / l1:.0f}% of it)", svg)
        self.assertNotIn("not measured on this tree", svg)
        # the prose quotes the same peaks and shares, and no longer says the picture lacks the peaks
        section = " ".join(page.split("## The hierarchy in one picture", 1)[1].split("\n## ", 1)[0].split())
        self.assertIn(f"8.3 of its {l1 / 1000:.1f} TB/s, {100 * 43006024 * 32 / 165e3 / l1:.0f}%", section)
        self.assertIn(f"the probe's {shared} GB/s is {shared / 128:.0f} G wavefronts/s, and `tiled`'s 204 G/s is "
                      f"{100 * 165350046 / 811e3 / (shared / 128):.0f}% of that", section)
        self.assertNotIn("does not carry them yet", section)
        drawn = drawn_with_cell("memory-spaces-evidence.md", f"| L2 | {l2} |", "| L2 | 7000 |", diagrams.hierarchy_svg)
        self.assertIn("probe peak: 7000 GB/s", drawn)
        self.assertNotEqual(drawn, svg)

    def test_the_two_gpu_picture_is_the_band_plan_and_the_tables(self):
        """two-gpus.svg: the bands are band_plan.cpp's (the port gives test_band_plan.cpp's values), the measured
        figures are docs/performance.md's "Two GPUs" cells, and a changed cell changes the picture."""
        plan = " ".join((REPO / "common/geometry/band_plan.cpp").read_text().split())
        for line in ("const int each = height / devices;",
                     "band.rows = index == devices - 1 ? height - band.first_row : each;",
                     "band.halo_above = wrap ? radius : std::min(radius, band.first_row);",
                     "band.halo_below = wrap ? radius : std::min(radius, height - end);"):
            self.assertIn(line, plan)
        self.assertEqual(diagrams.plan_bands(10, 2, 3), [(0, 3, 0, 2), (3, 3, 2, 2), (6, 4, 2, 0)])
        self.assertEqual(diagrams.plan_bands(10, 5, 3)[1], (3, 3, 3, 4))
        self.assertEqual(diagrams.plan_bands(10, 2, 2, wrap=True)[0], (0, 5, 2, 2))
        self.assertEqual(diagrams.plan_bands(8192, 7, 2), [(0, 4096, 0, 7), (4096, 4096, 7, 0)])
        perf = " ".join((REPO / "docs/performance.md").read_text().split())
        self.assertIn("--variant fast --size 8192x8192 --filter box:r=7", perf)
        for row in ("| split, kernel ms, CUDA | 0.695 | 0.364 | 1.91x |",
                    "| split, kernel ms, OpenCL | 0.689 | 0.357 | 1.93x |",
                    "| stream frames/s, CUDA, 8192^2 f32 | 177.3 / 164.8 | 277.5 | 1.57-1.68x |",
                    "| stream frames/s, OpenCL, 2048^2 RGBA8 (seed 000's job) | 2718 / 2761 | 4670 | 1.69-1.72x |"):
            self.assertIn(row, perf)
        svg = (REPO / "docs/img/two-gpus.svg").read_text()
        for text in ("bands of 4096 and 4096 rows, each with 7 halo rows, 4103 rows a GPU",
                     "CUDA 0.695 -&gt; 0.364 (1.91x), OpenCL 0.689 -&gt; 0.357 (1.93x)",
                     "CUDA, 8192^2 f32: 177.3 / 164.8 frames/s alone, 277.5 on both (1.57-1.68x): "
                     f"{277.5 * 8192 * 8192 * 4 / 1e9:.0f} GB/s each way",
                     "OpenCL, 2048^2 RGBA8: 2718 / 2761 frames/s alone, 4670 on both (1.69-1.72x): "
                     f"{4670 * 2048 * 2048 * 4 / 1e9:.0f} GB/s each way",
                     "N devices: the same, N bands", "cudaMemcpyPeerAsync over NVLink"):
            self.assertIn(text, svg)
        # the small frame: 20 rows, r = 2: each GPU's sub-image is its 10 rows and 2 halo rows (12 strips each)
        self.assertEqual(diagrams.plan_bands(20, 2, 2), [(0, 10, 0, 2), (10, 10, 2, 0)])
        page = (REPO / "docs/memory-spaces-evidence.md").read_text()
        self.assertIn("](img/two-gpus.svg)", page.split("## Two GPUs", 1)[1])
        drawn = drawn_with_cell("performance.md", "| 0.695 | 0.364 |", "| 0.695 | 0.4 |", diagrams.two_gpus_svg)
        self.assertIn("CUDA 0.695 -&gt; 0.4 (1.91x)", drawn)
        # the host link's ceiling is host_link_probe's table, not a figure typed in the drawing
        self.assertIn("carry 77 GB/s each way (host_link_probe), one GPU 48: 1.6x", svg)
        drawn = drawn_with_cell("performance.md", "| both GPUs | 110.3 | 110.3 | 154.7 |",
                                "| both GPUs | 110.3 | 110.3 | 180.0 |", diagrams.two_gpus_svg)
        self.assertIn("carry 90 GB/s each way (host_link_probe), one GPU 48: 1.9x", drawn)


if __name__ == "__main__":
    unittest.main()
