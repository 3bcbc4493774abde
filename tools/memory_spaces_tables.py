#!/usr/bin/env python3
"""memory_spaces_tables.py: the generated tables of docs/memory-spaces-evidence.md, from what tools/memory_spaces.sh measured.

  memory_spaces_tables.py OUT_DIR PAGE.md [--only NAME,...] [--vendor-csv CSV]   rewrite the blocks between
        <!-- generated: NAME --> and <!-- end generated --> (all of them, or those named); the vendor table
        reads docs/memory-spaces-vendors.csv unless told otherwise
  memory_spaces_tables.py --ptxas-jobs OUT_DIR VENDOR.csv     the fast/separable builds memory_spaces.sh
        gives ptxas: NAME <tab> FILE <tab> OPTIONS, one a line

Every figure in a block comes from a file of OUT_DIR (or docs/memory-spaces-vendors.csv, or the geometry headers
for the arithmetic of the apron, tools/bank_model.py for the banks): a block whose data is missing says so instead
of keeping old numbers. A run made with `memory_spaces.sh --local` (OpenCL on the CPU, small sizes) is labelled as
such in every measurement block, so a test output can never pass for the H100's.
"""
import csv
import json
import math
import pathlib
import re
import sys

REPO = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tools"))
import bank_model  # noqa: E402  (the banks block)
import diagrams  # noqa: E402  (its port of separable_shape.h)
import memory_spaces_paths  # noqa: E402  (the path blocks: memory_spaces.sh --paths's files)
# The three-vendor table's AMD and Intel figures: `bash tools/vendor_kernels.sh tools/memory_spaces_configurations.sh
# build/ms-vendors.md` writes build/ms-vendors.csv beside its table, copied here (the same script and parser as
# docs/vendor-resources.md, over the table's configurations only, so it runs in minutes).
VENDOR_CSV = REPO / "docs" / "memory-spaces-vendors.csv"
VARIANTS = ["global", "constant", "tiled", "texture", "separable", "fast"]
PIXELS = [("f32", 1, "f32"), ("u8", 1, "u8"), ("u8", 4, "RGBA8")]  # (pixel, channels, label)
DEFINE = re.compile(r"-D(RADIUS_X|RADIUS_Y|BLOCK_X|BLOCK_Y|OUT_X|OUT_Y|THREADS|TILE_W|TILE_H|ROW_OUT|COLUMN_OUT|BAND|BANDS)=(\d+)")

# The configurations of "one kernel, three vendors' resource bills": the shapes a large device takes
# (CUDA, and OpenCL with 48 KB of local memory and 256 work-items), each at the largest radius of its
# scheme, exactly as tools/cl_configurations prints them (so docs/vendor-resources.md has them too).
THREE_VENDOR = [
    ("global.cl", "(none)", "global"),
    ("constant.cl", "(none)", "constant"),
    ("tiled.cl", "(none)", "tiled"),
    ("texture.cl", "(none)", "texture"),
    ("fast.cl", "-DRADIUS_X=4 -DRADIUS_Y=4 -DBLOCK_X=32 -DBLOCK_Y=8 -DOUT_X=4 -DOUT_Y=4", "fast, quads, r = 4"),
    ("fast.cl", "-DRADIUS_X=16 -DRADIUS_Y=16 -DBLOCK_X=8 -DBLOCK_Y=16 -DOUT_X=8 -DOUT_Y=4", "fast, rows 8 x 4, r = 16"),
    ("fast.cl", "-DRADIUS_X=32 -DRADIUS_Y=32 -DBLOCK_X=8 -DBLOCK_Y=16 -DOUT_X=8 -DOUT_Y=2", "fast, rows 8 x 2, r = 32"),
    ("separable.cl", "-DRADIUS_X=4 -DRADIUS_Y=4 -DTHREADS=256 -DTILE_W=64 -DTILE_H=32 -DROW_OUT=8 -DCOLUMN_OUT=8 "
     "-DBAND=40 -DBANDS=1", "separable, one band, r = 4"),
    ("separable.cl", "-DRADIUS_X=32 -DRADIUS_Y=32 -DTHREADS=128 -DTILE_W=32 -DTILE_H=128 -DROW_OUT=8 -DCOLUMN_OUT=8 "
     "-DBAND=32 -DBANDS=6", "separable, 6 bands, r = 32"),
]


