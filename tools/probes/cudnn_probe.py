#!/usr/bin/env python3
"""cudnn_probe.py: cuDNN's 2D convolution (through PyTorch, TF32 off and on) beside convcompare's tensor and fast, one filter each radius.

What a library user gets for this project's problem (one float channel, a random full-rank filter, zero
border) on the GPU host, in one call: cuDNN's kernel time by CUDA events (median of --repetitions after
warm-ups) and its largest error against a float64 convolution of the same image, with TF32 refused
(torch.backends.cudnn.allow_tf32 = False) and allowed; then convcompare's `tensor` and `fast` on the same
filter (written to a filter file, `file:PATH`) and the same image (written as a PFM file, `--image PATH`),
their kernel medians and max errors from --json (against convcompare's CPU reference), so that every
row's error is for the same problem. Prints one table row per (radius, what).
Usage: python3 tools/probes/cudnn_probe.py BUILD/convcompare [--size 8192] [--radii 5,7,9,13,16]
Needs torch with CUDA; says so and exits 2 without it.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("convcompare")
    parser.add_argument("--size", type=int, default=8192)
    parser.add_argument("--radii", default="5,7,9,13,16")
    parser.add_argument("--repetitions", type=int, default=20)
    parser.add_argument("--device", default="cuda:0", help="convcompare's device for tensor and fast")
    args = parser.parse_args()
    try:
        import torch
        import torch.nn.functional as F
    except ImportError as error:
        print(f"cudnn_probe: no torch ({error}): this probe needs PyTorch with CUDA", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("cudnn_probe: torch sees no CUDA device", file=sys.stderr)
        return 2
    torch.manual_seed(7)
    n = args.size
    image = torch.rand(1, 1, n, n, device="cuda", dtype=torch.float32)
    work = tempfile.TemporaryDirectory()
    image_path = os.path.join(work.name, "image.pfm")
    with open(image_path, "wb") as out:  # PFM: one float channel, little-endian (scale -1), rows bottom to top
        out.write(f"Pf\n{n} {n}\n-1.0\n".encode())
        out.write(image[0, 0].flip(0).cpu().numpy().astype("<f4").tobytes())
    print(f"torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, {torch.cuda.get_device_name()}, "
          f"{n}x{n} float, zero border, random full-rank filter (uniform -1..1)")
    print(f"{'r':>3} {'what':<22} {'kernel ms':>10} {'max abs err':>12} {'err / sum|w|':>13}")
    for radius in (int(r) for r in args.radii.split(",")):
        side = 2 * radius + 1
        weights = torch.rand(1, 1, side, side, device="cuda", dtype=torch.float64) * 2 - 1
        exact = F.conv2d(image.double(), weights, padding=radius)  # F.conv2d correlates, as convcompare does
        scale = weights.abs().sum().item()
        for tf32 in (False, True):
            torch.backends.cudnn.allow_tf32 = tf32
            torch.backends.cuda.matmul.allow_tf32 = tf32
            w32 = weights.float()
            for _ in range(3):
                F.conv2d(image, w32, padding=radius)
            times = []
            for _ in range(args.repetitions):
                start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                result = F.conv2d(image, w32, padding=radius)
                stop.record()
                torch.cuda.synchronize()
                times.append(start.elapsed_time(stop))
            error = (result.double() - exact).abs().max().item()
            times.sort()
            print(f"{radius:>3} {'cuDNN TF32 ' + ('allowed' if tf32 else 'refused'):<22} {times[len(times) // 2]:>10.4g} "
                  f"{error:>12.3g} {error / scale:>13.3g}")
        with tempfile.TemporaryDirectory() as filter_dir:
            path = os.path.join(filter_dir, "filter.txt")
            with open(path, "w") as out:
                out.write(f"{side} {side}\n")
                for row in weights[0, 0].tolist():
                    out.write(" ".join(f"{value:.9g}" for value in row) + "\n")
            report = os.path.join(filter_dir, "report.json")
            run = subprocess.run([args.convcompare, "--backend", args.device.split(":")[0], "--device", args.device,
                                  "--variant", "tensor,fast", "--image", image_path, "--filter", f"file:{path}",
                                  "--border", "zero", "--repetitions", str(args.repetitions), "--quiet", "--json", report],
                                 capture_output=True, text=True)
            if run.returncode not in (0, 1) or not os.path.exists(report):
                print(f"{radius:>3} convcompare exit {run.returncode}: {run.stderr.strip()[-300:]}")
                continue
            for record in json.load(open(report))["runs"]:
                if record["status"] != "ok":
                    print(f"{radius:>3} {record['variant']:<22} {record['status']}: {record.get('reason', '')[:80]}")
                    continue
                print(f"{radius:>3} {'convcompare ' + record['variant']:<22} {record['kernel_ms']['median']:>10.4g} "
                      f"{record['max_abs_error']:>12.3g} {record['max_abs_error'] / scale:>13.3g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
