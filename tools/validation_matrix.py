#!/usr/bin/env python3
"""validation_matrix.py: docs/portability.md's validation matrix, made from tools/validation_runs.sh's reports and the vendor compile table.

  validation_matrix.py REPORT.json... --vendor docs/vendor-resources.csv [--write docs/portability.md | --check docs/portability.md]

Prints the section (no --write or --check), rewrites it between the markers in the page (--write), or exits 1
when the page's section is not what the reports give (--check). Rows are the implementations of ROWS, in that
order, whether or not a report holds them (a row without one reads "never run"), then any other implementation a
report holds; reports of one implementation are read together. Columns are the variants, one table per pixel type.
"""
import argparse
import csv
import json
import pathlib
import re
import sys

BEGIN, END = "<!-- validation-matrix:begin -->", "<!-- validation-matrix:end -->"
# The variant table's order (common/domain/variants.h); variants a report holds beyond these follow.
VARIANTS = ["global", "constant", "tiled", "texture", "separable", "fft", "fast", "async", "shuffle", "cluster", "tma",
            "lowrank", "tensor"]
PIXELS = [("f32", "f32 (float planes: 1 and 3 channels)"), ("u8", "u8 (8-bit, 1 channel)"),
          ("RGBA8", "RGBA8 (8-bit, 3 channels padded to 4)")]
# (row, the labels it holds: a pattern matched against the start of a report's label). A label no pattern takes
# (PoCL limited to 64 work-items per group, a new platform) becomes a row of its own after these.
ROWS = [("PoCL 3.1", r"PoCL 3\.\d+ \(CPU\)$"), ("Rusticl", "Rusticl"), ("Oclgrind", "Oclgrind"),
        ("PoCL 5.0", r"PoCL 5\."), ("NVIDIA OpenCL", "NVIDIA OpenCL"), ("CUDA", "CUDA")]
VENDORS = [("AMD ROCm (compile only)", ("gfx1030", "gfx90a")), ("Intel ocloc (compile only)", ("tgllp", "acm-g10", "pvc"))]
VENDOR_COMMAND = "bash tools/vendor_kernels.sh build/cl_configurations docs/vendor-resources.md"
KERNELS = pathlib.Path(__file__).resolve().parents[1] / "kernels_cl"
ABSENT = "OpenCL has no "  # the skip reason of a variant OpenCL lacks (tma, cluster)
# tools/validation_runs.sh's line in a report's `incomplete` for a convcompare call that wrote no report.
LOST = re.compile(r"no report: (\S+) (\S+) (\d+) channels \((.*?)\): exit \d+: (?:convcompare: error: )?(.*)")


def version(pattern, text):
    found = re.search(pattern, text)
    return found.group(1) if found else "?"


NUMBER = r"(\d+\.\d+)"


def label(device):
    """The implementation a device of a report is, as the matrix names it."""
    props = device["properties"]
    platform, name, kind = props.get("platform version", ""), device["name"], props.get("type", "")
    model = name.removeprefix("NVIDIA ")
    if device["backend"] == "cuda":
        return f"CUDA {version(NUMBER, props.get('runtime version', ''))} ({model})"
    if "PoCL" in platform:
        traits = [kind] + (["sub-groups"] if props.get("sub-group shuffle", "none") != "none" else [])
        # PoCL's CPU devices take 4096 work-items per group; fewer is POCL_MAX_WORK_GROUP_SIZE's small device.
        if int(props.get("max work-group size", "4096")) < 1024:
            traits.append(f"{props['max work-group size']} work-items per group")
        return f"PoCL {version('PoCL ' + NUMBER, platform)} ({', '.join(t for t in traits if t)})"
    if "rusticl" in name:
        return f"Rusticl {version(NUMBER, props.get('driver version', ''))} ({name.split()[0]}, {kind})"
    if "Oclgrind" in platform:
        return f"Oclgrind {version('Oclgrind ' + NUMBER, platform)} (simulator)"
    if "CUDA" in platform or name.startswith("NVIDIA"):
        return f"NVIDIA OpenCL {version('OpenCL ' + NUMBER, platform)} ({model})"
    return f"{platform} ({name})"


def pixel_key(run):
    return "f32" if run["pixel"] == "f32" else ("u8" if run["channels"] == 1 else "RGBA8")


def problem(run):
    """A run's problem in a few words: 257x255 box:r=1 mirror (x3 for three channels)."""
    channels = f" x{run['channels']}" if run["channels"] > 1 else ""
    return f"{run['width']}x{run['height']} {run['filter']} {run['border']}{channels}"


