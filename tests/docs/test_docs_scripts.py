#!/usr/bin/env python3
"""test_docs_scripts.py: docs/memory-spaces-evidence.md's scripts: the pictures are current and drawn from the real shapes,
and the table generator puts each measured figure in its cell (on a synthesized output directory); the page's
claims (test_docs_page.py) and the pictures' measured figures (test_docs_pictures.py) run here too.

  python3 tests/docs/test_docs_scripts.py [PATH/TO/cl_configurations]
"""
import json
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))
import bank_model  # noqa: E402
import diagrams  # noqa: E402
import memory_spaces_paths as paths  # noqa: E402
import memory_spaces_tables as tables  # noqa: E402
import perf_tables  # noqa: E402
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from test_docs_page import Page  # noqa: E402,F401  (the page's claims: run here too, one ctest)
from test_docs_pictures import MeasuredPictures  # noqa: E402,F401  (the pictures' measured figures: the same)

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

    def test_idle_threads_are_the_load_loop(self):
        """The picture's rounds are tiled's loop (i = ly * bx + lx; i += bx * by): at r = 16, 256 threads walk the
        48 x 48 tile in 9 rounds of 256 pixels, 5 1/3 rows each, not in 16 x 16 squares."""
        for path, start, step in (("kernels_cuda/tiled.cu", "ly * blockDim.x + lx", "blockDim.x * blockDim.y"),
                                  ("kernels_cl/tiled.cl", "ly * get_local_size(0) + lx",
                                   "get_local_size(0) * get_local_size(1)")):
            text = " ".join((REPO / path).read_text().split())
            self.assertIn(f"for (int i = {start}; i < tile_width * tile_height; i += {step})", text, path)
        rounds = diagrams.load_rounds(48, 48, 256)
        self.assertEqual(max(rounds) + 1, 9)
        self.assertEqual([rounds.count(k) for k in range(9)], [256] * 9)
        self.assertEqual((rounds[5 * 48 + 15], rounds[5 * 48 + 16]), (0, 1))  # round 1 ends a third into row 5
        svg = (REPO / "docs/img/idle-threads.svg").read_text()
        self.assertIn("9 rounds of 5 1/3 rows each", svg)

    def test_the_bank_picture_is_the_row_pass(self):
        """banks.svg's warp is the kernel's: its words give the model's two wavefronts at r = 3 and one with the
        padding the page proposes."""
        s = diagrams.shapes()
        shape = diagrams.separable_shape(3, s["portable_bytes"], s["min_band"])
        words = diagrams.row_pass_words(1, 3, shape["band"], (shape["tile_w"] + 6) | 1)
        self.assertEqual(sorted({row for _, row, column in words if column == 0}), list(range(32, 38)))
        self.assertEqual(bank_model.wavefronts([w for w, _, _ in words]), 2)
        self.assertEqual(bank_model.wavefronts([w for w, _, _ in diagrams.row_pass_words(1, 3, 40, 73)]), 1)
        svg = (REPO / "docs/img/banks.svg").read_text()
        self.assertIn("2 wavefronts: 6 banks asked for two words", svg)
        self.assertIn("1 wavefront: 0 banks asked for two words", svg)

    def test_the_cluster_picture_is_the_kernels_apron(self):
        """cluster-apron.svg's cells follow cluster.cu's step 2 (the holder's rank x first, global memory outside the
        cluster's rectangle), the cluster shape is tile_shape.h's, and the counts are the tile's arithmetic."""
        kernel = " ".join((REPO / "kernels_cuda/cluster.cu").read_text().split())
        for line in ("if (cx >= 0 && cx < cluster_width && cy >= 0 && cy < cluster_height) {",
                     "cluster.map_shared_rank(tile, holder_y * cluster_columns + holder_x)",
                     "const int holder_x = cx / block_width;"):
            self.assertIn(line, kernel)
        s = diagrams.shapes()
        self.assertEqual(s["cluster_groups"], (4, 2))
        top = diagrams.cluster_sources((16, 16), (1, 0), (4, 2), 3)
        # block (1, 0): the 3 rows above the cluster from global memory, everything else from ranks 0, 2, 4, 5, 6
        self.assertEqual(top.count("global"), 3 * 22)
        self.assertEqual(top.count("own"), 256)
        self.assertEqual(sorted({v for v in top if isinstance(v, int)}), [0, 2, 4, 5, 6])
        self.assertEqual(top[0], "global")
        self.assertEqual(top[3 * 22 + 0], 0)  # left apron: rank 0's columns 13..15
        self.assertEqual(top[21 * 22 + 21], 6)  # lower right corner: rank 6
        left = diagrams.cluster_sources((16, 16), (0, 1), (4, 2), 3)
        self.assertEqual(left.count("global"), 3 * 22 + 3 * 19)  # left edge and the rows below the cluster
        svg = (REPO / "docs/img/cluster-apron.svg").read_text()
        for text in ("162 from neighbours' shared memory (DSMEM),", "66 from global memory",
                     "105 from neighbours' shared memory (DSMEM),", "123 from global memory"):
            self.assertIn(text, svg)

    def test_the_async_picture_is_the_kernels_split(self):
        """async-pipeline.svg's split follows async.cu's and async.cl's test (copied: a row the border rule keeps,
        a column inside the image), counted for the top-left block at r = 3."""
        for path in ("kernels_cuda/async.cu", "kernels_cl/async.cl"):
            text = " ".join((REPO / path).read_text().split())
            self.assertIn("if (sy >= 0 && gx >= copy_x0 && gx < copy_x0 + copy_width) continue;", text, path)
            self.assertIn("const int copy_x0 = max(tile_x0, 0);", text, path)
        zero = diagrams.async_sources((16, 16), (0, 0), 3, 2048, 2048, "zero")
        self.assertEqual(zero.count("copy"), 19 * 19)  # rows and columns 3..21: the image's
        mirror = diagrams.async_sources((16, 16), (0, 0), 3, 2048, 2048, "mirror")
        self.assertEqual(mirror.count("copy"), 22 * 19)  # mirrored rows are image rows: copied too
        inner = diagrams.async_sources((16, 16), (5, 5), 3, 2048, 2048, "zero")
        self.assertEqual(inner.count("threads"), 0)
        svg = (REPO / "docs/img/async-pipeline.svg").read_text()
        self.assertIn("361 copied asynchronously,", svg)
        self.assertIn("418 copied asynchronously,", svg)
        self.assertIn("__pipeline_wait_prior(0); __syncthreads()", svg)

    def test_the_hierarchy_quotes_the_tables(self):
        """hierarchy.svg's sizes are the code's constants and its figures the tables' cells, not typed numbers."""
        launchers = (REPO / "kernels_cuda/launchers.h").read_text()
        taps = int(re.search(r"kMaxConstantTaps = (\d+);", launchers).group(1))
        constant = (REPO / "kernels_cuda/filter_in_constant.cuh").read_text()
        self.assertIn("__constant__ float c_filter[cc::cuda_kernels::kMaxConstantTaps];", constant)
        svg = (REPO / "docs/img/hierarchy.svg").read_text()
        self.assertIn(f"CUDA {taps * 4 // 1024} KB (launchers.h)", svg)
        portable = re.search(r"kSeparablePortableBytes = (\d+) \* 1024",
                             (REPO / "common/geometry/separable_shape.h").read_text()).group(1)
        self.assertIn(f"{portable} KB per block portable", svg)
        perf = (REPO / "docs/performance.md").read_text()
        copy = re.search(r"`cuda:0` NVIDIA H100 80GB HBM3: copy kernel (\d+) GB/s", perf).group(1)
        self.assertIn(f"copy kernel {copy} GB/s", svg)
        self.assertIn("| cuda | cuda:0 | fast | 2048x2048 | pinned | 200 | 3 | 2884 | 0.347 | 0.657 | 0.314 |", perf)
        self.assertIn(f"16.8 MB in 0.314 ms = {2048 * 2048 * 4 / 0.314e6:.1f} GB/s", svg)
        page = (REPO / "docs/memory-spaces-evidence.md").read_text()
        self.assertIn("| tiled | 811 | 16.8 | 4.37 | 17.3 | 81.4 | 82332212 | 165350046 |", page)
        self.assertIn("165,350,046 wavefronts in 811 µs = 204 G/s", svg)
        self.assertIn("| global, r = 3 | 19923968 | 12845056 | 0 | 0 | 43006024 | 0 |", page)
        self.assertIn(f"43,006,024 sectors x 32 B in 165 µs = {43006024 * 32 / 165e6:.1f} TB/s", svg)

    def test_hosts_never_ask_for_unnormalized_wrap_or_mirror(self):
        """OpenCL leaves CLK_ADDRESS_REPEAT / MIRRORED_REPEAT with unnormalized coordinates undefined and CUDA clamps:
        the hosts make zero and replicate samplers only, unnormalized, and texture folds mirror and wrap itself."""
        def code(path):  # the source without its comments
            return re.sub(r"//[^\n]*|/\*.*?\*/", "", (REPO / path).read_text(), flags=re.S)
        cl_host, cuda_host = code("backends/opencl/opencl_variants.cpp"), code("backends/cuda/cuda_resources.cpp")
        for mode in ("CL_ADDRESS_REPEAT", "CL_ADDRESS_MIRRORED_REPEAT"):
            self.assertNotIn(mode, cl_host)
        for mode in ("cudaAddressModeWrap", "cudaAddressModeMirror"):
            self.assertNotIn(mode, cuda_host)
        self.assertRegex(cl_host, r"cl::Sampler\(context_, CL_FALSE,\s*(setup\.)?problem_?\.border == Border::Zero \? "
                                  r"CL_ADDRESS_CLAMP : CL_ADDRESS_CLAMP_TO_EDGE")
        self.assertIn("normalizedCoords = 0", cuda_host)
        for path in ("kernels_cuda/texture.cu", "kernels_cl/texture.cl"):
            text = code(path)
            self.assertRegex(text, r"fold = args\.border == CC_BORDER_MIRROR \|\| args\.border == CC_BORDER_WRAP")
            self.assertIn("if (fold) sx = cc_border_index(sx, args.width, args.border);", text)
            self.assertIn("if (fold) sy = cc_border_index(sy, args.height, args.border);", text)
        self.assertIn("OpenCL's specification: undefined", (REPO / "docs/img/sampler-modes.svg").read_text())


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

    def test_a_metric_some_profile_reports_is_not_left_out(self):
        """missing.txt is what --query-metrics did not list; a metric a profile reports anyway filled its column
        (the r = 3 table's 'theoretical' occupancy), so the note names only those no profile has (error 4)."""
        (self.out / "ncu" / "missing.txt").write_text("dram__bytes_read.sum\nsm__not_a_metric.sum\n")
        tables.rewrite(self.out, self.page, {"ncu"})
        ncu = self.block("ncu")
        self.assertIn("left out, their cells `-`): `sm__not_a_metric.sum`.", ncu)
        self.assertNotIn("dram__bytes_read", ncu.split("left out")[1])

    def test_the_bank_model_counts_what_the_kernels_index(self):
        """separable's row pass wraps from the band's last row to row 0 eight pixels right: at r = 3 (BAND 38,
        IN_PITCH 71) rows a + 32 and a + 8 share a bank; at r = 4 (BAND 40, IN_PITCH 73) nothing does (error 3)."""
        s = diagrams.shapes()
        r3 = bank_model.separable_grid(3, diagrams.separable_shape(3, s["portable_bytes"], s["min_band"]))
        self.assertEqual(r3["separable: row-pass loads"], (487424, 200704))
        self.assertEqual(sum(c for _, c in r3.values()), 387072)
        r4 = bank_model.separable_grid(4, diagrams.separable_shape(4, s["portable_bytes"], s["min_band"]))
        self.assertEqual((r4["separable: row-pass loads"][1], r4["separable: row-pass stores"][1]), (0, 0))
        self.assertEqual(bank_model.wavefronts([32 * 71 + 0, 8 * 71 + 8]), 2)  # the pair the page names
        fast = bank_model.fast_rows_grid(12)
        self.assertEqual(fast["fast rows: segment loads (LDS.128)"], (13107200, 0))
        self.assertEqual(bank_model.quad_wavefronts([0, 8] + [None] * 30), (2, 1))  # one bank quarter, two groups

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
            ("gfx90a", "25 VGPR, 30 SGPR", "0 VGPR, 3 SGPR", "8 waves/SIMD (wave64)"),
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
        self.assertIn("| tiled | 40 regs; spills 8 B; shared: tile sized at launch | 24 VGPR, 20 SGPR; spills 0 VGPR, "
                      "0 SGPR; LDS 0 B; 16 waves/SIMD (wave32) | 25 VGPR, 30 SGPR; spills 0 VGPR, 3 SGPR; LDS 0 B; "
                      "8 waves/SIMD (wave64) | 128 GRF, spills "
                      "0 bytes; 7 threads/EU (SIMD16) | 128 GRF, spills 64 bytes; 8 threads/EU (SIMD16) |",
                      self.block("vendors"))
        self.assertIn("| global | - | - | - | - | - |", self.block("vendors"))

    def test_the_script_parses(self):
        subprocess.run(["bash", "-n", str(REPO / "tools/memory_spaces.sh")], check=True)


