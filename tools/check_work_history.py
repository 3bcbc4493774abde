"""check_work_history.py: fails, naming file:line, where code, a script or a doc carries work history (an issue number, a session, a dated note).

History belongs to git; a comment says why in the present tense and may cite docs/*.md. Usage:
  python3 tools/check_work_history.py REPO_ROOT [--skip PATH_PREFIX ...]
Scans the repository's text files (git ls-files, untracked but not ignored ones too; a walk without
git), less the prefixes given with --skip. Exit 0 when nothing is found, 1 with one line per finding, 2 on bad usage.
Before scanning, it checks its own rules on samples, so a rule that stops matching fails too.
"""
import os
import re
import subprocess
import sys

SUFFIXES = (".cpp", ".h", ".hpp", ".cu", ".cuh", ".cl", ".py", ".sh", ".md", ".cmake", ".txt", ".in")
NAMES = ("run",)  # .ci/run
SELF = "tools/check_work_history.py"  # its samples of history are its test

# What counts as history, each with the words a finding prints.
RULES = [
    # "#28", "(#28: 83)", "issue #41", "issues 25 and 26": not "#include", "##", "#1f77b4" or "&#38;".
    ("issue reference", re.compile(r"(?<![\w/&#])#\d{1,4}\b(?!;)|\bissues? #?\d+\b", re.I)),
    ("session note", re.compile(r"\bsessions? \d+|\b(?:last|this|previous|earlier|next) session\b", re.I)),
    # A calendar date, unless it is a timestamp value (2026-11-24T05:41:30Z, an example or test datum).
    ("dated note", re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b(?!T\d)")),
    ("history note", re.compile(r"\b(?:before|after|since|until) the fix\b|\b(?:it|we|they|which) used to\b"
                               r"|\bwas \d+ (?:wide|columns)\b", re.I)),
]

# Legitimate uses on a line that a rule matches: each removes its match before the rules run.
ALLOWED = [
    re.compile(r"[\w.-]+/[\w.-]+#\d+"),           # another project's issue (KhronosGroup/OpenCL-Docs#472)
    re.compile(r"^\s*#\s*(?:include|define|undef|pragma|if|ifdef|ifndef|elif|else|endif|error)\b.*"),
]
# A date beside the commit it measured is a measurement's provenance, not a note: a caption's "tree
# `fff9e5b`", a validation run's "convcompare 0.1.0 1ca7be900040".
PROVENANCE = re.compile(r"\btree `?[0-9a-f]{7,40}\b|\bconvcompare \d+\.\d+\.\d+ [0-9a-f]{7,40}")
# Blocks a script writes from a run's output keep that run's date (docs/memory-spaces-evidence.md).
GENERATED = re.compile(r"<!-- generated: .*?<!-- end generated -->", re.S)


def findings_in_line(line):
    """The names of the rules `line` breaks, after its legitimate uses are taken out."""
    for allowed in ALLOWED:
        line = allowed.sub("", line)
    found = []
    for name, rule in RULES:
        if rule.search(line) and not (name == "dated note" and PROVENANCE.search(line)):
            found.append(name)
    return found


def findings_in_text(text, is_markdown):
    """(line number, rule name, line) for each finding; a markdown page's generated blocks are left out."""
    if is_markdown:  # blank the generated blocks, keeping their line count
        text = GENERATED.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        for name in findings_in_line(line):
            out.append((number, name, line.strip()))
    return out


SELF_TEST_BAD = [
    "// the table was 83 columns (issue #28).",
    "# cairo is optional (#17 item 6)",
    'TEST_CASE("compare gate (#28: 83)") {',
    "Measured in session 29 on the two-H100 host.",
    "as the last session showed",
    "// 8 min 50 s on 2026-11-24",
    "the box convolve_tma asked for before the fix;",
    "(issues 25 and 26)",
    "the kernel used to time every repetition; it used to",
    "the legend was 96 wide",
]
SELF_TEST_GOOD = [
    "#include \"common/domain/problem.h\"",
    "#pragma once",
    "## Adding a variant",
    "colour #1f77b4 and &#38; escaped",
    "KhronosGroup/OpenCL-Docs#472 asks which is required",
    "std::string created;  // UTC, ISO 8601: 2026-11-24T05:41:30Z",
    "*2026-11-26T16:18:27Z, tree `fff9e5b`, NVIDIA H100 80GB HBM3*",
    "(2026-11-29, convcompare 0.1.0 1ca7be900040-dirty)",
    "${part#f32-} and $# and issue slots 85%",
    "the value used to compute the pitch",
]


def self_test():
    """The rules against samples: every bad line found, no good line. Returns the failures."""
    failures = [f"self-test: not found: {line}" for line in SELF_TEST_BAD if not findings_in_line(line)]
    failures += [f"self-test: found in a legitimate line: {line}" for line in SELF_TEST_GOOD if findings_in_line(line)]
    generated = "a\n<!-- generated: x -->\n2026-11-24 run\n<!-- end generated -->\nsession 4\n"
    if [n for n, _, _ in findings_in_text(generated, True)] != [5]:
        failures.append("self-test: a generated block's date was reported, or the line after it was not")
    return failures


def tracked_files(root):
    try:
        listed = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard"], capture_output=True, text=True, check=True).stdout
        return listed.split("\n")
    except (OSError, subprocess.CalledProcessError):
        paths = []
        for folder, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if d != ".git" and not d.startswith("build")]
            paths += [os.path.relpath(os.path.join(folder, f), root) for f in files]
        return paths


def main(argv):
    if len(argv) < 2 or argv[1].startswith("-"):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    root, skips, args = argv[1], [], argv[2:]
    while args:
        if args[0] != "--skip" or len(args) < 2:
            print(f"check_work_history.py: unknown argument: {args[0]}", file=sys.stderr)
            return 2
        skips.append(args[1])
        args = args[2:]
    failures = self_test()
    for path in sorted(p for p in tracked_files(root) if p):
        if path == SELF or any(path == s or path.startswith(s.rstrip("/") + "/") for s in skips):
            continue
        if not (path.endswith(SUFFIXES) or os.path.basename(path) in NAMES):
            continue
        try:
            with open(os.path.join(root, path), encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError):
            continue
        for number, name, line in findings_in_text(text, path.endswith(".md")):
            failures.append(f"{path}:{number}: {name}: {line[:160]}")
    for failure in failures:
        print(failure)
    if failures:
        print(f"{len(failures)} finding(s): work history belongs in git; say why in the present tense, "
              "citing docs/*.md where useful", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
