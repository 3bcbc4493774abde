#!/usr/bin/env python3
"""perf_tables.py: the tables of docs/performance.md, made from the JSON reports tools/benchmark.sh writes.

  perf_tables.py tables REPORT.json... > tables.md   every table, from reports of one run
  perf_tables.py splice tables.md docs/performance.md  replace the text between the markers
"""
import json
import sys

BEGIN, END = "<!-- benchmark tables: begin -->", "<!-- benchmark tables: end -->"


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
            # The floor: two passes through a temporary (read input, write temp, read temp, write
            # output); ours passes the rows on chip, so its own floor is one read and one write.
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


def splice(tables_path, doc_path):
    doc, new = open(doc_path).read(), open(tables_path).read()
    if BEGIN not in doc or END not in doc:
        sys.exit(f"{doc_path}: no '{BEGIN}' ... '{END}' markers")
    head, rest = doc.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    open(doc_path, "w").write(f"{head}{BEGIN}\n{new}{END}{tail}")


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "tables":
        sys.stdout.write(tables(sys.argv[2:]))
    elif len(sys.argv) == 4 and sys.argv[1] == "splice":
        splice(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