def path_run(backend, variant, pixel, radius, median, size=(8192, 8192), **fields):
    run = run_record(backend, variant, pixel, 1, radius, median)
    run.update(dict(width=size[0], height=size[1], filter=f"gaussian:sigma=3.2,r={radius}", memory="pinned"), **fields)
    return run


class Paths(unittest.TestCase):
    """memory_spaces.sh --paths's readers and tables on a synthesized output."""

    def setUp(self):
        self.out = pathlib.Path(tempfile.mkdtemp())
        (self.out / "ncu").mkdir()
        (self.out / "ptx").mkdir()
        (self.out / "paths-meta.txt").write_text("mode=gpu\nsize=2048x2048\nlarge=8192x8192\nradii=3,16\n"
                                                 "memory_radii=1\ngit=abc1234\ndate=2026-01-01T00:00:00Z\n"
                                                 "gpu=NVIDIA H100 80GB HBM3, 580.0\n")
        runs = [path_run(b, v, "f32", r, m) for b, v, r, m in (
            ("cuda", "tiled", 3, 1.0), ("cuda", "async", 3, 1.5), ("cuda", "cluster", 3, 0.8), ("cuda", "fast", 3, 0.2),
            ("opencl", "tiled", 3, 1.1), ("opencl", "async", 3, 1.65),
            ("cuda", "tiled", 16, 20.0), ("cuda", "async", 16, 19.0), ("cuda", "cluster", 16, 2.0),
            ("cuda", "fast", 16, 2.5), ("opencl", "async", 16, 20.9), ("opencl", "tiled", 16, 21.0))]
        (self.out / "paths-8192-f32.json").write_text(json.dumps({"runs": runs, "devices": []}))
        log = [dict(path_run(b, v, "f32", r, m), filter=f) for b, v, r, m, f in (
            ("cuda", "lowrank", 7, 0.1, "log:sigma=1.75"), ("cuda", "fast", 7, 0.7, "log:sigma=1.75"),
            ("cuda", "fft", 7, 1.4, "log:sigma=1.75"), ("cuda", "npp", 7, 2.0, "log:sigma=1.75"))]
        log[0]["terms"] = 2
        (self.out / "lowrank-8192.json").write_text(json.dumps({"runs": log, "devices": []}))
        frame = [path_run("cuda", "fast", "u8", 1, 0.01, size=(2048, 2048), memory=mode, h2d_ms=h2d, d2h_ms=d2h,
                          host_to_host_ms=h2h, channels=3) for mode, h2d, d2h, h2h in (
            ("pinned", 0.2, 0.2, 0.5), ("mapped", None, None, 0.48), ("managed", 0.2, 0.2, 0.55))]
        (self.out / "host-frame.json").write_text(json.dumps({"runs": frame, "devices": []}))
        (self.out / "ncu" / "paths-r3.csv").write_text(
            '"ID","Process ID","Kernel Name","dram__bytes_read.sum","lts__t_bytes.sum",'
            '"smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio",'
            '"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",'
            '"smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio"\n'
            '"","","","byte","byte","","",""\n'
            '"0","1","convolve_cluster(const float *, float *, ConvArgs)","268435456","1000000","2.5","0.5","0.1"\n'
            '"1","1","convolve_cluster(const float *, float *, ConvArgs)","999","999","9","9","9"\n'
            '"2","1","convolve_tiled(const float *, float *, ConvArgs)","300000000","2000000","1","3","0"\n')
        (self.out / "sass-paths.txt").write_text(
            "\tFunction : _Z14convolve_asyncPKhPh8ConvArgs\n"
            "        /*0000*/                   LDGSTS.E [R1], desc[UR4][R2.64] ;\n"
            "        /*0010*/                   LDGDEPBAR ;\n"
            "        /*0020*/                   DEPBAR.LE SB0, 0x0 ;\n"
            "        /*0030*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;\n"
            "\tFunction : _Z16convolve_clusterPKfPf8ConvArgs\n"
            "        /*0000*/               @P0 LD.E R1, desc[UR4][R2.64] ;\n"
            "        /*0010*/                   UCGABAR_ARV ;\n"
            "# file fast -DRADIUS_X=16 -DRADIUS_Y=16\n"
            "\tFunction : convolve_fast\n"
            "        /*0000*/                   SHFL.IDX PT, R1, R2, R3, R4 ;\n")
        (self.out / "ptx" / "async-r3.ptx").write_text(
            ".visible .entry convolve_async(\n\tld.global.f32 %f1, [%rd1];\n\tst.shared.f32 [%r1], %f1;\n"
            "\t@%p1 ld.global.f32 %f2, [%rd2];\n\tbar.sync 0;\n\tcp.async.ca.shared.global [%r2], [%rd3], 4;\n"
            "\tcp.async.commit_group;\n\tcp.async.wait_group 0;\n")

    def tearDown(self):
        shutil.rmtree(self.out)

    def test_the_profile_is_each_kernels_first_launch(self):
        kernels = paths.ncu_kernels(self.out / "ncu" / "paths-r3.csv")
        self.assertEqual(sorted(kernels), ["cluster", "tiled"])
        self.assertEqual(kernels["cluster"]["dram__bytes_read.sum"], 268435456)
        self.assertEqual(paths.stalls(kernels["cluster"]), "barrier 2.5, long_scoreboard 0.5")  # not_selected is none
        conflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{}.sum"
        self.assertEqual(paths.bank_conflicts({conflicts.format("ld"): 2.0, conflicts.format("st"): 3.0}), 5.0)
        self.assertIsNone(paths.bank_conflicts({conflicts.format("ld"): 2.0}))  # half a figure is no figure

    def test_sass_and_ptx_are_counted_per_kernel(self):
        sass = paths.sass_paths(self.out)
        self.assertEqual(sass["async (u8)"], {"LDGSTS": 1, "LDGDEPBAR": 1, "DEPBAR": 1, "BAR": 1})
        self.assertEqual(sass["cluster (f32)"], {"LD": 1, "UCGABAR_ARV": 1})
        self.assertEqual(sass["fast (f32, r = 16)"], {"SHFL": 1})
        ptx = paths.ptx_counts(self.out)["async-r3"]
        self.assertEqual((ptx["ptx"], ptx["ld.global"], ptx["st.shared"], ptx["cp.async copies"],
                          ptx["cp.async commit / wait"], ptx["bar.sync"]), ("yes", 2, 1, 1, 2, 1))
        self.assertEqual(paths.sass_columns(sass)[-1], "UCGABAR_ARV")  # a cluster barrier the list did not name

    def test_the_performance_tables_give_each_verdict(self):
        text = perf_tables.paths_tables(self.out)
        self.assertIn("| 3 | 1.5 | 1.5 | 1.65 | 1.5 | 0.8 | 0.8 | 1 | 1.1 | 0.2 | - | 4 | - | 1.1 |", text)
        self.assertIn("- `async` (cuda) at least as fast as `tiled`: 1 of 2 problems (worst 1.50x tiled at "
                      "8192x8192 f32 r = 3)", text)
        self.assertIn("- `cluster` (cuda) at least as fast as `tiled`: 2 of 2 problems", text)
        self.assertIn("- One path faster than `fast` somewhere: met (1 of 2 problems; best 0.80 at 8192x8192 f32 "
                      "cuda r = 16)", text)
        self.assertIn("- OpenCL `async` within 1.15x of CUDA's: 2 of 2 problems (worst 1.10", text)
        self.assertIn("| log:sigma=1.75 | 7 | cuda | 0.1 | 2 | 0.7 | fast | 7 | 2 |", text)
        self.assertIn("Target (best of today / lowrank >= 2): 1 of 1 problems", text)
        # the floor is the pinned copies (0.4 ms): mapped 0.48 / 0.4, managed 0.55 / 0.5
        self.assertIn("| cuda | u8 | fast | 0.2 | 0.2 | 0.4 | 0.5 | - | 0.48 | 0.01 | 1.2 | 2.4 | 0.55 | 1.1 |", text)
        self.assertIn("| cluster, r = 3 | - | 268 | 1 | ", text)
        self.assertNotIn("local test run", text)

    def test_each_run_rewrites_only_its_own_blocks(self):
        page = self.out / "page.md"
        page.write_text("".join(f"<!-- generated: {name} -->\nOLD\n<!-- end generated -->\n"
                                for name in ("warm", "paths-cluster", "paths-peaks")))
        tables.rewrite(self.out, page, None)  # paths-meta.txt only: the path blocks
        text = page.read_text()
        self.assertIn("<!-- generated: warm -->\nOLD\n", text)
        self.assertIn("| 16 | 2 (0.10) | - | 2.5 (0.12) | - |", text)
        self.assertIn("| cluster, r = 3 | - | 268 | 1 | - | - | barrier 2.5, long_scoreboard 0.5 |", text)
        self.assertIn("Not measured in this run (tools/probes/bandwidth_probe.cu", text)
        (self.out / "paths-meta.txt").rename(self.out / "meta.txt")
        page.write_text(page.read_text().replace("Not measured in this run", "KEEP"))
        tables.rewrite(self.out, page, None)  # meta.txt only: the full run's blocks, the path blocks kept
        self.assertIn("KEEP", page.read_text())
        self.assertNotIn("<!-- generated: warm -->\nOLD\n", page.read_text())

    def test_the_options_are_the_runs(self):
        report = self.out / "report.json"
        report.write_text(json.dumps({"runs": [dict(path_run("opencl", "async", "f32", 3, 1.0),
                                                    compile_time="radius: run-time; options: -cl-std=CL1.2 -DX=1")]}))
        self.assertEqual(paths.compile_options(report, "async", 3), "-cl-std=CL1.2 -DX=1")
        self.assertEqual(paths.compile_options(report, "tiled", 3), "")

    def test_the_paths_script_parses(self):
        subprocess.run(["bash", "-n", str(REPO / "tools/memory_spaces_paths.sh")], check=True)


if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        CL_CONFIGURATIONS = sys.argv.pop(1)
    unittest.main()