# --- reading OUT_DIR --------------------------------------------------------------------------------------

def meta(out):
    path = out / "meta.txt"
    if not path.exists():
        return {}
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)


def load_runs(out, names):
    runs = []
    for name in names:
        path = out / f"{name}.json"
        if path.exists():
            runs += json.loads(path.read_text())["runs"]
    return runs


def find(runs, backend, variant, pixel, channels, radius):
    for run in runs:
        if (run["backend"] == backend and run["variant"] == variant and run["pixel"] == pixel
                and run["channels"] == channels and run["radius_x"] == radius):
            return run
    return None


fmt = memory_spaces_paths.fmt


def ms(run):
    """A run's median kernel time, or why there is none."""
    if run is None:
        return "-"
    if run["status"] != "ok":
        return run["status"]
    if run.get("untimed"):
        return "untimed"
    return run["kernel_ms"]["median"]


def pair(cuda, opencl):
    """'CUDA / OpenCL (ratio)' for one cell."""
    a, b = ms(cuda), ms(opencl)
    text = f"{fmt(a)} / {fmt(b)}"
    if isinstance(a, float) and isinstance(b, float) and a > 0:
        text += f" ({b / a:.2f})"
    return text


table = memory_spaces_paths.table


def radii_of(text):
    return [int(r) for r in text.split(",") if r]


def provenance(m):
    return memory_spaces_paths.provenance(m, "no `meta.txt` in the output directory", "memory_spaces.sh --local")


# --- the measurement blocks -------------------------------------------------------------------------------

def block_warm(out, m, name="warm", size_key="size", radii_key="radii"):
    runs = load_runs(out, [name])
    if not runs:
        return provenance(m) + f"\n*Not measured: no `{name}.json`.*\n"
    radii = radii_of(m.get(radii_key, "1,3,8,12"))
    rows = [[v] + [pair(find(runs, "cuda", v, "f32", 1, r), find(runs, "opencl", v, "f32", 1, r)) for r in radii]
            for v in VARIANTS]
    head = [f"variant ({m.get(size_key)}, f32, ms: CUDA / OpenCL (ratio))"] + [f"r = {r} ({2 * r + 1}x{2 * r + 1})"
                                                                              for r in radii]
    return provenance(m) + "\n" + table(head, rows)


def block_pixels(out, m, names=("warm", "warm-rgba"), size_key="size", radii=(3, 12)):
    runs = load_runs(out, list(names))
    if not runs:
        return provenance(m) + "\n*Not measured.*\n"
    head = [f"variant ({m.get(size_key)}, ms: CUDA / OpenCL)"]
    for r in radii:
        head += [f"r = {r}, {label}" for _, _, label in PIXELS]
    rows = []
    for v in VARIANTS:
        row = [v]
        for r in radii:
            for pixel, channels, _ in PIXELS:
                cuda, opencl = find(runs, "cuda", v, pixel, channels, r), find(runs, "opencl", v, pixel, channels, r)
                row.append(pair(cuda, opencl) if (cuda or opencl) else "-")
        rows.append(row)
    return provenance(m) + "\n" + table(head, rows)


def block_cold(out, m):
    if m.get("cold") != "yes":
        return provenance(m) + ("\n*Not measured: the convcompare this run used has no `--cold` option "
                                "(memory_spaces.sh looks for it in `--help` and runs it when it is there).*\n")
    warm, cold = load_runs(out, ["warm"]), load_runs(out, ["cold"])
    radii = radii_of(m.get("radii", "1,3,8,12"))
    head = [f"variant ({m.get('size')}, f32, ms: warm / cold)"] + [f"r = {r}, {api}" for r in radii
                                                                    for api in ("CUDA", "OpenCL")]
    rows = []
    for v in VARIANTS:
        row = [v]
        for r in radii:
            for api in ("cuda", "opencl"):
                w, c = ms(find(warm, api, v, "f32", 1, r)), ms(find(cold, api, v, "f32", 1, r))
                row.append(f"{fmt(w)} / {fmt(c)}")
        rows.append(row)
    return provenance(m) + "\n" + table(head, rows)


