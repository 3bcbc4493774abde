#!/usr/bin/env python3
"""perf_tables.py: the tables of docs/performance.md, made from the JSON reports tools/benchmark.sh writes.

  perf_tables.py tables REPORT.json... > tables.md   every table, from reports of one run
  perf_tables.py splice tables.md docs/performance.md  replace the text between the markers
  perf_tables.py paths OUT_DIR [docs/performance.md]   the memory paths' tables from what
        `tools/memory_spaces.sh --paths` wrote (read by tools/memory_spaces_paths.py), printed, or put between the paths markers
"""
import json
import pathlib
import sys

BEGIN, END = "<!-- benchmark tables: begin -->", "<!-- benchmark tables: end -->"
PATHS_BEGIN, PATHS_END = "<!-- paths tables: begin -->", "<!-- paths tables: end -->"


def load(paths):
    runs, streams, devices = [], [], {}
    for path in paths:
        report = json.load(open(path))
        runs += report["runs"]
        streams += report.get("streams", [])
        for device in report["devices"]:
            devices[device["id"]] = device
    return runs, streams, devices


def ms(run):
    return run["kernel_ms"]["median"] if run and run["status"] == "ok" else None


def cell(value, digits=3):
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    return f"{value:.{digits}g}" if value < 1000 else f"{value:.0f}"


def find(runs, size, radius, backend, variant, memory=None):
    for run in runs:
        if (f"{run['width']}x{run['height']}" == size and run["radius_x"] == radius and run["backend"] == backend
                and run["variant"] == variant and (memory is None or run["memory"] == memory)):
            return run
    return None


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def status_or_ms(run):
    if run is None:
        return "-"
    return ms(run) if run["status"] == "ok" else run["status"]