def short(reason):
    """A skip reason up to its first parenthesis, colon or semicolon: the full text is listed below the tables."""
    if reason.startswith("no report ("):  # a lost call: its options, then convcompare's message
        return "no report: " + short(reason.split("): ", 1)[1])
    return re.split(r" \(|: |; ", reason, maxsplit=1)[0].rstrip(".")


class Row:
    def __init__(self, name):
        self.name, self.label, self.runs, self.commands, self.lost = name, None, [], [], []
        self.vendor_targets, self.builds = None, []  # a compile-only row's targets and their builds


def read_rows(report_paths, vendor_csv):
    rows = [Row(name) for name, _ in ROWS]
    extra = {}
    for path in report_paths:
        report = json.loads(pathlib.Path(path).read_text())
        for device in report["devices"]:
            runs = [run for run in report["runs"] if run["device"] == device["id"]]
            if not runs:
                continue
            name = label(device)
            row = next((r for r, (_, pattern) in zip(rows, ROWS) if re.match(pattern, name)), None)
            if row is None:
                row = extra.setdefault(name, Row(name))
            row.label = row.label or name
            row.runs += runs
            command = " ".join(report["command"]) or "(the report names no command)"
            tool = report["tool"]
            note = f"`{command}` ({report['created'][:10]}, convcompare {tool['version']} {tool['git']})"
            for line in report.get("incomplete", "").splitlines():
                lost = LOST.fullmatch(line)
                if lost:
                    variant, pixel, channels, options, message = lost.groups()
                    key = "f32" if pixel == "f32" else ("u8" if channels == "1" else "RGBA8")
                    row.lost.append((variant, key, f"no report ({options}): {message}"))
                else:
                    note += f"; incomplete: {line}"
            if note not in row.commands:
                row.commands.append(note)
    vendor_rows = []
    builds = list(csv.reader(pathlib.Path(vendor_csv).read_text().splitlines()))[1:] if vendor_csv else []
    for name, targets in VENDORS:
        row = Row(name)
        row.label = name
        row.vendor_targets = targets
        row.builds = [(file, options, target) for file, options, target, *_ in builds if target in targets]
        row.commands.append(f"`{VENDOR_COMMAND}` (its table: docs/vendor-resources.csv)")
        vendor_rows.append(row)
    return rows + list(extra.values()) + vendor_rows


def vendor_pixel(options):
    return "RGBA8" if "CC_PIXEL_U8X4" in options else ("u8" if "CC_PIXEL_U8" in options else "f32")


def run_cell(runs, lost, reasons):
    """One cell of an implementation that ran: what every run of the variant and pixel type came to, and the
    convcompare calls for it that wrote no report (LOST: their messages)."""
    for message in lost:
        reasons.setdefault(short(message), set()).add(message)
    if lost:
        return f"**failed**: {'; '.join(sorted({short(message) for message in lost}))}" + (
            f" ({sum(run['status'] == 'ok' for run in runs)} other runs validated)" if runs else "")
    if not runs:
        return "—"
    ok = sum(run["status"] == "ok" for run in runs)
    failed = [run for run in runs if run["status"] == "failed"]
    skipped = [run for run in runs if run["status"] == "skipped"]
    for run in skipped:
        reasons.setdefault(short(run["reason"]), set()).add(run["reason"])
    for run in failed:
        reasons.setdefault(f"{run['variant']} {pixel_key(run)} failed at {problem(run)}", set()).add(
            f"{run['reason']} (max error {run['max_abs_error']:.3g}, tolerance {run['tolerance']:.3g})")
    if failed:
        problems = sorted({problem(run) for run in failed})
        return (f"**failed** {len(failed)} of {len(runs)}: {', '.join(problems[:2])}" +
                (f" and {len(problems) - 2} more" if len(problems) > 2 else ""))
    why = "; ".join(sorted({short(run["reason"]) for run in skipped}))
    if ok:
        return f"validated ({ok})" + (f", {len(skipped)} skipped: {why}" if skipped else "")
    if all(run["reason"].startswith(ABSENT) for run in skipped):
        return "absent in OpenCL"
    return f"skipped: {why}"


def vendor_cell(row, variant, pixel, runtime_cells):
    targets = [t for t in row.vendor_targets if any(
        f == f"{variant}.cl" and vendor_pixel(o) == pixel and t == target for f, o, target in row.builds)]
    if targets:
        return f"compiled only ({', '.join(targets)})"
    # A variant the runtimes skip for what the variant itself lacks (absent in OpenCL, fft's 8-bit kernels) has
    # nothing to compile; a skip for what a device lacks (sub-group shuffles) says nothing of the vendor's.
    seen = {cell for cell in runtime_cells if cell not in ("—", "never run")}
    only = next(iter(seen)) if len(seen) == 1 else ""
    if only == "absent in OpenCL" or only.startswith(f"skipped: {variant} has no "):
        return only
    if not seen and not (KERNELS / f"{variant}.cl").exists():
        return "—"  # not an OpenCL variant (npp), and no OpenCL report says otherwise
    return "not compiled"


