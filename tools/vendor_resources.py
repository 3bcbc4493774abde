#!/usr/bin/env python3
"""vendor_resources.py: the resource table of docs/vendor-resources.md, from what tools/vendor_kernels.sh built.

  vendor_resources.py [--keep docs/vendor-resources.csv] RESULTS_DIR > docs/vendor-resources.md

--keep: the rows of every kernel file not built in RESULTS_DIR are taken from that CSV (an earlier full
run's), so building one new kernel file (vendor_kernels.sh's KERNEL_FILES) updates the whole table.

RESULTS_DIR holds, per build, JOB.job (kernel file, options, target: tab-separated) and, when the build
succeeded, JOB.notes (AMD: `llvm-readobj --notes` of the code object) or JOB.zeinfo (Intel: the binary's
.ze_info section). Occupancy is derived from registers and local memory by the rules written out in the
document's header, so a reader can check every figure.
"""
import csv
import io
import math
import pathlib
import re
import sys

# Per target: what the occupancy rules need. AMD: LLVM's AMDGPU backend (AMDGPUBaseInfo.cpp:
# getTotalNumVGPRs, getVGPRAllocGranule, getMaxWavesPerEU, getAddressableNumSGPRs) and AMD's ISA guides.
AMD = {
    "gfx1030": dict(name="AMD RDNA2 (gfx1030)", vgprs=1024, granule=8, max_waves=16, lds=128 * 1024,
                    simds_per_lds=4, sgpr_limited=False),  # wave32; LDS per WGP (4 SIMD32), WGP mode
    "gfx90a": dict(name="AMD CDNA2 (gfx90a)", vgprs=512, granule=8, max_waves=8, lds=64 * 1024,
                   simds_per_lds=4, sgpr_limited=True),  # wave64; VGPR+AGPR unified; LDS per CU (4 SIMD16)
}
# Intel: hardware threads per EU by GRF mode, and shared local memory per sub-slice / Xe-core.
INTEL = {
    "tgllp": dict(name="Intel Xe-LP (tgllp, Gen12LP)", threads_128=7, threads_256=None, slm=64 * 1024, eus=16),
    "acm-g10": dict(name="Intel Xe-HPG (acm-g10, Arc A770)", threads_128=8, threads_256=4, slm=64 * 1024, eus=16),
    "pvc": dict(name="Intel Xe-HPC (pvc, Data Center GPU Max)", threads_128=8, threads_256=4, slm=128 * 1024, eus=8),
}


def amd_kernels(text):
    """The kernels of an `llvm-readobj --notes` dump: one dict per amdhsa.kernels entry."""
    kernels, current, in_kernels = [], None, False
    for line in text.splitlines():
        if line.startswith("amdhsa.kernels:"):
            in_kernels = True
            continue
        if in_kernels and re.match(r"^\S", line):
            in_kernels = False
        if not in_kernels:
            continue
        if re.match(r"^  - \.", line):
            current = {}
            kernels.append(current)
            line = "    " + line[4:]
        match = re.match(r"^    \.(\w+):\s*(\S*)", line)
        if match and current is not None:
            current[match.group(1)] = match.group(2)
    return kernels


