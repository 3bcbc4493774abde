#!/usr/bin/env python3
"""test_docs_scripts.py: docs/memory-spaces.md's scripts: the pictures are current and drawn from the real shapes,
and the table generator puts each measured figure in its cell (on a synthesized output directory).

  python3 tests/docs/test_docs_scripts.py [PATH/TO/cl_configurations]
"""
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))
import diagrams  # noqa: E402
import memory_spaces_tables as tables  # noqa: E402

CL_CONFIGURATIONS = None  # set from argv


def run_record(backend, variant, pixel, channels, radius, median, status="ok", compile_time=""):
    return dict(backend=backend, variant=variant, pixel=pixel, channels=channels, radius_x=radius, radius_y=radius,
                status=status, reason="" if status == "ok" else "a reason", untimed=None,
                kernel_ms=dict(median=median), compile_time=compile_time)


class Diagrams(unittest.TestCase):
    def test_pictures_are_current(self):
        result = subprocess.run([sys.executable, str(REPO / "tools/diagrams.py"), "--check"], capture_output=True,
                                text=True)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    def test_constants_come_from_the_headers(self):
        s = diagrams.shapes()
        self.assertEqual(s["tile_groups"][0], (16, 16))
        self.assertEqual(s["tall_rows"][0], (8, 16))
        self.assertEqual((s["rows_radius"], s["tall_radius"]), (5, 16))

    def test_separable_shape_matches_the_cpp_choice(self):
        """The picture's port of separable_shape.h chooses what the C++ does, at every square radius."""
        if not CL_CONFIGURATIONS:
            self.skipTest("no cl_configurations given")
        options = set(line.split("\t")[1] for line in subprocess.run(
            [CL_CONFIGURATIONS, "--all"], capture_output=True, text=True, check=True).stdout.splitlines()
            if line.startswith("separable.cl"))
        s = diagrams.shapes()
        for radius in range(0, 33):
            shape = diagrams.separable_shape(radius, s["portable_bytes"], s["min_band"])
            expected = (f"-DRADIUS_X={radius} -DRADIUS_Y={radius} -DTHREADS={shape['threads']} "
                        f"-DTILE_W={shape['tile_w']} -DTILE_H={shape['tile_h']} -DROW_OUT=8 -DCOLUMN_OUT=8 "
                        f"-DBAND={shape['band']} -DBANDS={shape['bands']}")
            self.assertIn(expected, options, f"r = {radius}")

    def test_border_rule_matches_conv_args(self):
        # conv_args.h's REFLECT_101 on n = 5: -1 -> 1, 5 -> 3; wrap: -1 -> 4; clamp: 7 -> 4; zero: -1
        self.assertEqual([diagrams.border_index(i, 5, "mirror") for i in (-3, -1, 5, 7)], [3, 1, 3, 1])
        self.assertEqual(diagrams.border_index(-1, 5, "wrap"), 4)
        self.assertEqual(diagrams.border_index(7, 5, "clamp"), 4)
        self.assertEqual(diagrams.border_index(-1, 5, "zero"), -1)