def tables(paths):
    runs, streams, devices = load(paths)
    out = []
    for device in devices.values():
        peaks = device.get("peaks") or {}
        if peaks.get("copy_gb_per_s"):
            out.append(f"- `{device['id']}` {device['name']}: copy kernel {peaks['copy_gb_per_s']:.0f} GB/s, "
                       f"FMA kernel {peaks['fma_gflop_per_s'] / 1000:.1f} TFLOP/s (measured by convcompare)\n")
    out.append("\n")
    sizes = sorted({f"{r['width']}x{r['height']}" for r in runs}, key=lambda s: int(s.split("x")[0]))
    radii = sorted({r["radius_x"] for r in runs})
    for size in sizes:
        out.append(f"#### {size}: fast, auto and fft against NPP and the floor (kernel ms, median)\n\n")
        rows = []
        for radius in radii:
            fast, npp = find(runs, size, radius, "cuda", "fast"), find(runs, size, radius, "cuda", "npp")
            cl_fast = find(runs, size, radius, "opencl", "fast")
            auto = find(runs, size, radius, "cuda", "auto")
            fft = find(runs, size, radius, "cuda", "fft")
            bound = f"{fast['bound_percent']:.0f}% {fast['bound']}" if fast and fast.get("bound_percent") else "-"
            cl_bound = (f"{cl_fast['bound_percent']:.0f}% {cl_fast['bound']}"
                        if cl_fast and cl_fast.get("bound_percent") else "-")
            speedup = ms(npp) / ms(fast) if ms(npp) and ms(fast) else None
            choice = auto["compile_time"].split(" ")[1] if auto and auto["compile_time"].startswith("auto:") else "-"
            best = min([m for m in (ms(find(runs, size, radius, "cuda", v)) for v in ("fast", "separable", "fft",
                                                                                      "tiled", "constant", "global"))
                        if m] or [None]) if auto else None
            auto_ratio = ms(auto) / best if ms(auto) and best else None
            rows.append([radius, (2 * radius + 1) ** 2, status_or_ms(fast), bound, status_or_ms(npp), speedup,
                         status_or_ms(cl_fast), cl_bound, status_or_ms(fft), status_or_ms(auto), choice, auto_ratio])
        out.append(table(["r", "taps", "CUDA fast", "% of floor", "NPP", "NPP / fast", "OpenCL fast", "% of floor",
                          "CUDA fft", "CUDA auto", "auto chose", "auto / best"], rows))
        out.append("\n")

        variants = [v for v in ("global", "constant", "tiled", "texture", "separable", "fft", "fast", "auto")
                    if any(r["variant"] == v for r in runs)]
        out.append(f"#### {size}: OpenCL / CUDA kernel time per variant (NVIDIA OpenCL on the same GPU)\n\n")
        rows = []
        for radius in radii:
            row = [radius]
            for variant in variants:
                cuda, cl = ms(find(runs, size, radius, "cuda", variant)), ms(find(runs, size, radius, "opencl", variant))
                row.append(cl / cuda if cuda and cl else None)
            rows.append(row)
        out.append(table(["r"] + variants, rows))
        out.append("\n")

        out.append(f"#### {size}: separable against its DRAM floors and NPP row+column\n\n")
        rows = []
        for radius in radii:
            sep, npp_sep = find(runs, size, radius, "cuda", "separable"), find(runs, size, radius, "cuda", "npp-separable")
            cl_sep = find(runs, size, radius, "opencl", "separable")
            peaks = (devices.get("cuda:0") or {}).get("peaks") or {}
            pixels = sep["width"] * sep["height"] * sep["channels"] if sep else 0
            # The target's floor (docs/performance.md, "Against the targets"): two passes through a temporary
            # (read input, write temp, read temp, write output); ours passes the rows on chip, so its own
            # floor is one read and one write.
            rate = peaks.get("copy_gb_per_s")
            two_pass = pixels * 16 / (rate * 1e9) * 1e3 if sep and rate else None
            fused = two_pass / 2 if two_pass else None
            rows.append([radius, status_or_ms(sep), two_pass, 100 * two_pass / ms(sep) if two_pass and ms(sep) else None,
                         100 * fused / ms(sep) if fused and ms(sep) else None,
                         status_or_ms(npp_sep), ms(npp_sep) / ms(sep) if ms(npp_sep) and ms(sep) else None,
                         status_or_ms(cl_sep)])
        out.append(table(["r", "CUDA separable", "two-pass DRAM floor", "% of two-pass floor",
                          "% of one-pass floor", "NPP row+column", "NPP / ours", "OpenCL separable"], rows))
        out.append("\n")

        out.append(f"#### {size}: peak device memory per variant (MB; image = "
                   f"{int(size.split('x')[0]) * int(size.split('x')[1]) * 4 / 2**20:.0f} MB)\n\n")
        rows = []
        for backend in ("cuda", "opencl"):
            for variant in variants + ["npp", "npp-separable"]:
                mbs = [r.get("device_mb") for r in runs if r["backend"] == backend and r["variant"] == variant
                       and f"{r['width']}x{r['height']}" == size and r.get("device_mb")]
                if mbs:
                    rows.append([backend, variant, max(mbs)])
        out.append(table(["backend", "variant", "peak device MB (largest radius)"], rows))
        out.append("\n")

    if streams:
        out.append("#### Host to host with overlap (--stream)\n\n")
        rows = [[s["backend"], s["device"], s["variant"], f"{s['width']}x{s['height']}", s["memory"], s["frames"],
                 s["queues"], s["frames_per_s"], s["total_ms"] / s["frames"] if s["total_ms"] else None,
                 s["serial_ms_per_frame"], s["pcie_floor_ms_per_frame"],
                 # The report's own figure (floor_fraction: floor / ms per frame), as the console's "% floor".
                 100 * s["floor_fraction"] if s.get("floor_fraction") is not None else None, s["status"]]
                for s in streams]
        out.append(table(["backend", "device", "variant", "size", "memory", "frames", "queues", "frames/s", "ms/frame",
                          "serial ms/frame", "PCIe floor ms/frame", "% floor", "status"], rows))
    return "".join(out)


