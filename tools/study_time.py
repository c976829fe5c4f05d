"""Estimate each lesson's study time from what it contains, core path and optional sections apart.

    python -m tools.study_time            # the table: core and optional minutes per lesson
    python -m tools.study_time --check    # exit 1 if a lesson's frame, the README or the instructor guide
                                          # states other minutes than the estimate
    python -m tools.study_time --write    # write the estimates into the README's and the guide's lesson tables
                                          # (each lesson's frame states them in its own words: edit it by hand)
    python -m tools.study_time --calibrate  # the rates against the lessons as they were timed

A lesson is read as sections (its ``## `` headings). A section whose heading contains "Optional" is
optional, and so is everything up to the next ``## `` heading; the rest (Summary, Exercises, Next
included) is the core path. Each part costs

    prose words / WORDS_PER_MINUTE + code lines × CODE + printed lines × OUTPUT
    + (figures + panels) × FIGURE + exercises × EXERCISE + predict questions × QUESTION

minutes. The rates are round numbers a careful learner works at, fitted to two students' clocks: the first
timed seven whole lessons of 2026-11-30 (``CLOCKS["A"]``: 50, 85, 65, 75, 95, 85 and 105 minutes), the second
the core paths of the eight lessons of 2026-12-02 (``CLOCKS["B"]``: 45, 80, 60, 70, 75, 70, 70 and 90 minutes).
Each clock's ``counts`` hold what those lessons (its commit) contained, counted by this module;
tests/course/test_study_time.py recounts them from git and checks every estimate within 20 % of both clocks.
The two students disagree by more than any rates can bridge (the second took 45 minutes for lesson 01 and 80 for
lesson 02, lessons of much the same size), so 20 % is the honest width of these estimates, not 15 %.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, fields
from pathlib import Path

from tools.course import notebooks

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = REPO / "notebooks"

WORDS_PER_MINUTE = 180  # technical prose read with care, formulas included
CODE = 0.14  # minutes per non-blank code line: read it, run it, look at what it prints
OUTPUT = 0.05  # minutes per printed line
FIGURE = 0.5  # minutes per figure or panel: look at it, find what its caption says
EXERCISE = 5  # minutes per exercise, hints included
QUESTION = 1  # minutes per predict-first question
TOLERANCE = 0.20  # the calibration must reproduce every timing of both clocks within 20 %
PANEL = "application/vnd.jupyter.widget-view+json"
OPTIONAL = re.compile(r"\boptional\b", re.IGNORECASE)


@dataclass
class Counts:
    words: int = 0
    code_lines: int = 0
    output_lines: int = 0
    figures: int = 0
    exercises: int = 0
    questions: int = 0

    def __add__(self, other: Counts) -> Counts:
        return Counts(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    def minutes(self) -> float:
        return (self.words / WORDS_PER_MINUTE + self.code_lines * CODE + self.output_lines * OUTPUT
                + self.figures * FIGURE + self.exercises * EXERCISE + self.questions * QUESTION)


def _source(cell) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _cell_counts(cell) -> Counts:
    text = _source(cell)
    if cell["cell_type"] == "markdown":
        return Counts(words=len(text.split()))
    if cell["cell_type"] != "code":
        return Counts()
    counts = Counts(code_lines=sum(1 for line in text.splitlines() if line.strip()),
                    exercises=int("exercise" in cell.get("metadata", {}).get("tags", [])),
                    questions=len(re.findall(r"\bpredict\.\w+\.ask\(", text)))
    for output in cell.get("outputs", []):
        data = output.get("data", {})
        if output.get("output_type") == "stream":
            counts.output_lines += len(_source({"source": output.get("text", "")}).splitlines())
        elif "image/png" in data or PANEL in data:
            counts.figures += 1
    return counts


def count(notebook: dict) -> tuple[Counts, Counts]:
    """(core, optional) counts of a notebook given as its JSON."""
    core, optional, in_optional = Counts(), Counts(), False
    for cell in notebook["cells"]:
        if cell["cell_type"] == "markdown":
            for line in _source(cell).splitlines():
                if line.startswith("## "):
                    in_optional = bool(OPTIONAL.search(line))
        counts = _cell_counts(cell)
        if in_optional:
            optional += counts
        else:
            core += counts
    return core, optional


def rounded(minutes: float) -> int:
    """Minutes as a learner reads them: to the nearest 5."""
    return int(5 * round(minutes / 5))


def estimate(path: Path) -> dict:
    core, optional = count(json.loads(path.read_text(encoding="utf-8")))
    return {"lesson": path.stem, "core": rounded(core.minutes()), "optional": rounded(optional.minutes()),
            "core_counts": core, "optional_counts": optional}


def lessons() -> list[Path]:
    return notebooks()


# -- where the figures are stated ----------------------------------------------------------------------------
FRAME = re.compile(r"\*\*Study time:\*\*[^\n]*?core[^\n]*?(\d+)\s*min(?:(?:[^\n]*?optional[^\n]*?(\d+)\s*min))?",
                   re.IGNORECASE)


def stated_in_frame(path: Path) -> tuple[int, int | None] | None:
    first = next(_source(c) for c in json.loads(path.read_text(encoding="utf-8"))["cells"]
                 if c["cell_type"] == "markdown")
    found = FRAME.search(first)
    return (int(found.group(1)), int(found.group(2)) if found.group(2) else None) if found else None


TABLES = {"README.md": "min", "README.zh-CN.md": "分钟", "docs/instructor.md": "min"}  # file -> unit of minutes


def _pair(unit: str) -> str:
    return rf"\|\s*(\d+)\s*{unit}\s*\|\s*(\d+)\s*{unit}\s*\|"


def stated_in_table(text: str, stem: str, unit: str = "min") -> tuple[int, int] | None:
    """The minutes a markdown table row that links the lesson states: '| ... | 60 min | 20 min |'."""
    for line in text.splitlines():
        if line.startswith("|") and f"{stem}.ipynb" in line:
            found = re.search(_pair(unit), line)
            return (int(found.group(1)), int(found.group(2))) if found else None
    return None


def write_tables() -> list[str]:
    """Set the time columns of each lesson's row in the TABLES files to '| core min | optional min |' (a row
    with one '| ~N min |' column gets two); return the files changed."""
    changed = []
    estimates = {path.stem: estimate(path) for path in lessons()}
    for name, unit in TABLES.items():
        target = REPO / name
        lines = target.read_text(encoding="utf-8").splitlines(keepends=True)
        for number, line in enumerate(lines):
            stem = next((s for s in estimates if f"{s}.ipynb" in line), None)
            if line.startswith("|") and stem:
                row = estimates[stem]
                cells = f"| {row['core']} {unit} | {row['optional']} {unit} |"
                if re.search(_pair(unit), line):
                    new = re.sub(_pair(unit), cells, line, count=1)
                else:
                    new = re.sub(rf"\|\s*(?:~|约\s*)?\d+\s*{unit}\s*\|", cells, line, count=1)
                lines[number] = new
        text = "".join(lines)
        if text != target.read_text(encoding="utf-8"):
            target.write_text(text, encoding="utf-8")
            changed.append(target.name)
    return changed


def mismatches() -> list[str]:
    found = []
    tables = {name: (REPO / name).read_text(encoding="utf-8") for name in TABLES}
    for path in lessons():
        row = estimate(path)
        want = (row["core"], row["optional"])
        frame = stated_in_frame(path)
        if frame is None or frame[0] != want[0] or (want[1] and frame[1] != want[1]):
            found.append(f"{path.name}: the frame states {frame}, the estimate is core {want[0]} min, "
                         f"optional {want[1]} min")
        for name, text in tables.items():
            stated = stated_in_table(text, path.stem, TABLES[name])
            if stated != want:
                found.append(f"{name}: the row of {path.stem} states {stated}, the estimate is {want}")
    return found


# -- calibration ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Clock:
    """One student's timings: minutes per lesson, at a commit, of whole lessons or of their core paths."""
    commit: str
    part: str                        # "whole" (core + optional) or "core"
    minutes: dict[str, int]
    counts: dict[str, Counts]        # what the timed lessons contained (count() at that commit)


