#!/usr/bin/env python3
"""test_docs_lesson.py: docs/memory-spaces.md, the lesson: its listings are the kernel files' lines now, every figure
it quotes is still the evidence page's cell, and it stays short (ctest `docs_lesson`).

  python3 tests/docs/test_docs_lesson.py            the tests
  python3 tests/docs/test_docs_lesson.py --count    the prose's words and sentences (tables, code, listings,
                                                    pictures and comments left out)

A figure is tied to its cell by an HTML comment right after it, which the rendered page does not show:
`0.168<!-- cell: BLOCK | TABLE | ROW | COLUMN -->`. BLOCK names a `<!-- generated: BLOCK -->` block of
docs/memory-spaces-evidence.md; TABLE is `-` for the block's first table, or text of the line that introduces the
table (its caption); ROW is the row's first cells, joined by ` / `; COLUMN is the header cell. The last number
before the comment must be one of the numbers in that cell.
"""
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))
import doc_listings  # noqa: E402

LESSON = REPO / "docs" / "memory-spaces.md"
EVIDENCE = REPO / "docs" / "memory-spaces-evidence.md"
CELL = re.compile(r"<!-- cell: ([^|]+?) \| ([^|]+?) \| ([^|]+?) \| (.+?) -->")
NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def generated_block(text, name):
    return text.split(f"<!-- generated: {name} -->\n", 1)[1].split("<!-- end generated -->", 1)[0]


def tables(block):
    """[(caption, header cells, rows of cells)] of a generated block; the caption is the last non-table line
    before the table."""
    out, caption, lines = [], "", block.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("|") and i + 1 < len(lines) and set(lines[i + 1].replace("|", "").strip()) <= set("-: "):
            header = [c.strip() for c in line.strip().strip("|").split("|")]
            rows, i = [], i + 2
            while i < len(lines) and lines[i].startswith("|"):
                rows.append([c.strip() for c in lines[i].strip().strip("|").split("|")])
                i += 1
            out.append((caption, header, rows))
            continue
        if line.strip():
            caption = line
        i += 1
    return out


def cell(evidence, block, table, row, column):
    """The text of one cell of the evidence page; AssertionError (with what was asked) when there is none."""
    found = tables(generated_block(evidence, block))
    candidates = found[:1] if table == "-" else [t for t in found if table in t[0]]
    assert candidates, f"no table of block {block!r} introduced by {table!r}"
    caption, header, rows = candidates[0]
    assert column in header, f"no column {column!r} in {block!r} / {table!r}: {header}"
    keys = row.split(" / ")
    matches = [r for r in rows if r[:len(keys)] == keys]
    assert len(matches) == 1, f"{len(matches)} rows {row!r} in {block!r} / {table!r}"
    return matches[0][header.index(column)]


def numbers(text):
    return {float(n.replace(",", "")) for n in NUMBER.findall(text)}


def quoted_figures(lesson):
    """(figure as written, block, table, row, column, line number) for every tied figure of the lesson."""
    out = []
    for match in CELL.finditer(lesson):
        before = lesson[:match.start()]
        figure = NUMBER.findall(before[-40:])
        out.append((figure[-1] if figure else "", *[g.strip() for g in match.groups()], before.count("\n") + 1))
    return out


def prose(text):
    """The lesson's prose: no tables, code blocks, listings, pictures, headings or HTML comments."""
    text = re.sub(r"<!-- listing: .*?<!-- end listing -->", "", text, flags=re.S)
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    kept = [line for line in text.splitlines()
            if line.strip() and not line.startswith(("|", "#", "![", "<"))]
    return "\n".join(kept)