def amd_row(target, kernel):
    spec = AMD[target]
    vgpr, agpr = int(kernel["vgpr_count"]), int(kernel.get("agpr_count", 0))
    sgpr, lds = int(kernel["sgpr_count"]), int(kernel["group_segment_fixed_size"])
    wave = int(kernel["wavefront_size"])
    group = int(kernel["max_flat_workgroup_size"])
    used = (math.ceil(vgpr / 4) * 4 + agpr) if target == "gfx90a" else vgpr
    by_vgpr = min(spec["max_waves"], spec["vgprs"] // max(spec["granule"], math.ceil(used / spec["granule"]) * spec["granule"]))
    limits = [by_vgpr]
    if spec["sgpr_limited"]:
        limits.append(min(spec["max_waves"], 800 // (math.ceil((sgpr + 6) / 16) * 16)))  # + VCC, FLAT_SCRATCH, XNACK
    if lds:
        waves_per_group = math.ceil(group / wave)
        limits.append(spec["lds"] // lds * waves_per_group / spec["simds_per_lds"])  # an average: may be < 1
    return dict(kernel=kernel["symbol"].removesuffix(".kd"), registers=f"{vgpr} VGPR + {agpr} AGPR, {sgpr} SGPR"
                if agpr else f"{vgpr} VGPR, {sgpr} SGPR", local=lds, scratch=int(kernel["private_segment_fixed_size"]),
                spills=f'{kernel.get("vgpr_spill_count", "0")} VGPR, {kernel.get("sgpr_spill_count", "0")} SGPR',
                occupancy=f"{round(min(limits), 2):g} waves/SIMD (wave{wave})")


def intel_kernels(text):
    """The kernels of a .ze_info section (YAML, read line by line: the subset the compiler writes)."""
    kernels, section = [], None
    for line in text.splitlines():
        if line.startswith("kernels_misc_info:"):
            break
        if match := re.match(r"^  - name:\s+(\S+)", line):
            kernels.append(dict(name=match.group(1), buffers=[]))
        elif not kernels:
            continue
        elif match := re.match(r"^    (\w+):", line):
            section = match.group(1)
        elif section == "execution_env" and (match := re.match(r"^      (\w+):\s+(\d+)$", line)):
            kernels[-1][match.group(1)] = int(match.group(2))
        elif section == "per_thread_memory_buffers" and (match := re.match(r"^      - type:\s+(\S+)", line)):
            kernels[-1]["buffers"].append(dict(type=match.group(1)))
        elif section == "per_thread_memory_buffers" and (match := re.match(r"^        (\w+):\s+(\S+)", line)):
            kernels[-1]["buffers"][-1][match.group(1)] = match.group(2)
    return kernels


def intel_row(target, kernel):
    spec = INTEL[target]
    grf, slm = kernel.get("grf_count", 128), kernel.get("slm_size", 0)
    spill = sum(int(b.get("size", 0)) for b in kernel["buffers"] if b.get("usage") == "spill_fill_space")
    private = sum(int(b.get("size", 0)) for b in kernel["buffers"] if b.get("usage") == "private_space")
    threads = spec["threads_256"] if grf > 128 and spec["threads_256"] else spec["threads_128"]
    occupancy = f"{threads} threads/EU (SIMD{kernel.get('simd_size', '?')})"
    if slm:
        occupancy += f", {spec['slm'] // slm} groups/sub-slice by SLM"
    return dict(kernel=kernel["name"], registers=f"{grf} GRF", local=slm, scratch=private,
                spills=f"{spill} bytes", occupancy=occupancy)


HEADER = """# Vendor resources: every OpenCL kernel, built by AMD's and Intel's own compilers

Generated by `tools/vendor_kernels.sh` (CI stage "vendor compilers"; docs/portability.md says how) from
the build options `build/cl_configurations` prints, which come from the project's own shape code
(common/geometry/fast_shape.h, separable_shape.h): every shape the OpenCL backend can choose for radii
0..32 on both axes, local memory of 32, 48 and 64 KB and work-group limits of 256, 128, 64 and 32, each at
the extremes of the radii that take it (the smallest and largest unrolled bodies, and the most oblong;
the 8-bit formats, which differ only in loads and stores, at the largest). Every row compiled and linked; the stage fails on any error. Do not edit by hand.

- AMD: ROCm's pipeline as its runtime runs it: `clang-15 -x cl -cl-std=CL1.2 -target amdgcn-amd-amdhsa
  -mcpu=TARGET -Xclang -finclude-default-header -O3` with Debian's rocm-device-libs, linked by ld.lld into a
  code object; figures from its metadata (`llvm-readobj --notes`): `.vgpr_count`, `.agpr_count`,
  `.sgpr_count`, `.group_segment_fixed_size` (LDS), `.private_segment_fixed_size` (scratch),
  `.vgpr_spill_count`, `.sgpr_spill_count`.
- Intel: `ocloc compile -device TARGET --format zebin -options -cl-std=CL1.2`; figures from the binary's
  `.ze_info`: `grf_count`, `simd_size`, `slm_size` and `per_thread_memory_buffers` (private memory, and the
  spill/fill space: spills).

Occupancy, per target (the smallest of the limits that apply):
- gfx1030 (wave32): waves per SIMD = min(16, floor(1024 / ceil8(VGPR)), floor(128 KB / LDS) x waves per
  group / 4) — 1024 VGPRs per lane per SIMD32 in wave32, allocated in 8s; 128 KB of LDS per WGP of 4 SIMDs.
- gfx90a (wave64): waves per SIMD = min(8, floor(512 / ceil8(ceil4(VGPR) + AGPR)), floor(800 / ceil16(SGPR +
  6)), floor(64 KB / LDS) x waves per group / 4) — a unified 512-register file per lane, 800 SGPRs per SIMD,
  64 KB of LDS per CU of 4 SIMDs.
- Intel: hardware threads per EU by GRF mode (Xe-LP: 7 at 128 GRF; Xe-HPG and Xe-HPC: 8 at 128, 4 at
  256), and work-groups per sub-slice (Xe-core) by its SLM = floor(64 KB / SLM) (Xe-HPC: 128 KB). pvc
  builds tensor.cl's sub-group matrix path alone (16 lanes), acm-g10 also its 8-lane one.
"""


def kept_rows(path, built_files):
    """The rows of an earlier table's CSV whose kernel file was not built this time."""
    with open(path, newline="") as handle:
        return [row for row in csv.DictReader(handle) if row["file"] not in built_files]


def main():
    arguments = sys.argv[1:]
    keep = None
    if arguments[:1] == ["--keep"] and len(arguments) == 3:
        keep, arguments = arguments[1], arguments[2:]
    if len(arguments) != 1 or arguments[0].startswith("-"):
        sys.exit("usage: vendor_resources.py [--keep TABLE.csv] RESULTS_DIR")
    results = pathlib.Path(arguments[0])
    rows = []
    for job in sorted(results.glob("*.job")):
        kernel_file, options, target = job.read_text().rstrip("\n").split("\t")
        stem = job.with_suffix("")
        if target in AMD:
            parsed = [amd_row(target, k) for k in amd_kernels(stem.with_suffix(".notes").read_text())]
        else:
            parsed = [intel_row(target, k) for k in intel_kernels(stem.with_suffix(".zeinfo").read_text())]
        for row in parsed:
            rows.append(dict(file=kernel_file, options=options or "(none)", target=target, **row))
    if keep:
        rows += kept_rows(keep, {r["file"] for r in rows})
    order = list(AMD) + list(INTEL)
    rows.sort(key=lambda r: (r["file"], r["options"], r["kernel"], order.index(r["target"])))
    out = io.StringIO()
    out.write(HEADER)
    targets_of = {}
    for r in rows:
        targets_of.setdefault((r["file"], r["options"]), set()).add(r["target"])
    counts = [str(n) for n in sorted({len(t) for t in targets_of.values()})]
    built_for = " or ".join(counts) if len(counts) < 3 else ", ".join(counts[:-1]) + " or " + counts[-1]
    out.write(f"\n{len(targets_of)} configurations, each built for {built_for} targets (the 8-bit formats on one per "
              f"vendor unless ALL_TARGETS=1; sub-group shuffles on Intel's alone): {len(rows)} kernels in all.\n")
    columns = ["kernel", "target", "registers", "local", "scratch", "spills", "occupancy"]
    titles = ["kernel", "target", "registers", "LDS / SLM bytes", "scratch / private bytes", "spills", "occupancy"]
    current = None
    for row in rows:
        if (row["file"], row["options"]) != current:
            current = (row["file"], row["options"])
            out.write(f"\n### {row['file']} `{row['options']}`\n\n| {' | '.join(titles)} |\n|{'---|' * len(titles)}\n")
        out.write("| " + " | ".join(str(row[c]) for c in columns) + " |\n")
    sys.stdout.write(out.getvalue())
    with open(results / "vendor-resources.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=["file", "options", "target"] + columns)
        writer.writeheader()
        writer.writerows(rows)


if __name__ == "__main__":
    main()