# --- the memory paths (tools/memory_spaces.sh --paths) -----------------------------------------------------------

def not_run(runs):
    """Why a cell says skipped or failed: once per variant, API, memory and reason."""
    reasons = sorted({(r["variant"], r["backend"], r.get("memory", ""), r["status"], r.get("reason") or "")
                      for r in runs if r["status"] != "ok"})
    return ("Not run as timed: " + "; ".join(f"`{v}` ({b}{', ' + mem if mem else ''}) {s}: {why}" for v, b, mem, s, why in reasons) +
            ".\n\n") if reasons else ""


def paths_speed(out, paths, m):
    """Each memory path against tiled and fast per size and pixel type, both APIs, and the targets' verdicts."""
    text, verdicts = [], {}
    runs, _, _ = paths.load(out, ["paths-2048", "paths-8192-f32", "paths-8192-u8"])
    present = [v for v in paths.PATHS if any(r["variant"] == v for r in runs)]
    sizes = sorted({f"{r['width']}x{r['height']}" for r in runs}, key=lambda s: int(s.split("x")[0]))
    for size in sizes:
        for pixel in ("f32", "u8"):
            def get(backend, variant, r):
                return paths.ms(paths.find(runs, size=size, pixel=pixel, backend=backend, variant=variant, radius_x=r))
            head, rows = ["r"], []
            for v in present:
                head += [f"{v} CUDA", f"{v}/tiled CUDA"]
                if any(r["variant"] == v and r["backend"] == "opencl" for r in runs):
                    head += [f"{v} OpenCL", f"{v}/tiled OpenCL"]
            head += ["tiled CUDA", "tiled OpenCL", "fast CUDA", "fast OpenCL", "best path / fast CUDA",
                     "best path / fast OpenCL", "async OpenCL / CUDA"]
            for r in paths.radii(m):
                row = [r]
                for v in present:
                    for backend in ("cuda", "opencl"):
                        if backend == "opencl" and not any(x["variant"] == v and x["backend"] == "opencl" for x in runs):
                            continue
                        value, tiled = get(backend, v, r), get(backend, "tiled", r)
                        row += [value, paths.ratio(value, tiled)]
                        if paths.ratio(value, tiled):
                            verdicts.setdefault((v, backend), []).append((paths.ratio(value, tiled), size, pixel, r))
                row += [get("cuda", "tiled", r), get("opencl", "tiled", r), get("cuda", "fast", r),
                        get("opencl", "fast", r)]
                for backend in ("cuda", "opencl"):  # the fastest path in this API against its fast
                    best = min([x for x in (get(backend, v, r) for v in present) if isinstance(x, float)] or [None],
                               key=lambda x: x or 0)
                    against = paths.ratio(best, get(backend, "fast", r))
                    row.append(against)
                    if against:
                        verdicts.setdefault(("best", "fast"), []).append((against, size, f"{pixel} {backend}", r))
                row.append(paths.ratio(get("opencl", "async", r), get("cuda", "async", r)))
                if paths.ratio(get("opencl", "async", r), get("cuda", "async", r)):
                    verdicts.setdefault(("async", "opencl/cuda"), []).append(
                        (paths.ratio(get("opencl", "async", r), get("cuda", "async", r)), size, pixel, r))
                rows.append(row)
            if any(len([c for c in row[1:] if c is not None]) for row in rows):
                text.append(f"#### {size}, {pixel} (1 channel): kernel ms, median; ratios < 1 are faster\n\n")
                text.append(table(head, rows) + "\n")
    lines = []
    for (v, backend), found in sorted(verdicts.items()):
        worst = max(found)
        if v == "best":
            wins = [f for f in found if f[0] < 1]
            lines.append(f"- One path faster than `fast` somewhere: {'met' if wins else 'not met'} "
                         f"({len(wins)} of {len(found)} problems; best {min(found)[0]:.2f} at {min(found)[1]} "
                         f"{min(found)[2]} r = {min(found)[3]})")
        elif backend == "opencl/cuda":
            within = [f for f in found if f[0] <= 1.15]
            lines.append(f"- OpenCL `async` within 1.15x of CUDA's: {len(within)} of {len(found)} problems "
                         f"(worst {worst[0]:.2f} at {worst[1]} {worst[2]} r = {worst[3]})")
        else:
            ok = [f for f in found if f[0] <= 1.0]
            lines.append(f"- `{v}` ({backend}) at least as fast as `tiled`: {len(ok)} of {len(found)} problems "
                         f"(worst {worst[0]:.2f}x tiled at {worst[1]} {worst[2]} r = {worst[3]})")
    text.append(not_run(runs))
    return "".join(text) + ("**The targets, read from these tables:**\n\n" + "\n".join(lines) + "\n\n" if lines else "")


