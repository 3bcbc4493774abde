#!/usr/bin/env python3
"""memory_spaces_paths.py: reads what `tools/memory_spaces.sh --paths` wrote, for docs/memory-spaces-evidence.md's path blocks and perf_tables.py.

  memory_spaces_paths.py --options REPORT.json VARIANT RADIUS   the OpenCL build options of that f32 run (its
        compile_time), for tools/probes/cl_program_binary.cpp

The path blocks of docs/memory-spaces-evidence.md (`<!-- generated: paths-NAME -->`) are made here and registered by
memory_spaces_tables.py; docs/performance.md's tables of the same data by perf_tables.py (`paths`). A block whose
file is missing says so, and a `--local` run (OpenCL on the CPU, small sizes) says it is one.
"""
import csv
import json
import pathlib
import re
import sys

PATHS = ["async", "shuffle", "cluster", "tma"]  # the memory paths, tma where the tree has it
SASS_OPS = ["LDG", "LDGSTS", "LDGDEPBAR", "DEPBAR", "UBLKCP", "UTMALDG", "LDS", "LD", "STS", "SHFL", "BAR", "SYNCS",
            "FFMA"]
# PTX lines counted in an OpenCL program binary: the asynchronous copies (LDGSTS in SASS), their commit and wait,
# bulk copies (TMA's), and the ordinary path through a register (ld.global then st.shared).
PTX_OPS = {"cp.async copies": r"cp\.async\.c[ag]\b", "cp.async commit / wait": r"cp\.async\.(?:commit|wait)",
           "cp.async.bulk": r"cp\.async\.bulk", "ld.global": r"ld\.global\b", "st.shared": r"st\.shared\b",
           "ld.shared": r"ld\.shared\b", "shfl": r"shfl\b", "bar.sync": r"bar(?:rier)?\.sync\b"}


# --- reading OUT_DIR -----------------------------------------------------------------------------------------

def meta(out):
    path = pathlib.Path(out) / "paths-meta.txt"
    if not path.exists():
        return {}
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)


def load(out, names):
    """(runs, streams, devices) of the named reports that exist."""
    runs, streams, devices = [], [], {}
    for name in names:
        path = pathlib.Path(out) / f"{name}.json"
        if path.exists():
            report = json.loads(path.read_text())
            runs += report["runs"]
            streams += report.get("streams", [])
            devices.update({d["id"]: d for d in report["devices"]})
    return runs, streams, devices


def find(runs, **want):
    """The first run whose fields equal want's (size as 'WxH', filter as a prefix of the run's)."""
    for run in runs:
        if all((f"{run['width']}x{run['height']}" == v if k == "size" else
                run["filter"].startswith(v) if k == "filter" else run.get(k) == v) for k, v in want.items()):
            return run
    return None


def ms(run, field="kernel_ms"):
    """A run's median kernel time (or another phase's ms), or why there is none."""
    if run is None:
        return None
    if run["status"] != "ok":
        return run["status"]
    if field == "kernel_ms":
        return None if run.get("untimed") else run["kernel_ms"]["median"]
    return run.get(field)


def ratio(a, b):
    return a / b if isinstance(a, float) and isinstance(b, float) and b > 0 else None