CLOCKS = {
    "A": Clock("ac86906", "whole", {"01": 50, "02": 85, "03": 65, "04": 75, "05": 95, "06": 85, "07": 105}, {
        "01": Counts(1719, 134, 43, 6, 3, 4),
        "02": Counts(3227, 242, 108, 7, 3, 4),
        "03": Counts(2345, 172, 56, 6, 3, 3),
        "04": Counts(3225, 227, 109, 8, 3, 4),
        "05": Counts(3872, 310, 73, 11, 3, 4),
        "06": Counts(4654, 284, 109, 10, 3, 4),
        "07": Counts(4063, 446, 95, 5, 3, 4),
    }),
    "B": Clock("4ea74fc", "core", {"01": 45, "02": 80, "03": 60, "04": 70, "05": 75, "06": 70, "07": 70, "08": 90}, {
        "01": Counts(1810, 136, 44, 7, 3, 4),
        "02": Counts(2287, 179, 80, 7, 3, 4),
        "03": Counts(2419, 175, 46, 6, 3, 3),
        "04": Counts(2435, 168, 65, 6, 3, 4),
        "05": Counts(2354, 182, 43, 6, 3, 4),
        "06": Counts(2540, 172, 52, 7, 3, 3),
        "07": Counts(2316, 190, 37, 6, 3, 4),
        "08": Counts(2964, 265, 56, 8, 3, 4),
    }),
}


def calibration_errors() -> dict[tuple[str, str], float]:
    """Relative error of the rates on each timed lesson of each clock: (estimate - timed) / timed."""
    return {(name, lesson): (clock.counts[lesson].minutes() - minutes) / minutes
            for name, clock in CLOCKS.items() for lesson, minutes in clock.minutes.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="fail if a stated study time differs from the estimate")
    parser.add_argument("--calibrate", action="store_true", help="the rates against the timed lessons")
    parser.add_argument("--write", action="store_true", help="write the estimates into the README and guide tables")
    args = parser.parse_args(argv)
    if args.calibrate:
        for (name, lesson), error in calibration_errors().items():
            clock = CLOCKS[name]
            print(f"clock {name} ({clock.part}, {clock.commit}) {lesson}: timed {clock.minutes[lesson]:>3} min, "
                  f"estimated {clock.counts[lesson].minutes():5.1f} min ({error:+.1%})")
        return 0 if all(abs(e) <= TOLERANCE for e in calibration_errors().values()) else 1
    if args.write:
        print("written: " + (", ".join(write_tables()) or "nothing to change"))
        return 0
    if args.check:
        found = mismatches()
        print("\n".join(found) or "every stated study time is the estimate")
        return 1 if found else 0
    print(f"{'lesson':<34} {'core':>5} {'optional':>9}   core: words code output figures exercises questions")
    for path in lessons():
        row, c = estimate(path), estimate(path)["core_counts"]
        print(f"{row['lesson']:<34} {row['core']:>4}m {row['optional']:>8}m   "
              f"{c.words} {c.code_lines} {c.output_lines} {c.figures} {c.exercises} {c.questions}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