def paths_profile(out, paths, m):
    rows = []
    for radius in (3, 16):
        for kernel, v in sorted(paths.ncu_kernels(out / "ncu" / f"paths-r{radius}.csv").items()):
            rows.append([f"{kernel}, r = {radius}", v.get("gpu__time_duration.sum", 0) / 1e3 or None,
                         v["dram__bytes_read.sum"] / 1e6 if "dram__bytes_read.sum" in v else None,
                         v["lts__t_bytes.sum"] / 1e6 if "lts__t_bytes.sum" in v else None,
                         v.get("sm__warps_active.avg.pct_of_peak_sustained_active"),
                         v.get("sm__maximum_warps_per_active_cycle_pct"),
                         v.get("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"),
                         v.get("l1tex__data_pipe_lsu_wavefronts.sum"),
                         paths.bank_conflicts(v), paths.stalls(v)])
    text = "#### The profiler's reading (CUDA, " + f"{m.get('large', '8192x8192')} f32)\n\n"
    if not rows:
        return text + "*Not measured in this run (Nsight Compute, GPU host only).*\n\n"
    image_mb = 0
    if m.get("large"):
        w, h = (int(x) for x in m["large"].split("x"))
        image_mb = w * h * 4 / 1e6
    return (text + f"One launch of each kernel under `ncu --section WarpStateStats` (caches flushed before it); "
            f"one read of the image is {image_mb:.0f} MB. Stalls: cycles per issued instruction.\n\n" +
            table(["kernel", "time µs", "DRAM read MB", "L2 bytes MB", "achieved occupancy %",
                   "theoretical occupancy %", "shared wavefronts", "L1 wavefronts", "shared bank conflicts",
                   "top stalls"], rows) + "\n")


def paths_listings(out, paths):
    text = "#### What each path compiles to\n\n"
    # the paths and what they are measured against; the binary also holds every other offline kernel
    sass = {k: c for k, c in paths.sass_paths(out).items() if k.split(" ")[0] in paths.PATHS + ["tiled", "fast"]}
    if sass:
        columns = paths.sass_columns(sass)
        text += ("`cuobjdump -sass` of the binary's kernels and of fast's NVRTC source built by nvcc, static "
                 "counts (a loop body counts once; LD: generic loads, which cluster's reads of its neighbours' "
                 "shared memory become, `mapa` then `ld` in its PTX):\n\n" +
                 table(["kernel"] + columns, [[k] + [c.get(op, 0) for op in columns]
                                              for k, c in sorted(sass.items())]) + "\n")
    else:
        text += "*SASS: not listed in this run (cuobjdump, GPU host only).*\n\n"
    ptx = paths.ptx_counts(out)
    if ptx:
        text += ("The OpenCL driver's program binary of each kernel as the run built it (f32, r = 3; "
                 "tools/probes/cl_program_binary.cpp), lines per PTX instruction:\n\n" +
                 table(["kernel", "PTX?"] + list(paths.PTX_OPS), [[k, c["ptx"]] + [c[op] for op in paths.PTX_OPS]
                                                            for k, c in sorted(ptx.items())]) + "\n")
    return text