def fmt(value, digits=3):
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    if value == 0:
        return "0"
    return f"{value:.0f}" if abs(value) >= 1000 else f"{value:.{digits}g}"


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(fmt(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def radii(m, key="radii"):
    return [int(r) for r in re.split(r"[ ,]", m.get(key, "")) if r]


def provenance(m, missing="no `paths-meta.txt` (`bash tools/memory_spaces.sh --paths ...` writes it)",
               local_command="memory_spaces.sh --paths --local"):
    """The line under each generated heading: when, which tree, which GPU, how timed (also memory_spaces_tables.py's)."""
    if not m:
        return f"*Not measured: {missing}.*\n"
    where = m.get("gpu") or "the CPU"
    line = f"*{m.get('date', '?')}, tree `{m.get('git', '?')}`, {where}; {m.get('devices', '')}; {m.get('timing', '')}.*\n"
    if m.get("mode") == "local":
        line = (f"**A local test run (`{local_command}`: OpenCL on the CPU, small sizes), not the "
                "H100: these numbers only show that the script and the tables work.**\n\n" + line)
    return line


def ncu_kernels(path):
    """{variant: {metric: value}} from an `ncu --csv --page raw` log of several kernels: the first launch of each."""
    path = pathlib.Path(path)
    if not path.exists():
        return {}
    lines = [l for l in path.read_text(errors="replace").splitlines() if l.startswith('"')]
    rows = list(csv.reader(lines))
    if len(rows) < 2:
        return {}
    header, kernels = rows[0], {}
    name_column = header.index("Kernel Name") if "Kernel Name" in header else None
    for row in rows[1:]:
        if len(row) != len(header) or not row[0].isdigit() or name_column is None:
            continue
        match = re.search(r"convolve_([a-z0-9]+)", row[name_column])
        if not match or match.group(1) in kernels:
            continue
        values = {}
        for key, value in zip(header, row):
            try:
                values[key] = float(value.replace(",", ""))
            except ValueError:
                values[key] = value
        kernels[match.group(1)] = values
    return kernels


def stalls(values, top=3):
    """The largest warp-stall reasons of a profile (WarpStateStats' ratios: cycles stalled per issued instruction)."""
    found = {}
    for key, value in values.items():
        match = re.search(r"issue_stalled_([a-z_]+?)(?:_per_(?:warp_active|issue_active))?\.ratio$", key)
        # "selected" is the issue itself and "not_selected" an eligible warp another was chosen over: not stalls
        if match and isinstance(value, float) and match.group(1) not in ("selected", "not_selected", "not_issued"):
            found[match.group(1)] = max(found.get(match.group(1), 0.0), value)
    best = sorted(found.items(), key=lambda kv: -kv[1])[:top]
    return ", ".join(f"{name} {value:.2g}" for name, value in best) if best else None


def bank_conflicts(values):
    """Shared-memory bank conflicts, loads and stores, where the profile has them."""
    parts = [values.get(f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{op}.sum") for op in ("ld", "st")]
    return sum(parts) if all(isinstance(p, float) for p in parts) else None


def sass_paths(out):
    """{label: {opcode: count}} from sass-paths.txt: the binary's path kernels per pixel type, and fast's cubins."""
    path = pathlib.Path(out) / "sass-paths.txt"
    if not path.exists():
        return {}
    counts, source, label = {}, "binary", None
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith("# file "):
            source, label = line[len("# file "):], None
        elif match := re.search(r"Function : (\S+)", line):
            kernel = re.search(r"convolve_([a-z0-9]+)", match.group(1))
            if not kernel:
                label = None
                continue
            if source == "binary":
                pixel = "RGBA8" if "uchar4" in match.group(1) or "6uchar4" in match.group(1) else (
                    "u8" if re.search(r"P(K)?h", match.group(1).split("E", 1)[-1]) else "f32")
                label = f"{kernel.group(1)} ({pixel})"
            else:
                radius = re.search(r"RADIUS_X=(\d+)", source)
                label = f"{kernel.group(1)} (f32, r = {radius.group(1) if radius else '?'})"
            if label in counts:  # a second copy of one kernel (another architecture in the fat binary): once
                label = None
                continue
            counts[label] = {}
        elif label and (match := re.search(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)):
            opcode = match.group(1).split(".")[0]
            counts[label][opcode] = counts[label].get(opcode, 0) + 1
    return counts


def sass_columns(counts):
    """SASS_OPS, then any barrier, cluster, bulk-copy or shuffle opcode the listing has that they do not name (the
    mnemonics of barrier.cluster and mapa are the compiler's to choose: what it chose shows as a column)."""
    extra = {op for c in counts.values() for op in c
             if re.search(r"BAR|SYNC|CGA|MAPA|BLKCP|UTMA|LDGSTS|SHFL|DEPBAR", op)} - set(SASS_OPS)
    return SASS_OPS + sorted(extra)


def ptx_counts(out):
    """{variant: {PTX op: count}} of the OpenCL program binaries the probe saved (PTX on NVIDIA)."""
    found = {}
    for path in sorted((pathlib.Path(out) / "ptx").glob("*.ptx")):
        text = path.read_bytes().decode("latin-1")
        is_ptx = ".entry" in text or ".visible" in text
        counts = {op: len(re.findall(r"^\s*(?:@!?%p\d+\s+)?" + pattern, text, re.M)) for op, pattern in PTX_OPS.items()}
        found[path.stem] = dict(counts, ptx="yes" if is_ptx else "no (not PTX)", bytes=len(text))
    return found


def peaks(out):
    path = pathlib.Path(out) / "peaks.txt"
    if not path.exists():
        return {}
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)


def compile_options(report, variant, radius):
    for run in json.loads(pathlib.Path(report).read_text())["runs"]:
        if (run["backend"] == "opencl" and run["variant"] == variant and run["radius_x"] == radius
                and run["pixel"] == "f32" and run["status"] == "ok"):
            match = re.search(r"options: ([^;]*)", run.get("compile_time") or "")
            return match.group(1).strip() if match else "-cl-std=CL1.2"
    return ""


# --- docs/memory-spaces-evidence.md's path blocks ------------------------------------------------------------------------

def path_rows(runs, m, variants, pixel):
    """One row per radius: each variant's CUDA / OpenCL medians with their ratio to tiled in that API."""
    rows = []
    for r in radii(m):
        row = [r]
        for variant in variants:
            for backend in ("cuda", "opencl"):
                run = find(runs, backend=backend, variant=variant, pixel=pixel, radius_x=r)
                tiled = find(runs, backend=backend, variant="tiled", pixel=pixel, radius_x=r)
                value = ms(run)
                row.append(f"{fmt(value)} ({ratio(value, ms(tiled)):.2f})" if ratio(value, ms(tiled)) else fmt(value))
        rows.append(row)
    return rows


def block_path(out, variant):
    m = meta(out)
    runs, _, _ = load(out, ["paths-8192-f32", "paths-8192-u8"])
    size = m.get("large")
    if not runs:
        runs, _, _ = load(out, ["paths-2048"])
        size = m.get("size")
    if not runs:
        return provenance(m) + "\n*Not measured: no `paths-8192-*.json` or `paths-2048.json`.*\n"
    text = provenance(m)
    for pixel in ("f32", "u8"):
        head = ["r"] + [f"{v} {api}" for v in (variant, "fast") for api in ("CUDA", "OpenCL")]
        text += (f"\n{size}, {pixel}, kernel ms (in brackets: / tiled in the same API; `-`: the API has no such "
                 f"variant or the run was left out):\n\n" + table(head, path_rows(runs, m, [variant, "fast"], pixel)))
    return text


def block_profile(out, variant):
    """The profiler's figures for variant beside tiled (CUDA, 8192^2 f32), and the SASS they run."""
    m = meta(out)
    text = ""
    rows = []
    for radius in (3, 16):
        kernels = ncu_kernels(pathlib.Path(out) / "ncu" / f"paths-r{radius}.csv")
        for name in ("tiled", variant):
            v = kernels.get(name)
            if v:
                rows.append([f"{name}, r = {radius}", v.get("gpu__time_duration.sum", 0) / 1e3 or None,
                             v["dram__bytes_read.sum"] / 1e6 if "dram__bytes_read.sum" in v else None,
                             v["lts__t_bytes.sum"] / 1e6 if "lts__t_bytes.sum" in v else None,
                             v.get("sm__warps_active.avg.pct_of_peak_sustained_active"),
                             v.get("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"), stalls(v)])
    if rows:
        text += ("\nNsight Compute, one launch each (caches flushed), " + f"{m.get('large')} f32:\n\n" +
                 table(["kernel", "time µs", "DRAM read MB", "L2 bytes MB", "achieved occupancy %",
                        "shared wavefronts", "top stalls (cycles per issue)"], rows))
    else:
        text += "\n*Profiler: not measured in this run (Nsight Compute, GPU host only).*\n"
    sass = {k: c for k, c in sass_paths(out).items() if k.split(" ")[0] in ("tiled", variant)}
    if sass:
        columns = sass_columns(sass)
        text += ("\n`cuobjdump -sass`, static counts (LD: generic loads, which a cluster's reads of its neighbours' "
                 "shared memory become: `mapa` then `ld` in its PTX):\n\n" +
                 table(["kernel"] + columns, [[k] + [c.get(op, 0) for op in columns] for k, c in sorted(sass.items())]))
    return text


def block_async(out):
    text = block_path(out, "async") + block_profile(out, "async")
    ptx = ptx_counts(out)
    if ptx:
        text += ("\nWhat the OpenCL driver built (`tools/probes/cl_program_binary.cpp`: the program binary of the run's "
                 "own build, f32, r = 3; lines of each PTX instruction):\n\n" +
                 table(["kernel", "PTX?"] + list(PTX_OPS), [[k, c["ptx"]] + [c[op] for op in PTX_OPS]
                                                      for k, c in sorted(ptx.items())]))
    else:
        text += "\n*OpenCL program binaries: not saved in this run.*\n"
    return text


def block_host(out, mode):
    """mapped or managed against pinned copies: kernel and host-to-host ms, both APIs."""
    m = meta(out)
    runs, _, _ = load(out, ["host-memory"])
    if not runs:
        return provenance(m) + "\n*Not measured: no `host-memory.json`.*\n"
    rows = []
    for backend in ("cuda", "opencl"):
        for variant in sorted({r["variant"] for r in runs}):
            for r in radii(m, "memory_radii"):
                pinned = find(runs, backend=backend, variant=variant, radius_x=r, memory="pinned")
                other = find(runs, backend=backend, variant=variant, radius_x=r, memory=mode)
                if not pinned and not other:
                    continue
                h2d, d2h = ms(pinned, "h2d_ms"), ms(pinned, "d2h_ms")
                copies = h2d + d2h if isinstance(h2d, float) and isinstance(d2h, float) else None
                note = (other or {}).get("memory_note") or (other or {}).get("reason") or "-"
                rows.append([backend, variant, r, ms(pinned), copies, ms(other), ms(pinned, "host_to_host_ms"),
                             ms(other, "host_to_host_ms"),
                             ratio(ms(other, "host_to_host_ms"), ms(pinned, "host_to_host_ms")),
                             note.split(";")[0]])  # the note's first clause: its whole text is in the JSON
    return provenance(m) + f"\n{m.get('size')} f32, ms (h2d + d2h: the pinned run's copies of the frame):\n\n" + table(
        ["API", "variant", "r", "kernel, pinned", "h2d + d2h, pinned", f"kernel, {mode}", "host to host, pinned",
         f"host to host, {mode}", f"{mode} / pinned (host to host)", "note"], rows)


def block_peaks(out):
    p = peaks(out)
    if not p:
        return "*Not measured in this run (tools/probes/bandwidth_probe.cu, GPU host only).*\n"
    return (f"*tools/probes/bandwidth_probe.cu on {p.get('device', '?')} ({p.get('sms', '?')} SMs), best of 5 launches, "
            "GB/s of 16-byte loads:*\n\n" + table(["space", "read GB/s", "how"], [
                ["L2", float(p["l2_read_gb_per_s"]) if "l2_read_gb_per_s" in p else None,
                 "half the L2 swept 100 times with ld.global.cg"],
                ["L1", float(p["l1_read_gb_per_s"]) if "l1_read_gb_per_s" in p else None,
                 "a 32 KB window per block swept with ld.global.ca"],
                ["shared", float(p["shared_read_gb_per_s"]) if "shared_read_gb_per_s" in p else None,
                 "32 KB per block, conflict-free LDS.128"]]))


def blocks(out):
    return {
        "paths-async": lambda: block_async(out),
        "paths-shuffle": lambda: block_path(out, "shuffle") + block_profile(out, "shuffle"),
        "paths-cluster": lambda: block_path(out, "cluster") + block_profile(out, "cluster"),
        "paths-mapped": lambda: block_host(out, "mapped"),
        "paths-managed": lambda: block_host(out, "managed"),
        "paths-peaks": lambda: block_peaks(out),
    }


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--options":
        print(compile_options(sys.argv[2], sys.argv[3], int(sys.argv[4])))
    else:
        sys.exit(__doc__)