class Tables(unittest.TestCase):
    def setUp(self):
        self.out = pathlib.Path(tempfile.mkdtemp())
        (self.out / "ncu").mkdir()
        (self.out / "ptxas").mkdir()
        (self.out / "meta.txt").write_text("mode=gpu\nsize=2048x2048\nlarge=8192x8192\nradii=1,3\nlarge_radii=3\n"
                                           "ncu_radii=3 12\ncold=no\ngit=abc1234\ndate=2026-01-01T00:00:00Z\n"
                                           "gpu=NVIDIA H100 80GB HBM3, 580.0\n")
        warm = [run_record("cuda", "global", "f32", 1, 3, 0.05), run_record("opencl", "global", "f32", 1, 3, 0.06),
                run_record("cuda", "fast", "u8", 1, 3, None, status="skipped"),
                run_record("cuda", "fast", "f32", 1, 3, 0.02,
                           compile_time="radius: compile-time; NVRTC -DRADIUS_X=3 -DRADIUS_Y=3 -DBLOCK_X=32 "
                                        "-DBLOCK_Y=8 -DOUT_X=4 -DOUT_Y=4")]
        (self.out / "warm.json").write_text(json.dumps({"runs": warm}))
        (self.out / "warm-rgba.json").write_text(json.dumps({"runs": [run_record("cuda", "texture", "u8", 4, 3, 0.5)]}))
        (self.out / "ncu" / "global-f32-r3.csv").write_text(
            '==PROF== Connected to process 1\n'
            '"ID","Process ID","Kernel Name","dram__bytes_read.sum","dram__bytes_write.sum",'
            '"l1tex__t_sector_hit_rate.pct","smsp__inst_executed_op_ldc.sum"\n'
            '"","","","byte","byte","%","inst"\n'
            '"0","1","convolve_global","16777216","16777216","87.5","0"\n')
        (self.out / "ptxas" / "tiled-F32.txt").write_text(
            "# nvcc -cubin -arch=sm_90 --fmad=true -std=c++17 -DCC_PIXEL=CC_PIXEL_F32 kernels_cuda/tiled.cu\n"
            "ptxas info    : Compiling entry function '_ZN12_GLOBAL__N_114convolve_tiledEPKfPf8ConvArgs' for 'sm_90'\n"
            "    0 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n"
            "ptxas info    : Used 40 registers, used 1 barriers\n")
        (self.out / "sass.txt").write_text(
            "\tFunction : _ZN12_GLOBAL__N_117convolve_constantEPKhPh8ConvArgs\n"
            "        /*0000*/                   LDC R1, c[0x0][0x28] ;\n"
            "        /*0010*/               @P0 LDC R2, c[0x3][R0] ;\n"
            "        /*0020*/                   FFMA R3, R2, R4, R3 ;\n"
            "        /*0030*/                   LDG.E.CONSTANT R5, desc[UR4][R6.64] ;\n")
        self.page = self.out / "page.md"
        self.page.write_text("".join(f"<!-- generated: {name} -->\nOLD-CONTENT\n<!-- end generated -->\n"
                                     for name in ("warm", "pixels", "cold", "ncu", "ncu-mix", "ptxas", "sass", "apron")))

    def tearDown(self):
        shutil.rmtree(self.out)

    def block(self, name):
        text = self.page.read_text()
        return text.split(f"<!-- generated: {name} -->\n", 1)[1].split("<!-- end generated -->", 1)[0]

    def test_each_figure_lands_in_its_cell(self):
        tables.rewrite(self.out, self.page, None)
        self.assertNotIn("OLD-CONTENT", self.page.read_text())
        self.assertIn("| global | - / - | 0.05 / 0.06 (1.20) |", self.block("warm"))
        self.assertIn("skipped / -", self.block("pixels"))
        self.assertIn("0.5 / -", self.block("pixels"))
        self.assertIn("no `--cold` option", self.block("cold"))
        ncu = self.block("ncu")
        self.assertIn("| global | - | 16.8 | 16.8 | 87.5 |", ncu)
        self.assertIn("| tiled-F32 | -DCC_PIXEL=CC_PIXEL_F32 | 40 | 8 / 4 | 0 | 0 |".replace(
            "-DCC_PIXEL=CC_PIXEL_F32", "(none)"), self.block("ptxas"))
        sass = self.block("sass")
        self.assertIn("| constant (u8) | 1 | 2 | 0 | 1 |", sass)
        self.assertIn("| 12 | 40 x 40 | 1600 | 6.25 | 7 | 192 | 11% |", self.block("apron"))
        self.assertIn("H100", self.block("warm"))
        self.assertNotIn("local test run", self.block("warm"))

    def test_a_kernel_built_twice_is_one_sass_row(self):
        sass_path = self.out / "sass.txt"
        sass_path.write_text(sass_path.read_text() + "# file constant-U8.cubin\n" + sass_path.read_text())
        tables.rewrite(self.out, self.page, None)
        sass = self.block("sass")
        self.assertIn("| constant-U8 | 1 | 2 | 0 | 1 |", sass)
        self.assertNotIn("constant (u8)", sass)

    def test_a_local_run_says_so(self):
        meta = (self.out / "meta.txt").read_text().replace("mode=gpu", "mode=local")
        (self.out / "meta.txt").write_text(meta)
        tables.rewrite(self.out, self.page, {"warm"})
        self.assertIn("local test run", self.block("warm"))
        self.assertIn("OLD-CONTENT", self.block("pixels"))  # --only leaves the other blocks alone

    def test_ptxas_jobs_come_from_the_runs_and_the_vendor_table(self):
        result = subprocess.run([sys.executable, str(REPO / "tools/memory_spaces_tables.py"), "--ptxas-jobs",
                                 str(self.out), "unused.csv"], capture_output=True, text=True, check=True)
        jobs = result.stdout.splitlines()
        self.assertIn("fast-r3x3-b32x8-o4x4\tfast.cu\t-DRADIUS_X=3 -DRADIUS_Y=3 -DBLOCK_X=32 -DBLOCK_Y=8 -DOUT_X=4 "
                      "-DOUT_Y=4", jobs)
        self.assertTrue(any(job.startswith("separable-r32x32-t128-w32x128-b32x6\t") for job in jobs))

    def test_one_kernel_three_vendors(self):
        vendor_csv = self.out / "vendor.csv"
        header = "file,options,target,kernel,target,registers,local,scratch,spills,occupancy\n"
        rows = [f'tiled.cl,(none),{t},convolve_tiled,{t},"{r}",0,0,"{s}",{o}\n' for t, r, s, o in (
            ("gfx1030", "24 VGPR, 20 SGPR", "0 VGPR, 0 SGPR", "16 waves/SIMD (wave32)"),
            ("gfx90a", "25 VGPR, 30 SGPR", "0 VGPR, 0 SGPR", "8 waves/SIMD (wave64)"),
            ("tgllp", "128 GRF", "0 bytes", "7 threads/EU (SIMD16)"),
            ("acm-g10", "128 GRF", "64 bytes", "8 threads/EU (SIMD16)"))]
        vendor_csv.write_text(header + "".join(rows))
        # a second pixel format of the same kernel must not stand in for the float build
        (self.out / "ptxas" / "tiled-U8X4.txt").write_text(
            "# nvcc -cubin -arch=sm_90 --fmad=true -std=c++17 -DCC_PIXEL=CC_PIXEL_U8X4 kernels_cuda/tiled.cu\n"
            "ptxas info    : Compiling entry function '_ZN12_GLOBAL__N_114convolve_tiledEPK6uchar4PS0_8ConvArgs' for "
            "'sm_90'\nptxas info    : Used 99 registers, used 1 barriers\n")
        self.page.write_text("<!-- generated: vendors -->\nOLD-CONTENT\n<!-- end generated -->\n")
        tables.rewrite(self.out, self.page, None, vendor_csv)
        self.assertIn("| tiled | 40 regs; spills 8 B; shared: tile sized at launch | 24 VGPR, 20 SGPR; LDS 0 B; "
                      "16 waves/SIMD (wave32) | 25 VGPR, 30 SGPR; LDS 0 B; 8 waves/SIMD (wave64) | 128 GRF, spills "
                      "0 bytes; 7 threads/EU (SIMD16) | 128 GRF, spills 64 bytes; 8 threads/EU (SIMD16) |",
                      self.block("vendors"))
        self.assertIn("| global | - | - | - | - | - |", self.block("vendors"))

    def test_the_script_parses(self):
        subprocess.run(["bash", "-n", str(REPO / "tools/memory_spaces.sh")], check=True)


if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        CL_CONFIGURATIONS = sys.argv.pop(1)
    unittest.main()