def block_large(out, m):
    runs = load_runs(out, ["large", "large-rgba"])
    if not runs:
        return provenance(m) + "\n*Not measured: no `large.json`.*\n"
    radii = radii_of(m.get("large_radii", "1,3,12"))
    head = [f"variant, pixels ({m.get('large')}, ms: CUDA / OpenCL (ratio))"] + [f"r = {r}" for r in radii]
    rows = []
    for v in VARIANTS:
        for pixel, channels, label in PIXELS:
            cells = [pair(find(runs, "cuda", v, pixel, channels, r), find(runs, "opencl", v, pixel, channels, r))
                     for r in radii]
            rows.append([f"{v}, {label}"] + cells)
    return provenance(m) + "\n" + table(head, rows)


# --- Nsight Compute -----------------------------------------------------------------------------------------

def ncu_metrics(path):
    """The first profiled kernel of an ncu --csv --page raw log: {metric: value} (base units)."""
    lines = [l for l in path.read_text(errors="replace").splitlines() if l.startswith('"')]
    if len(lines) < 2:
        return None
    rows = list(csv.reader(lines))
    header = rows[0]
    data = [r for r in rows[1:] if len(r) == len(header) and r[0] and r[0].isdigit()]
    if not data:
        return None
    values = {}
    for key, value in zip(header, data[0]):
        try:
            values[key] = float(value.replace(",", ""))
        except ValueError:
            values[key] = value
    return values