def paths_lowrank(out, paths, m):
    """LoG and DoG, lowrank against the best of today's variants, NPP beside."""
    runs, _, _ = paths.load(out, ["lowrank-8192"])
    text = f"#### LoG and DoG: lowrank against today's best ({m.get('large', '8192x8192')} f32, clamp)\n\n"
    if not runs:
        return text + "*Not measured: no `lowrank-8192.json`.*\n\n"
    today = [v for v in ("global", "constant", "tiled", "texture", "fast", "fft") if any(r["variant"] == v for r in runs)]
    rows, met = [], []
    radius_of = {r["filter"]: r["radius_x"] for r in runs}
    for spec in sorted(radius_of, key=lambda f: (f.split(":")[0], radius_of[f])):
        for backend in ("cuda", "opencl"):
            def get(variant):
                return paths.find(runs, filter=spec, backend=backend, variant=variant)
            lowrank = get("lowrank")
            if not lowrank:
                continue
            timed = [(paths.ms(get(v)), v) for v in today if isinstance(paths.ms(get(v)), float)]
            best = min(timed) if timed else (None, "-")
            speedup = paths.ratio(best[0], paths.ms(lowrank))
            if speedup:
                met.append((speedup, spec, backend))
            rows.append([spec, lowrank["radius_x"], backend, paths.ms(lowrank), lowrank.get("terms"),
                         best[0], best[1], speedup, paths.ms(get("npp")) if backend == "cuda" else "-"])
    lines = ""
    if met:
        hit = [x for x in met if x[0] >= 2]
        lines = (f"\nTarget (best of today / lowrank >= 2): {len(hit)} of {len(met)} problems; lowest "
                 f"{min(met)[0]:.2f} ({min(met)[1]}, {min(met)[2]}).\n")
    return text + table(["filter", "r", "API", "lowrank ms", "terms", "best of today ms", "which", "best / lowrank",
                         "NPP ms"], rows) + lines + "\n" + not_run(runs)


def why_missing(run):
    """A host-to-host cell without a figure: the run's status, or that its time budget cut the phase."""
    if run is None:
        return "-"
    if run["status"] != "ok":
        return run["status"]
    return "budget" if "host_to_host_ms" in (run.get("budget_skipped") or "") else "-"