def sentences(text):
    """Sentences of the prose: split after . ! ? or : at a line's end, followed by a space or the end, not inside
    a number (0.5) or an abbreviation this page uses (e.g., i.e.)."""
    flat = " ".join(text.split())
    flat = re.sub(r"\b(e\.g|i\.e)\.", r"\1", flat)
    return [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z`(\"*0-9])", flat) if s.strip()]


class Lesson(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.lesson = LESSON.read_text()
        cls.evidence = EVIDENCE.read_text()

    def test_listings_are_the_files(self):
        """Every listing block is what tools/doc_listings.py cuts from the files now, and every listing is there."""
        self.assertEqual(doc_listings.stale(self.lesson), [])
        names = [name for name, _ in doc_listings.blocks(self.lesson)]
        self.assertEqual(sorted(names), sorted(doc_listings.LISTINGS))

    def test_a_changed_kernel_line_fails(self):
        """A kernel line a listing shows, changed in a copy of the tree, makes the listing stale; an anchor removed
        makes the script stop, naming it."""
        with tempfile.TemporaryDirectory() as tmp:
            copy = pathlib.Path(tmp)
            for path in {p for side in doc_listings.LISTINGS["tiled"] for p, _ in side}:
                (copy / path).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(REPO / path, copy / path)
            kernel = copy / "kernels_cl/tiled.cl"
            kernel.write_text(kernel.read_text().replace(": input[sy * args.pitch + sx];",
                                                         ": input[sy * args.pitch + sx + 1];"))
            original, doc_listings.REPO = doc_listings.REPO, copy
            try:
                tiled = "<!-- listing: tiled -->" + self.lesson.split("<!-- listing: tiled -->", 1)[1]
                self.assertEqual(doc_listings.stale(tiled.split("<!-- end listing -->")[0] + "<!-- end listing -->"),
                                 ["tiled"])
                kernel.write_text(kernel.read_text().replace("__local cc_pixel* tile)", "__local cc_pixel* t)"))
                with self.assertRaisesRegex(doc_listings.DriftError, "kernels_cl/tiled.cl: the anchor"):
                    doc_listings.render("tiled")
            finally:
                doc_listings.REPO = original

    def test_quoted_figures_are_the_evidence_cells(self):
        """Every figure tied to a cell is one of that cell's numbers (a rerun that moves a cell fails here)."""
        figures = quoted_figures(self.lesson)
        self.assertGreaterEqual(len(figures), 25)
        for figure, block, table, row, column, line in figures:
            with self.subTest(line=line, cell=(block, table, row, column)):
                self.assertTrue(figure, "no figure before the comment")
                value = cell(self.evidence, block, table, row, column)
                self.assertIn(float(figure.replace(",", "")), numbers(value), f"the cell holds {value!r}")

    def test_a_changed_cell_fails(self):
        """The check reads the evidence page: a cell changed there no longer matches the lesson's figure."""
        changed = self.evidence.replace("| global | 165 | 16.8 |", "| global | 166 | 16.8 |", 1)
        self.assertNotEqual(changed, self.evidence)
        figure = next(f for f in quoted_figures(self.lesson) if f[1:5] == ("ncu", "r = 3", "global", "time µs"))
        self.assertNotIn(float(figure[0]), numbers(cell(changed, "ncu", "r = 3", "global", "time µs")))

    def test_every_space_has_its_section_parts(self):
        """One section per space, simplest first, each with a listing, a measured figure and a pitfall; the map's
        basic rows; the closing sections."""
        headings = re.findall(r"^## (.+)$", self.lesson, re.M)
        self.assertEqual(headings, [
            "The map", "How a GPU hides memory latency", "Global memory", "Constant memory",
            "Shared memory and `__local`", "Texture and image memory", "Registers and shuffles",
            "Asynchronous copies and TMA", "Clusters and distributed shared memory",
            "Host memory: pinned, mapped, managed", "Several GPUs", "Tensor cores: fragments in registers",
            "Why no memory path beats `fast`", "Takeaways", "Where the numbers come from"])
        for heading in headings[2:12]:
            section = self.lesson.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
            with self.subTest(section=heading):
                self.assertIn("**The idea.**", section)
                self.assertIn("<!-- listing: ", section)
                self.assertIn("**Measured", section)
                self.assertIn("**The pitfall.**", section)
                self.assertRegex(section, r"!\[[^]]*\]\(img/|```")  # a picture, or a drawing in text
        the_map = self.lesson.split("## The map\n", 1)[1].split("\n## ", 1)[0]
        for row in ("streaming multiprocessor (SM)", "compute unit", "`__global__ void", "`__kernel void",
                    "stream (`cudaStream_t`)", "command queue", "`cudaMalloc`", "`clCreateBuffer`",
                    "`cudaMemcpy(Async)`", "`clEnqueueReadBuffer` / `clEnqueueWriteBuffer`", "core in OpenCL 2.1"):
            self.assertIn(row, the_map)
        takeaways = self.lesson.split("## Takeaways\n", 1)[1].split("\n## ", 1)[0]
        self.assertEqual(len(re.findall(r"^\| (?!---|space \|)", takeaways, re.M)), 14)
        self.assertIn("](memory-spaces-evidence.md)", self.lesson)

    def test_the_severe_findings_stay_fixed(self):
        """OpenCL shuffle is not called validated; the cluster's failed expectation is said; the why-fast section
        names the inner loop."""
        flat = " ".join(self.lesson.split())
        self.assertIn("The OpenCL `shuffle` is **not validated** on any GPU", flat)
        self.assertNotIn("validated on PoCL 5", flat)
        self.assertIn("docs/portability.md's validation matrix", flat)
        self.assertIn("**Measured: the expectation failed.**", flat)
        self.assertIn("They change how the tile arrives, not the inner loop.", flat)
        self.assertIn("a path can beat `fast` only by changing the inner loop, not the load", flat)

    def test_no_work_history(self):
        """No issue numbers, sessions or dated notes in either page's prose or headings (generated captions keep
        their run's date)."""
        for path in (LESSON, EVIDENCE):
            text = re.sub(r"<!-- generated: .*?<!-- end generated -->", "", path.read_text(), flags=re.S)
            with self.subTest(page=path.name):
                self.assertNotRegex(text, r"(?i)issue #?\d|#\d\d\b|\bsession \d|20\d\d-\d\d-\d\d")

    def test_short_enough_to_read_in_one_sitting(self):
        """At most 6,000 words of prose, sentences under 25 words on average."""
        text = prose(self.lesson)
        words = len(text.split())
        count = len(sentences(text))
        self.assertLessEqual(words, 6000)
        self.assertLess(words / count, 25)

    def test_the_listings_script_checks(self):
        result = subprocess.run([sys.executable, str(REPO / "tools/doc_listings.py"), "--check"],
                                capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stderr)


if __name__ == "__main__":
    if "--count" in sys.argv:
        body = prose(LESSON.read_text())
        n_words, n_sentences = len(body.split()), len(sentences(body))
        print(f"prose words: {n_words}; sentences: {n_sentences}; words per sentence: {n_words / n_sentences:.1f}")
        sys.exit(0)
    unittest.main()
