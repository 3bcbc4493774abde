#!/usr/bin/env python3
"""test_validation_matrix.py: docs/portability.md's validation matrix is what tools/validation_matrix.py makes of the stored reports (docs/validation/*.json) and the vendor table, and each cell says what its runs came to.

  python3 tests/docs/test_validation_matrix.py
"""
import copy
import json
import pathlib
import sys
import tempfile
import unittest

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))
import validation_matrix as matrix  # noqa: E402

PAGE = REPO / "docs/portability.md"
VENDOR = REPO / "docs/vendor-resources.csv"


def device(name, platform, **properties):
    return dict(backend="opencl", id="opencl:0:0", name=name,
                properties={"type": "CPU", "platform version": platform, "sub-group shuffle": "none",
                            "max work-group size": "4096", **properties})


def run(variant, status="ok", pixel="f32", channels=1, reason="", width=67):
    return dict(backend="opencl", device="opencl:0:0", variant=variant, pixel=pixel, channels=channels, status=status,
                reason=reason, width=width, height=45, filter="box:r=1", border="mirror", max_abs_error=516.0,
                tolerance=0.0078)


def report(dev, runs, command=("tools/validation_runs.sh", "build/convcompare", "opencl:0:0", "out.json")):
    return dict(command=list(command), created="2026-01-02T03:04:05Z", tool=dict(version="0.1.0", git="abc"),
                incomplete="", devices=[dev], runs=runs, streams=[])


POCL3 = device("pthread-skylake", "OpenCL 3.0 PoCL 3.1+debian  Linux")