LEGEND = ("A cell: **validated (N)**: every one of the N runs of that variant and pixel type that ran on that "
          "implementation validated against the CPU reference (status `ok`), followed by \"K skipped: why\" where "
          "some runs did not run for their problem (a filter that is not separable); **failed**: a run did not "
          "validate, or a convcompare call for it wrote no report (a crash, a kernel past `--kernel-timeout`); "
          "**skipped**: the variant ran nowhere in the report, for the reason given; **absent in OpenCL**: OpenCL "
          "has no such construct, the variant is CUDA's alone; **compiled only (targets)**: built and linked by the "
          "vendor's compiler, never run; **not compiled**: no build of that kernel file and pixel format in the "
          "vendor table; **never run**: no report for that implementation yet; **—**: its report has no such run "
          "(not a variant of its API, or one its report is older than: `tensor` on the CPU implementations and "
          "Oclgrind, whose reports predate it and which skip it for want of tensor cores).")


def section(report_paths, vendor_csv):
    rows = read_rows(report_paths, vendor_csv)
    runtime_rows = [row for row in rows if not row.vendor_targets]
    opencl_rows = [row for row in runtime_rows if any(run["backend"] == "opencl" for run in row.runs)]
    variants = list(VARIANTS)
    for row in runtime_rows:
        for run in row.runs:
            if run["variant"] not in variants:
                variants.append(run["variant"])
    reasons = {}
    lines = [LEGEND, ""]
    for pixel, title in PIXELS:
        lines += [f"**{title}**", "", "| implementation | " + " | ".join(variants) + " |",
                  "| --- |" + " --- |" * len(variants)]
        cells = {}
        for row in runtime_rows:
            for variant in variants:
                picked = [run for run in row.runs if run["variant"] == variant and pixel_key(run) == pixel]
                lost = [message for name, key, message in row.lost if (name, key) == (variant, pixel)]
                cells[(row.name, variant)] = run_cell(picked, lost, reasons) if row.runs or row.lost else "never run"
        for row in rows:
            if row.vendor_targets:
                row_cells = [vendor_cell(row, variant, pixel, [cells[(r.name, variant)] for r in opencl_rows])
                             for variant in variants]
            else:
                row_cells = [cells[(row.name, variant)] for variant in variants]
            lines.append(f"| {row.label or row.name} | " + " | ".join(row_cells) + " |")
        lines.append("")
    lines += ["Each row's command (for a run, the report's `command`; tools/validation_runs.sh lists its "
              "convcompare calls):", ""]
    for row in rows:
        for command in row.commands or ["no report yet"]:
            lines.append(f"- {row.label or row.name}: {command}")
    lines += ["", "The reasons in full (a cell shows each up to its first parenthesis, colon or semicolon):", ""]
    for brief in sorted(reasons):
        for full in sorted(reasons[brief]):
            lines.append(f"- {full}" if full == brief else f"- {brief}: {full}")
    return "\n".join(lines) + "\n"


def splice(page, text):
    head, begin, rest = page.partition(BEGIN)
    middle, end, tail = rest.partition(END)
    if not begin or not end:
        raise SystemExit(f"validation_matrix.py: the page has no {BEGIN} ... {END} markers")
    return head + BEGIN + "\n" + text + END + tail


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="*", help="reports written by tools/validation_runs.sh")
    parser.add_argument("--vendor", help="the vendor compile table, docs/vendor-resources.csv")
    target = parser.add_mutually_exclusive_group()
    target.add_argument("--write", metavar="PAGE", help="rewrite the section between the markers of PAGE")
    target.add_argument("--check", metavar="PAGE", help="exit 1 when PAGE's section differs from the reports'")
    options = parser.parse_args(argv)
    text = section(options.reports, options.vendor)
    if options.write:
        page = pathlib.Path(options.write)
        page.write_text(splice(page.read_text(), text))
    elif options.check:
        page = pathlib.Path(options.check).read_text()
        if splice(page, text) != page:
            print(f"validation_matrix.py: {options.check}'s validation matrix is not what the reports give; rerun "
                  "with --write", file=sys.stderr)
            return 1
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