def paths_host(out, paths, m):
    """One frame host to host in every memory mode, against the PCIe floor and pinned copies."""
    runs, streams, _ = paths.load(out, ["host-frame"])
    text = f"#### One frame host to host: seed 000's job ({m.get('size', '2048x2048')}, 3 channels, 3x3, clamp)\n\n"
    if not runs:
        return text + "*Not measured: no `host-frame.json`.*\n\n"
    rows = []
    for backend in ("cuda", "opencl"):
        for pixel in ("u8", "f32"):
            for variant in sorted({r["variant"] for r in runs}):
                def get(memory):
                    return paths.find(runs, backend=backend, pixel=pixel, variant=variant, memory=memory)
                pinned = get("pinned")
                if not pinned:
                    continue
                # The floor: the frame's bytes each way at the pinned copies' own measured rates (h2d + d2h of
                # this frame, device events), i.e. what any copy or any zero-copy kernel must move over the link.
                h2d, d2h = paths.ms(pinned, "h2d_ms"), paths.ms(pinned, "d2h_ms")
                floor = h2d + d2h if isinstance(h2d, float) and isinstance(d2h, float) else None
                h2h = {mode: paths.ms(get(mode), "host_to_host_ms") for mode in ("pinned", "pageable", "mapped", "managed")}
                h2h = {k: v if v is not None else why_missing(get(k)) for k, v in h2h.items()}
                duplex = max(h2d, d2h) if floor else None  # a mapped kernel reads and writes at once
                rows.append([backend, pixel, variant, h2d, d2h, floor, h2h["pinned"], h2h["pageable"], h2h["mapped"],
                             paths.ms(get("mapped")), paths.ratio(h2h["mapped"], floor),
                             paths.ratio(h2h["mapped"], duplex), h2h["managed"],
                             paths.ratio(h2h["managed"], h2h["pinned"])])
    text += ("Host-clock ms of one frame (upload + kernel + download; mapped: the kernel alone, which moves the "
             "frame over the link itself). PCIe floor: the pinned run's h2d + d2h (the frame's bytes each way at "
             "the measured pinned rates); the duplex floor, max(h2d, d2h), is what a kernel reading and writing "
             "host memory at once could reach. Targets: mapped / floor <= 1.3, managed / pinned <= 1.2 (managed is "
             "prefetched where `concurrentManagedAccess` is 1: the run's `memory_note`; the tool has no "
             "unprefetched mode).\n\n")
    text += table(["API", "pixel", "variant", "h2d pinned", "d2h pinned", "PCIe floor", "pinned", "pageable",
                   "mapped", "mapped kernel", "mapped / floor", "mapped / duplex floor", "managed",
                   "managed / pinned"], rows) + "\n" + not_run(runs)
    if streams:
        text += ("`--stream 30` (three queues; the floor is max(h2d, d2h) of one frame on slot 0):\n\n" + table(
            ["API", "pixel", "variant", "memory", "frames/s", "ms/frame", "PCIe floor ms/frame", "% floor", "status"],
            [[s["backend"], s["pixel"], s["variant"], s["memory"], s.get("frames_per_s"),
              s["total_ms"] / s["frames"] if s.get("total_ms") else None, s.get("pcie_floor_ms_per_frame"),
              100 * s["floor_fraction"] if s.get("floor_fraction") is not None else None,
              s["status"] if s["status"] == "ok" else f"{s['status']}: {s.get('reason', '')}"] for s in streams]) + "\n")
    return text


def paths_tables(out):
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
    import memory_spaces_paths as paths  # noqa: E402  (the readers docs/memory-spaces-evidence.md's blocks share)
    m = paths.meta(out)
    command = ("bash tools/memory_spaces.sh --paths build-gpu/convcompare OUT && "
               "python3 tools/perf_tables.py paths OUT docs/performance.md")
    return (paths.provenance(m) + f"\nCommand: `{command}` (tools/memory_spaces_paths.sh lists every run).\n\n" +
            "### The memory paths against tiled and fast\n\n" + paths_speed(out, paths, m) +
            paths_profile(out, paths, m) + paths_listings(out, paths) + paths_lowrank(out, paths, m) +
            paths_host(out, paths, m))


def splice(tables_path, doc_path, begin=BEGIN, end=END, new=None):
    doc = open(doc_path).read()
    new = open(tables_path).read() if new is None else new
    if begin not in doc or end not in doc:
        sys.exit(f"{doc_path}: no '{begin}' ... '{end}' markers")
    head, rest = doc.split(begin, 1)
    tail = rest.split(end, 1)[1]
    open(doc_path, "w").write(f"{head}{begin}\n{new}{end}{tail}")


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "tables":
        sys.stdout.write(tables(sys.argv[2:]))
    elif len(sys.argv) == 4 and sys.argv[1] == "splice":
        splice(sys.argv[2], sys.argv[3])
    elif len(sys.argv) in (3, 4) and sys.argv[1] == "paths":
        text = paths_tables(pathlib.Path(sys.argv[2]))
        if len(sys.argv) == 4:
            splice(None, sys.argv[3], PATHS_BEGIN, PATHS_END, text)
            print(f"{sys.argv[3]}: rewrote the paths tables")
        else:
            sys.stdout.write(text)
    else:
        sys.exit(__doc__)