NCU_COLUMNS = [
    ("time µs", lambda v: v.get("gpu__time_duration.sum", 0) / 1e3 if "gpu__time_duration.sum" in v else None),
    ("DRAM read MB", lambda v: v["dram__bytes_read.sum"] / 1e6 if "dram__bytes_read.sum" in v else None),
    ("DRAM write MB", lambda v: v["dram__bytes_write.sum"] / 1e6 if "dram__bytes_write.sum" in v else None),
    ("L1 hit %", lambda v: v.get("l1tex__t_sector_hit_rate.pct")),
    ("L2 hit %", lambda v: v.get("lts__t_sector_hit_rate.pct")),
    ("shared bank conflicts (ld + st)", lambda v: (v["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"]
                                                   + v["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"])
     if "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum" in v else None),
    ("shared wavefronts", lambda v: v.get("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum")),
    ("issue slots %", lambda v: v.get("sm__inst_issued.avg.pct_of_peak_sustained_active")),
    ("FMA pipe %", lambda v: v.get("sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active")),
    ("occupancy % (achieved / theoretical)",
     lambda v: f"{fmt(v.get('sm__warps_active.avg.pct_of_peak_sustained_active'))} / "
               f"{fmt(v.get('sm__maximum_warps_per_active_cycle_pct'))}"),
    ("registers", lambda v: v.get("launch__registers_per_thread")),
    ("shared bytes / block", lambda v: (v.get("launch__shared_mem_per_block_dynamic") or 0)
     + (v.get("launch__shared_mem_per_block_static") or 0) if "launch__shared_mem_per_block_dynamic" in v else None),
]
NCU_MIX = [
    ("LDC (constant bank)", "smsp__inst_executed_op_ldc.sum"),
    ("global loads", "smsp__inst_executed_op_global_ld.sum"),
    ("shared loads", "smsp__inst_executed_op_shared_ld.sum"),
    ("texture instructions", "smsp__inst_executed_pipe_tex.sum"),
    ("L1 global-load sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
    ("texture sectors", "l1tex__t_sectors_pipe_tex_mem_texture.sum"),
]


def ncu_profiles(out, m):
    profiles = []
    for radius in radii_of(m.get("ncu_radii", "3 12").replace(" ", ",")):
        for variant in VARIANTS + ["texture-u8", "tiled-u8"]:
            name, pixel = (variant, "f32") if "-" not in variant else variant.split("-")
            path = out / "ncu" / f"{name}-{pixel}-r{radius}.csv"
            values = ncu_metrics(path) if path.exists() else None
            profiles.append((radius, f"{name}" + (f" ({pixel})" if pixel != "f32" else ""), values))
    return profiles


def ncu_note(out, m, profiles):
    """The metrics the run's query dropped (ncu/missing.txt) that no profile has either: a metric some profile
    reports (ncu may answer one its --query-metrics does not list) filled its column, and is not 'left out'."""
    missing = out / "ncu" / "missing.txt"
    if not missing.exists():
        return ""
    reported = set().union(*(values.keys() for _, _, values in profiles if values))
    left_out = [x for x in missing.read_text().split() if x not in reported]
    if not left_out:
        return ""
    return "\nMetrics this ncu did not know (left out, their cells `-`): " + ", ".join(
        f"`{x}`" for x in left_out) + ".\n"


def block_ncu(out, m):
    profiles = ncu_profiles(out, m)
    if not any(values for _, _, values in profiles):
        return provenance(m) + ("\n*Not measured in this run (no Nsight Compute: `memory_spaces.sh` profiles on the "
                                "GPU host only).*\n")
    text = provenance(m) + (f"\n{m.get('ncu', 'ncu')}, `--clock-control none`, one launch per kernel (the timed one),"
                            f" caches flushed before it (ncu's default `--cache-control all`): {m.get('size')}, "
                            f"f32 unless said.\n")
    for radius in sorted({r for r, _, _ in profiles}):
        rows = [[name] + [column(values) for _, column in NCU_COLUMNS]
                for r, name, values in profiles if r == radius and values]
        if not rows:
            continue
        text += f"\n**r = {radius}** ({2 * radius + 1}x{2 * radius + 1} taps)\n\n" + table(
            ["kernel"] + [title for title, _ in NCU_COLUMNS], rows)
    return text + ncu_note(out, m, profiles)


def block_ncu_mix(out, m):
    profiles = ncu_profiles(out, m)
    if not any(values for _, _, values in profiles):
        return "*Not measured in this run (no Nsight Compute).*\n"
    rows = [[f"{name}, r = {r}"] + [values.get(metric) for _, metric in NCU_MIX] for r, name, values in profiles
            if values]
    return table(["kernel (warp-level instructions / sectors)"] + [title for title, _ in NCU_MIX], rows)


# --- ptxas and SASS --------------------------------------------------------------------------------------------

def ptxas_reports(out):
    """{name: dict(options, entries: [dict(function, registers, spill_stores, spill_loads, smem, stack)])}."""
    reports = {}
    for path in sorted((out / "ptxas").glob("*.txt")):
        text = path.read_text(errors="replace")
        first = text.splitlines()[0] if text else ""
        entries, current = [], None
        for line in text.splitlines():
            if match := re.search(r"Compiling entry function '([^']+)'", line):
                current = dict(function=match.group(1), registers=None, spill_stores=0, spill_loads=0, smem=0, stack=0)
                entries.append(current)
            elif current is not None and (match := re.search(
                    r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)):
                current.update(stack=int(match.group(1)), spill_stores=int(match.group(2)),
                               spill_loads=int(match.group(3)))
            elif current is not None and (match := re.search(r"Used (\d+) registers", line)):
                current["registers"] = int(match.group(1))
                if smem := re.search(r"(\d+) bytes smem", line):
                    current["smem"] = int(smem.group(1))
        if entries:
            reports[path.stem] = dict(options=" ".join(f"-D{k}={v}" for k, v in DEFINE.findall(first)),
                                      entries=entries)
    return reports


def kernel_entry(report):
    entries = [e for e in report["entries"] if "convolve_" in e["function"]]
    return entries[0] if entries else None


def block_ptxas(out, m):
    reports = ptxas_reports(out)
    if not reports:
        return "*Not measured: no nvcc in this run.*\n"
    def order(name):  # the page's variant order, then the radius, then the pixel format
        stem = name.split("-")[0]
        numbers = [int(n) for n in re.findall(r"\d+", name)] if stem in ("fast", "separable") else []
        formats = ["F32", "U8", "U8X4"]
        return (VARIANTS.index(stem) if stem in VARIANTS else 99, numbers,
                formats.index(name.split("-")[1]) if name.split("-")[-1] in formats else 0)

    rows = []
    for name in sorted(reports, key=order):
        report = reports[name]
        entry = kernel_entry(report)
        if entry:
            rows.append([name, report["options"] or "(none)", entry["registers"],
                         f"{entry['spill_stores']} / {entry['spill_loads']}", entry["stack"], entry["smem"]])
    return (f"*{m.get('nvcc', 'nvcc')}; `nvcc -cubin -arch=sm_90 --fmad=true -Xptxas -v`, as convcompare builds "
            f"each kernel.*\n\n" + table(["build", "-D options", "registers", "spill stores / loads (bytes)",
                                           "stack (bytes)", "static shared (bytes; tiles are sized at launch)"], rows))


def sass_counts(out):
    """{(source, function): {opcode: count}} from cuobjdump -sass output."""
    path = out / "sass.txt"
    if not path.exists():
        return {}
    counts, source, function = {}, "convcompare", None
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith("# file "):
            source = line[len("# file "):].removesuffix(".cubin")
            function = None
        elif match := re.search(r"Function : (\S+)", line):
            function = match.group(1)
            counts[(source, function)] = {}
        elif function and (match := re.search(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)):
            opcode = match.group(1)
            base = "LDG.E.CONSTANT" if opcode.startswith("LDG") and "CONSTANT" in opcode else opcode.split(".")[0]
            bucket = counts[(source, function)]
            bucket[base] = bucket.get(base, 0) + 1
    return counts


def pixel_of_mangled(name):
    if "uchar4" in name:
        return "RGBA8"
    args = name.split("E", 1)[-1] if "E" in name else ""
    return "u8" if re.search(r"P(K)?h", args) else "f32"


def block_sass(out, m):
    counts = sass_counts(out)
    if not counts:
        return "*Not measured in this run (`cuobjdump`, on the GPU host only).*\n"
    opcodes = ["FFMA", "LDC", "LDG", "LDG.E.CONSTANT", "LDS", "TEX", "TLD", "BAR"]
    # A kernel built into the binary and also as its own cubin (VARIANT-F32, -U8, -U8X4) is one row, the cubin's.
    cubin_suffix = {"f32": "F32", "u8": "U8", "RGBA8": "U8X4"}
    sources = {source for source, _ in counts}
    rows = []
    for (source, function), bucket in sorted(counts.items()):
        match = re.search(r"convolve_(global|constant|tiled|texture|separable|fast)", function)
        if not match:
            continue
        if source == "convcompare":
            pixel = pixel_of_mangled(function)
            if f"{match.group(1)}-{cubin_suffix[pixel]}" in sources:
                continue
            label = f"{match.group(1)} ({pixel})"
        else:
            label = source
        rows.append([label] + [bucket.get(op, 0) for op in opcodes] + [sum(bucket.values())])
    return ("*`cuobjdump -sass`: static instruction counts of each kernel's code (not executed counts: a loop "
            "body counts once).*\n\n" + table(["kernel"] + opcodes + ["all"], rows))


# --- the vendors --------------------------------------------------------------------------------------------------

def block_vendors(out, m, vendor_csv):
    if not vendor_csv.exists():
        return f"*Not measured: no {vendor_csv.name} (tools/vendor_kernels.sh writes it).*\n"
    with open(vendor_csv) as handle:
        rows = [r for r in csv.DictReader(handle) if r["kernel"].startswith("convolve_")]
    reports = ptxas_reports(out)
    nvidia, by_name = {}, {}
    for name, report in reports.items():
        entry = kernel_entry(report)
        if entry:
            nvidia[(name.split("-")[0], report["options"] or "(none)")] = (name, entry)
            by_name[name] = (name, entry)

    def vendor(file, options, target):
        for r in rows:
            if r["file"] == file and r["options"] == options and r["target"] == target:
                return r
        return None

    def amd(r):
        # the spills as the CSV has them ("0 VGPR, 28 SGPR"), like NVIDIA's and Intel's: a zero is a finding too
        if not r:
            return "-"
        return f"{r['registers']}; spills {r['spills']}; LDS {r['local']} B; {r['occupancy']}"

    def intel(r):
        if not r:
            return "-"
        return f"{r['registers']}, spills {r['spills']}; {r['occupancy']}"

    table_rows = []
    for file, options, label in THREE_VENDOR:
        stem = file.removesuffix(".cl")
        key = (stem, options)
        if stem in ("global", "constant", "tiled", "texture"):
            key = (stem, "(none)")
        # the offline kernels are built once per pixel format: the float one is the OpenCL build's twin
        found = by_name.get(f"{stem}-F32") if stem in ("global", "constant", "tiled", "texture") else nvidia.get(key)
        if found:
            _, entry = found
            dynamic = stem in ("tiled", "separable") or (stem == "fast" and "-DOUT_X=4" not in options)
            shared = "tile sized at launch" if dynamic else f"{entry['smem']} B"
            nv = f"{entry['registers']} regs; spills {entry['spill_stores']} B; shared: {shared}"
        else:
            nv = "-"
        table_rows.append([label, nv, amd(vendor(file, options, "gfx1030")), amd(vendor(file, options, "gfx90a")),
                           intel(vendor(file, options, "tgllp")), intel(vendor(file, options, "acm-g10"))])
    return ("*Compile-time figures, what each compiler reports (no kernel ran). NVIDIA: the CUDA twin with the same "
            "-D options, ptxas for sm_90 (" + m.get("nvcc", "nvcc") +
            "); AMD and Intel: the OpenCL kernel, from docs/memory-spaces-vendors.csv (`tools/vendor_kernels.sh "
            "tools/memory_spaces_configurations.sh`, the commands at the top of the page).*\n\n" +
            table(["kernel", "NVIDIA sm_90 (CUDA twin)", "AMD gfx1030 (RDNA2, wave32)",
                   "AMD gfx90a (CDNA2, wave64)", "Intel tgllp (Xe-LP)", "Intel acm-g10 (Xe-HPG)"], table_rows))


# --- the apron, from the geometry header ---------------------------------------------------------------------------

def tile_groups():
    text = (REPO / "common/geometry/tile_shape.h").read_text()
    body = re.search(r"kTileGroups\[\]\s*=\s*\{(.*?)\};", text, re.S).group(1)
    return [(int(x), int(y)) for x, y in re.findall(r"\{(\d+),\s*(\d+)\}", body)]


def block_apron(out, m):
    gx, gy = tile_groups()[0]
    rows = []
    for r in (1, 3, 8, 12, 16):
        tile = (gx + 2 * r) * (gy + 2 * r)
        threads = gx * gy
        rounds = math.ceil(tile / threads)
        idle = rounds * threads - tile
        rows.append([r, f"{gx + 2 * r} x {gy + 2 * r}", tile, f"{tile / threads:.2f}", rounds, idle,
                     f"{100 * idle / (rounds * threads):.0f}%"])
    return (f"*Arithmetic of `tiled`'s first block, {gx} x {gy} threads (common/geometry/tile_shape.h's "
            f"kTileGroups), not a measurement.*\n\n" +
            table(["r", "tile (pixels)", "tile pixels", "loads per output", "load rounds", "idle thread-slots in the "
                   "last round", "of all load slots"], rows))


# --- the banks, from the kernels' index arithmetic (tools/bank_model.py) -------------------------------------------

def block_banks(out, m):
    s = diagrams.shapes()
    rows = []
    for r in (3, 12):
        shape = diagrams.separable_shape(r, s["portable_bytes"], s["min_band"])
        kernels = [("separable", bank_model.separable_grid(r, shape))]
        if r >= s["rows_radius"]:  # below it fast runs quads, straight from global memory
            kernels.append(("fast rows", bank_model.fast_rows_grid(r)))
        for kernel, found in kernels:
            for access, (waves, conflicts) in found.items():
                rows.append([r, access, waves, conflicts])
            rows.append([r, f"**{kernel}: all**", sum(w for w, _ in found.values()),
                         sum(c for _, c in found.values())])
    return ("*Arithmetic of the kernels' shared-memory indices for 2048x2048 f32 (tools/bank_model.py: 32 banks of 4 "
            "bytes, LDS.128 a quarter warp at a time), not a measurement; the shapes are common/geometry/'s.*\n\n" +
            table(["r", "access", "wavefronts (model)", "bank conflicts (model)"], rows))


# --- the page ------------------------------------------------------------------------------------------------------

def blocks(out, m, vendor_csv=VENDOR_CSV):
    return {
        "warm": lambda: block_warm(out, m),
        "pixels": lambda: block_pixels(out, m),
        "cold": lambda: block_cold(out, m),
        "large": lambda: block_large(out, m),
        "ncu": lambda: block_ncu(out, m),
        "ncu-mix": lambda: block_ncu_mix(out, m),
        "ptxas": lambda: block_ptxas(out, m),
        "sass": lambda: block_sass(out, m),
        "vendors": lambda: block_vendors(out, m, vendor_csv),
        "apron": lambda: block_apron(out, m),
        "banks": lambda: block_banks(out, m),
        **memory_spaces_paths.blocks(out),
    }


MARK = re.compile(r"(<!-- generated: ([\w-]+) -->\n)(.*?)(<!-- end generated -->)", re.S)


def rewrite(out, page, only, vendor_csv=VENDOR_CSV):
    m = meta(out)
    makers = blocks(out, m, vendor_csv)
    text = page.read_text()
    seen = set()
    named = only
    # A --paths run (paths-meta.txt) and the full run (meta.txt) write different files, often into different
    # directories: each rewrites only its own blocks unless --only names others, so neither blanks the other's.
    path_blocks = set(memory_spaces_paths.blocks(out))
    if only is None and not (out / "paths-meta.txt").exists():
        only = set(makers) - path_blocks
    elif only is None and not (out / "meta.txt").exists():
        only = path_blocks

    def replace(match):
        name = match.group(2)
        seen.add(name)
        if name not in makers:
            sys.exit(f"{page}: unknown generated block '{name}' (known: {', '.join(makers)})")
        if only and name not in only:
            return match.group(0)
        return match.group(1) + makers[name]() + match.group(4)

    new = MARK.sub(replace, text)
    for name in named or []:
        if name not in seen:
            sys.exit(f"{page}: no block '{name}'")
    page.write_text(new)
    print(f"{page}: rewrote {', '.join(sorted(seen & only if only else seen))}")


def ptxas_jobs(out, vendor_csv):
    """The fast and separable builds to give ptxas: every -D set the runs used, and the vendor table's."""
    seen = {}
    for path in sorted(out.glob("warm*.json")):  # written before the ptxas step starts (the others may not be)
        for run in json.loads(path.read_text())["runs"]:
            if run["variant"] in ("fast", "separable") and run.get("compile_time"):
                options = " ".join(f"-D{k}={v}" for k, v in DEFINE.findall(run["compile_time"]))
                if options:
                    seen[(f"{run['variant']}.cu", options)] = None
    for file, options, _ in THREE_VENDOR:
        if file in ("fast.cl", "separable.cl"):
            seen[(file.replace(".cl", ".cu"), options)] = None
    for file, options in seen:
        values = dict(DEFINE.findall(options))
        stem = file.removesuffix(".cu")
        if stem == "fast":
            name = (f"fast-r{values['RADIUS_X']}x{values['RADIUS_Y']}-b{values['BLOCK_X']}x{values['BLOCK_Y']}"
                    f"-o{values['OUT_X']}x{values['OUT_Y']}")
        else:
            name = (f"separable-r{values['RADIUS_X']}x{values['RADIUS_Y']}-t{values['THREADS']}"
                    f"-w{values['TILE_W']}x{values['TILE_H']}-b{values['BAND']}x{values['BANDS']}")
        print(f"{name}\t{file}\t{options}")


def main(argv):
    if len(argv) == 2 and argv[1] == "--vendor-configurations":  # cl_configurations' format: FILE, OPTIONS, what
        for file, options, label in THREE_VENDOR:
            if options != "(none)":
                print(f"{file}\t{options}\t{label}")
        return
    if len(argv) == 4 and argv[1] == "--ptxas-jobs":
        ptxas_jobs(pathlib.Path(argv[2]), pathlib.Path(argv[3]))
        return
    only, vendor_csv = None, VENDOR_CSV
    if "--only" in argv:
        index = argv.index("--only")
        only = set(argv[index + 1].split(","))
        argv = argv[:index] + argv[index + 2:]
    if "--vendor-csv" in argv:
        index = argv.index("--vendor-csv")
        vendor_csv = pathlib.Path(argv[index + 1])
        argv = argv[:index] + argv[index + 2:]
    if len(argv) != 3:
        sys.exit(__doc__)
    rewrite(pathlib.Path(argv[1]), pathlib.Path(argv[2]), only, vendor_csv)


if __name__ == "__main__":
    main(sys.argv)
