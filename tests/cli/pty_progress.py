#!/usr/bin/env python3
"""pty_progress.py: convcompare under a pseudo-terminal 80 columns wide: the progress line never wraps and is cleared before the report."""
import fcntl
import os
import re
import struct
import subprocess
import sys
import termios

COLUMNS = 80


def run_under_pty(command):
    master, slave = os.openpty()
    # The size is set before the child starts, so its first TIOCGWINSZ sees it.
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, COLUMNS, 0, 0))
    env = dict(os.environ, COLUMNS="200")  # the terminal's own size must win over $COLUMNS
    child = subprocess.Popen(command, stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return child.wait(), b"".join(chunks).decode("utf-8", "replace")


def wider_than_terminal(text):
    """Lines of the report over COLUMNS: the terminal would wrap them."""
    text = text.replace("\r\n", "\n")
    return [line for line in text.split("\n") if len(line.split("\r\x1b[K")[-1]) > COLUMNS]


def check_fits(exe):
    """At 80 columns the device block, the transfers heading and the --compare legend (81, 94 and 96 columns
    unfitted) fit. A CPU and an OpenCL run (PoCL in CI; without OpenCL the CPU's alone), then --compare."""
    import tempfile
    failures = []
    with tempfile.TemporaryDirectory() as directory:
        baseline = os.path.join(directory, "base.json")
        common = ["--backend", "cpu,opencl", "--variant", "fast", "--size", "48x32", "--filter", "box:r=1",
                  "--repetitions", "5", "--warmup", "1"]
        for command in ([exe] + common + ["--json", baseline], [exe] + common + ["--compare", baseline]):
            status, text = run_under_pty(command)
            if status not in (0, 3, 4):  # --compare's verdicts on a noisy machine are not the point here
                failures.append(f"{' '.join(command[1:])}: exit status {status}: {text[-300:]!r}")
            for line in wider_than_terminal(text):
                failures.append(f"{len(line)} columns on an {COLUMNS}-column terminal: {line!r}")
            if "--compare" in command and "Mann-Whitney" not in text:
                failures.append(f"no --compare legend on the terminal: {text[-300:]!r}")
    return failures


def main():
    exe = sys.argv[1]
    # Long enough (several seconds of CPU convolution) for the progress line to appear after its quiet
    # start; nothing here is timed.
    status, text = run_under_pty([exe, "--backend", "cpu", "--variant", "naive", "--size", "1024x1024",
                                  "--sweep", "radius=1..12", "--filter", "box:r=1", "--repetitions", "1",
                                  "--warmup", "0", "--no-peaks"])
    text = text.replace("\r\n", "\n")  # the terminal's newline translation
    failures = []
    if status != 0:
        failures.append(f"exit status {status}")
    updates = re.findall(r"\r\x1b\[K([^\r\n]*)", text)
    shown = [u for u in updates if u]
    if not shown:
        failures.append("no progress line appeared (the job ran under the 3 s quiet start?)")
    for update in shown:
        if len(update) > COLUMNS - 1:
            failures.append(f"a progress line of {len(update)} columns on an {COLUMNS}-column terminal: {update!r}")
    report = text.find("devices (")
    if report < 0:
        report = text.find("sweep summary")
    if report < 0:
        failures.append("no report on the terminal")
    elif shown and not text[:report].endswith("\r\x1b[K"):
        failures.append(f"the report does not start on a cleared line: {text[max(0, report - 60):report + 20]!r}")
    for line in text[report:].split("\n") if report >= 0 else []:
        if len(line) > 100:
            failures.append(f"a report line of {len(line)} columns: {line!r}")
    failures += check_fits(exe)
    for failure in failures:
        print("FAIL:", failure)
    print(f"{len(shown)} progress updates, exit status {status}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