class Matrix(unittest.TestCase):
    def section(self, *reports):
        with tempfile.TemporaryDirectory() as work:
            paths = []
            for index, value in enumerate(reports):
                path = pathlib.Path(work) / f"{index}.json"
                path.write_text(json.dumps(value))
                paths.append(str(path))
            return matrix.section(paths, str(VENDOR))

    def row(self, text, label, table=0):
        """The cells of LABEL's row in the TABLE-th table, by variant."""
        tables = [block for block in text.split("\n\n") if block.startswith("| implementation")]
        header, _, *rows = tables[table].splitlines()
        names = [cell.strip() for cell in header.strip("|").split("|")][1:]
        for line in rows:
            cells = [cell.strip() for cell in line.strip("|").split("|")]
            if cells[0] == label:
                return dict(zip(names, cells[1:]))
        self.fail(f"no row {label!r} in table {table}:\n{tables[table]}")

    def test_the_page_is_what_the_stored_reports_give(self):
        reports = sorted(str(path) for path in (REPO / "docs/validation").glob("*.json"))
        self.assertTrue(reports, "no stored reports in docs/validation/")
        page = PAGE.read_text()
        self.assertEqual(matrix.splice(page, matrix.section(reports, str(VENDOR))), page,
                         "docs/portability.md's matrix is stale: python3 tools/validation_matrix.py "
                         "docs/validation/*.json --vendor docs/vendor-resources.csv --write docs/portability.md")

    def test_stored_reports_are_small_and_name_their_command(self):
        for path in (REPO / "docs/validation").glob("*.json"):
            self.assertLess(path.stat().st_size, 300_000, path.name)
            stored = json.loads(path.read_text())
            self.assertTrue(any(word.endswith("validation_runs.sh") for word in stored["command"]), path.name)
            self.assertTrue(stored["runs"], path.name)

    def test_cells_say_what_the_runs_came_to(self):
        runs = [run("global"), run("global", channels=3), run("tiled"),
                run("tiled", "failed", reason="pixel (0, 0)", width=257),
                run("separable"), run("separable", "skipped", reason="filter is not separable"),
                run("shuffle", "skipped", reason="the device offers no sub-group shuffle (CL_DEVICE_EXTENSIONS ...)"),
                run("tma", "skipped", reason="OpenCL has no tensor memory accelerator (its nearest is async's)"),
                run("fast", pixel="u8"),
                run("fft", "skipped", pixel="u8", reason="fft has no u8 kernels (pixel types: f32)")]
        text = self.section(report(POCL3, runs))
        cells = self.row(text, "PoCL 3.1 (CPU)")
        self.assertEqual(cells["global"], "validated (2)")
        self.assertEqual(cells["tiled"], "**failed** 1 of 2: 257x45 box:r=1 mirror")
        self.assertIn("- tiled f32 failed at 257x45 box:r=1 mirror: pixel (0, 0) (max error 516, tolerance 0.0078)",
                      text)
        self.assertEqual(cells["separable"], "validated (1), 1 skipped: filter is not separable")
        self.assertEqual(cells["shuffle"], "skipped: the device offers no sub-group shuffle")
        self.assertEqual(cells["tma"], "absent in OpenCL")
        self.assertEqual(cells["fast"], "—")
        u8 = self.row(text, "PoCL 3.1 (CPU)", 1)
        self.assertEqual(u8["fast"], "validated (1)")
        self.assertEqual(u8["global"], "—")
        self.assertIn("- the device offers no sub-group shuffle: the device offers no sub-group shuffle "
                      "(CL_DEVICE_EXTENSIONS ...)", text)
        self.assertIn("- PoCL 3.1 (CPU): `tools/validation_runs.sh build/convcompare opencl:0:0 out.json`", text)
        # Every row of the matrix's device list stays, those without a report never run.
        for label in ("Rusticl", "Oclgrind", "PoCL 5.0", "NVIDIA OpenCL", "CUDA"):
            self.assertEqual(set(self.row(text, label).values()), {"never run"}, label)
        # The vendor rows: what their compilers built, and the runtimes' skips for what a variant lacks.
        amd, intel = self.row(text, "AMD ROCm (compile only)", 1), self.row(text, "Intel ocloc (compile only)", 1)
        self.assertEqual(amd["fast"], "compiled only (gfx1030)")
        self.assertEqual(amd["shuffle"], "not compiled")
        self.assertEqual(intel["shuffle"], "compiled only (tgllp)")
        self.assertEqual(intel["fft"], "skipped: fft has no u8 kernels")
        self.assertEqual(self.row(text, "Intel ocloc (compile only)")["tma"], "absent in OpenCL")

    def test_rows_are_named_from_the_device(self):
        pocl5 = device("cpu-skylake-avx512", "OpenCL 3.0 PoCL 5.0+debian", **{"sub-group shuffle": "cl_khr"})
        nvidia = device("NVIDIA H200", "OpenCL 3.0 CUDA 12.4.131", type="GPU")
        cuda = dict(device("NVIDIA H200", "", type="GPU", **{"runtime version": "12.4"}), backend="cuda", id="cuda:0")
        small = copy.deepcopy(POCL3)
        small["properties"]["max work-group size"] = "64"
        text = self.section(report(pocl5, [run("shuffle")]), report(nvidia, [run("shuffle", "failed", reason="x")]),
                            report(cuda, [dict(run(name), backend="cuda", device="cuda:0")
                                          for name in ("cluster", "npp")]),
                            report(small, [run("fast")]))
        self.assertEqual(self.row(text, "PoCL 5.0 (CPU, sub-groups)")["shuffle"], "validated (1)")
        self.assertEqual(self.row(text, "NVIDIA OpenCL 3.0 (H200)")["shuffle"],
                         "**failed** 1 of 1: 67x45 box:r=1 mirror")
        self.assertEqual(self.row(text, "CUDA 12.4 (H200)")["cluster"], "validated (1)")
        # CUDA's own variants: a column each, empty for OpenCL and its compilers.
        self.assertEqual(self.row(text, "CUDA 12.4 (H200)")["npp"], "validated (1)")
        self.assertEqual(self.row(text, "NVIDIA OpenCL 3.0 (H200)")["npp"], "—")
        self.assertEqual(self.row(text, "AMD ROCm (compile only)")["npp"], "—")
        self.assertEqual(self.row(text, "AMD ROCm (compile only)")["lowrank"], "compiled only (gfx1030, gfx90a)")
        self.assertEqual(self.row(text, "PoCL 3.1 (CPU, 64 work-items per group)")["fast"], "validated (1)")
        self.assertEqual(set(self.row(text, "PoCL 3.1")["fast"].split()), {"never", "run"})
        self.assertEqual([line.split(" | ")[0] for line in text.splitlines() if line.startswith("| ")][2:10],
                         ["| PoCL 3.1", "| Rusticl", "| Oclgrind", "| PoCL 5.0 (CPU, sub-groups)",
                          "| NVIDIA OpenCL 3.0 (H200)", "| CUDA 12.4 (H200)",
                          "| PoCL 3.1 (CPU, 64 work-items per group)",
                          "| AMD ROCm (compile only)"])

    def test_a_call_that_wrote_no_report_fails_its_cells(self):
        lost = report(POCL3, [run("global"), run("separable", channels=3)])
        lost["incomplete"] = ("no report: separable u8 3 channels (--channels 3 --size 67x45): exit 2: convcompare: "
                              "error: the kernel 'separable' did not finish within 120 s (waiting): it may never "
                              "return")
        text = self.section(lost)
        self.assertEqual(self.row(text, "PoCL 3.1 (CPU)", 2)["separable"],
                         "**failed**: no report: the kernel 'separable' did not finish within 120 s")
        self.assertEqual(self.row(text, "PoCL 3.1 (CPU)")["separable"], "validated (1)")
        self.assertEqual(self.row(text, "PoCL 3.1 (CPU)", 1)["separable"], "—")
        self.assertIn("(--channels 3 --size 67x45): the kernel 'separable' did not finish within 120 s (waiting): it "
                      "may never return", text)

    def test_reports_of_one_implementation_make_one_row(self):
        text = self.section(report(POCL3, [run("global")]), report(POCL3, [run("global", "skipped", reason="y")],
                                                                     command=("second",)))
        self.assertEqual(self.row(text, "PoCL 3.1 (CPU)")["global"], "validated (1), 1 skipped: y")
        self.assertIn("`second`", text)


if __name__ == "__main__":
    unittest.main()
