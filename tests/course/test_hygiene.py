"""Notebook hygiene: what nbval does not check but a learner or a reviewer trips over."""

import json
import re
from pathlib import Path

import pytest

from tools.course import notebooks

NOTEBOOKS = notebooks()
MAX_BYTES = 3_000_000
MACHINE_PATH = re.compile(r"(/(root|tmp|work|home|Users|private|var/folders)/|[A-Z]:\\\\Users)")


def code_cells(nb):
    return [cell for cell in nb["cells"] if cell["cell_type"] == "code"]


@pytest.fixture(params=NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def notebook(request):
    path = request.param
    return path, json.loads(path.read_text(encoding="utf-8"))


def test_there_are_lessons():
    assert NOTEBOOKS, "no notebooks found in notebooks/"
    assert NOTEBOOKS[0].name == "01_embedding_lookup.ipynb"


def test_committed_with_outputs(notebook):
    path, nb = notebook
    cells = code_cells(nb)
    assert cells, f"{path.name} has no code cells"
    assert any(cell["outputs"] for cell in cells), f"{path.name} was committed without outputs (run `make notebooks`)"


def test_execution_counts_are_1_to_n(notebook):
    path, nb = notebook
    counts = [cell["execution_count"] for cell in code_cells(nb)]
    assert counts == list(range(1, len(counts) + 1)), (
        f"{path.name}: execution counts {counts} are not 1..n — Restart & Run All (or `make notebooks`)"
    )


def test_no_errors_or_stderr(notebook):
    path, nb = notebook
    for index, cell in enumerate(code_cells(nb), start=1):
        for output in cell["outputs"]:
            assert output["output_type"] != "error", f"{path.name} cell [{index}] stores an error: {output.get('ename')}"
            assert not (output["output_type"] == "stream" and output["name"] == "stderr"), (
                f"{path.name} cell [{index}] stores stderr output: {''.join(output['text'])[:300]}"
            )


def test_no_machine_paths_in_outputs(notebook):
    path, nb = notebook
    for index, cell in enumerate(code_cells(nb), start=1):
        for output in cell["outputs"]:
            text = json.dumps({k: v for k, v in output.items() if k != "data"} | {
                "data": {k: v for k, v in output.get("data", {}).items() if not k.startswith("image/")}})
            match = MACHINE_PATH.search(text)
            assert not match, f"{path.name} cell [{index}] output shows a machine path: {match.group(0)!r}"


def test_python3_kernelspec(notebook):
    path, nb = notebook
    assert nb["metadata"].get("kernelspec", {}).get("name") == "python3", f"{path.name}: kernelspec is not python3"


def test_size(notebook):
    path, _ = notebook
    assert path.stat().st_size <= MAX_BYTES, f"{path.name} is {path.stat().st_size:,} bytes (limit {MAX_BYTES:,})"


COLAB_SETUP_MARKER = "# Google Colab only:"


def lesson_code_cells(nb):
    """The lesson's own code cells: all but the Colab set-up cell that delivery/colab.py stamps first."""
    return [cell for cell in code_cells(nb) if not "".join(cell["source"]).startswith(COLAB_SETUP_MARKER)]


def test_setup_cell_first(notebook):
    path, nb = notebook
    first = "".join(lesson_code_cells(nb)[0]["source"])
    assert "setup_lesson(" in first, f"{path.name}: the first code cell must call setup_lesson() (seeds, threads)"


def test_colab_setup_cell_and_badges_are_stamped(notebook):
    """Cell 0 installs the course only inside Colab and prints nothing elsewhere; a badge cell follows the title."""
    path, nb = notebook
    first = nb["cells"][0]
    assert first["cell_type"] == "code" and "".join(first["source"]).startswith(COLAB_SETUP_MARKER), (
        f"{path.name}: no Colab set-up cell first (run `python -m delivery.colab`)")
    assert first["outputs"] == [], f"{path.name}: the Colab set-up cell printed something outside Colab"
    assert "colab.research.google.com/assets/colab-badge.svg" in "".join(nb["cells"][2]["source"])


def test_colab_stamp_is_current():
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-m", "delivery.colab", "--check"], cwd=root, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


def test_widget_cells_are_excluded_from_comparison(notebook):
    """A cell that displays a widget has an unstable text repr; it must be tagged nbval-ignore-output."""
    path, nb = notebook
    for index, cell in enumerate(code_cells(nb), start=1):
        shows_panel = any("application/vnd.jupyter.widget-view+json" in out.get("data", {}) and
                          "lmtie-panel" in json.dumps(nb["metadata"].get("widgets", {})) and
                          "".join(out["data"].get("text/plain", "")).startswith("VBox")
                          for out in cell["outputs"])
        if shows_panel:
            assert "nbval-ignore-output" in cell["metadata"].get("tags", []), (
                f"{path.name} cell [{index}] displays a panel but is not tagged nbval-ignore-output")


def test_widget_state_is_stored(notebook):
    """Widgets render on static viewers (GitHub, nbviewer) only if their state is saved in the notebook."""
    path, nb = notebook
    has_widgets = any("application/vnd.jupyter.widget-view+json" in out.get("data", {})
                      for cell in code_cells(nb) for out in cell["outputs"])
    if has_widgets:
        state = nb["metadata"].get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {})
        assert state.get("state"), f"{path.name}: widgets are displayed but no widget state is stored (`make notebooks`)"


# -- written for the learner --------------------------------------------------------------------------------
MAINTAINER_WORDS = re.compile(r"\b(syllabus|nbval|make bench|stderr|our checks|our tests|CI)\b", re.IGNORECASE)


def markdown_cells(nb):
    return ["".join(cell["source"]) for cell in nb["cells"] if cell["cell_type"] == "markdown"]


def test_lesson_opens_with_objectives_prerequisites_and_study_time(notebook):
    path, nb = notebook
    first = markdown_cells(nb)[0]
    assert first.startswith(f"# Lesson {path.name[:2]} — "), f"{path.name}: the first cell must be '# Lesson NN — title'"
    for lead in ("**You will be able to**", "**Prerequisites:**", "**Study time:**"):
        assert lead in first, f"{path.name}: the opening cell lacks {lead}"
    objectives = re.findall(r"^\s*\d+\.\s", first.split("**You will be able to**")[1].split("**Prerequisites")[0],
                            re.MULTILINE)
    assert 3 <= len(objectives) <= 5, f"{path.name}: {len(objectives)} objectives (3–5 wanted)"
    assert re.search(r"\*\*Study time:\*\*[^\n]*\d+\s*min", first), f"{path.name}: study time in minutes"


def test_lesson_ends_summary_exercises_next(notebook):
    path, nb = notebook
    headings = [line[3:].strip() for text in markdown_cells(nb) for line in text.splitlines() if line.startswith("## ")]
    assert headings[-3:] == ["Summary", "Exercises", "Next"], (
        f"{path.name}: the last sections must be Summary, Exercises, Next; got {headings[-3:]}")
    last = markdown_cells(nb)[-1]
    following = sorted(p.name for p in NOTEBOOKS if p.name[:2] > path.name[:2])
    if following:
        assert f"]({following[0]})" in last, f"{path.name}: 'Next' must link to {following[0]}"
    # nothing but exercises between the Exercises heading and Next
    index = max(i for i, cell in enumerate(nb["cells"]) if cell["cell_type"] == "markdown"
                and "## Exercises" in "".join(cell["source"]))
    assert nb["cells"][-1]["cell_type"] == "markdown" and index < len(nb["cells"]) - 1


def test_lesson_text_speaks_to_the_learner(notebook):
    path, nb = notebook
    for index, text in enumerate(markdown_cells(nb)):
        match = MAINTAINER_WORDS.search(text)
        assert not match, f"{path.name} markdown cell {index} talks to maintainers: {match.group(0)!r}"


# -- reproducible on another CPU ----------------------------------------------------------------------------
LONG_DECIMAL = re.compile(r"(?<![\w.])-?(\d+)\.(\d+)(?![\w.])")


def test_compared_outputs_print_no_float_noise(notebook):
    """Seven significant digits of a float32 result are noise on another CPU; six is the hard ceiling here
    (the cross-CPU nbval run in `make test` is the real check; this catches the obvious case early)."""
    path, nb = notebook
    for index, cell in enumerate(code_cells(nb), start=1):
        if "nbval-ignore-output" in cell["metadata"].get("tags", []):
            continue
        for output in cell["outputs"]:
            text = "".join(output.get("text", "")) if output["output_type"] == "stream" else \
                "".join(output.get("data", {}).get("text/plain", ""))
            long = [m.group(0) for m in LONG_DECIMAL.finditer(text)
                    if len((m.group(1).lstrip("0") + m.group(2)).lstrip("0")) >= 7]
            assert not long, f"{path.name} cell [{index}] prints {long[:3]}: too many digits to reproduce on another CPU"


# -- the idea in plain sight ---------------------------------------------------------------------------------
def test_most_of_each_lessons_code_is_in_its_cells(notebook):
    """tools/visible_code.py: cell code / (cell code + the lesson modules it imports), figures and plumbing aside."""
    from tools import visible_code

    path, _ = notebook
    row = visible_code.lesson_share(path)
    assert row["share"] >= 60, f"{path.name}: only {row['share']} % of the lesson's own code is in its cells: {row}"


# -- predict, then run ----------------------------------------------------------------------------------------
def test_lesson_asks_predict_then_run_questions(notebook):
    """3–5 questions per lesson: a "Predict first." markdown cell, the widget cell (tagged predict and excluded
    from comparison), then a compared cell that shows the evidence."""
    from lmtie_edu.kit.predict import Question

    path, nb = notebook
    cells = nb["cells"]
    asked = [i for i, cell in enumerate(cells) if "predict" in cell["metadata"].get("tags", [])]
    assert 3 <= len(asked) <= 5, f"{path.name}: {len(asked)} predict-then-run questions (ask 3–5)"
    module = __import__(f"lmtie_edu.lesson{path.name[:2]}.questions", fromlist=["*"])
    for i in asked:
        source = "".join(cells[i]["source"])
        name = re.search(r"predict\.(\w+)\.ask\(\)", source)
        assert name and isinstance(getattr(module, name.group(1), None), Question), (
            f"{path.name} cell {i}: a predict cell must call predict.<question>.ask() on a question of {module.__name__}")
        assert "nbval-ignore-output" in cells[i]["metadata"]["tags"], f"{path.name} cell {i}: tag it nbval-ignore-output"
        before = "".join(cells[i - 1]["source"])
        assert cells[i - 1]["cell_type"] == "markdown" and "**Predict first.**" in before, (
            f"{path.name} cell {i}: put the question in words in a markdown cell just above (**Predict first.** …)")
        after = cells[i + 1]
        assert after["cell_type"] == "code" and "nbval-ignore-output" not in after["metadata"].get("tags", []), (
            f"{path.name} cell {i}: the next cell must compute and print the evidence (and be compared)")


def test_each_question_is_written_once_and_its_widget_matches_it(notebook):
    """One source per question: its words are the markdown cell, the widget holds only options, answer and
    explanation. They must belong together: every question of the lesson's module is asked once, under its own
    name, right below a "Predict first." question (ending in "?" or, before the choices, ":"); and the widget shows no
    question text of its own."""
    from lmtie_edu.kit.predict import Choice, Question

    path, nb = notebook
    module = __import__(f"lmtie_edu.lesson{path.name[:2]}.questions", fromlist=["*"])
    defined = {name: q for name, q in vars(module).items() if isinstance(q, Question)}
    sources = ["".join(c["source"]) for c in nb["cells"]]
    asked = [m for source in sources for m in re.findall(r"predict\.(\w+)\.ask\(\)", source)]
    assert sorted(asked) == sorted(defined), (
        f"{path.name}: asked {sorted(asked)}, but {module.__name__} defines {sorted(defined)}")
    for name, question in defined.items():
        assert question.key == name, f"{module.__name__}.{name} records its answers as {question.key!r}"
        words = sources[next(i for i, s in enumerate(sources) if f"predict.{name}.ask()" in s) - 1]
        assert words.startswith("**Predict first.**") and words.rstrip().endswith(("?", ":")), (
            f"{path.name}: the question above predict.{name}.ask() must read '**Predict first.** …?'; got {words!r}")
        label = question.ask().children[0].value
        assert label == "<b>Your prediction:</b>", f"{name}: the widget repeats text of its own: {label!r}"
        if isinstance(question, Choice):
            assert not any(option in words for option in question.options if len(option) > 12), (
                f"{path.name}: the question above {name} spells out an option; the widget shows them")


# -- every figure says what it shows ------------------------------------------------------------------------
def _shows_figure(cell) -> bool:
    """A stored PNG, or a lesson panel (a VBox widget that is not a predict-first question)."""
    source = "".join(cell["source"])
    return any("image/png" in out.get("data", {}) or (
        "application/vnd.jupyter.widget-view+json" in out.get("data", {})
        and "".join(out["data"].get("text/plain", "")).startswith("VBox") and "predict." not in source)
        for out in cell.get("outputs", []))


def test_every_figure_has_a_visible_caption(notebook):
    """JupyterLab reads no alt metadata (jupyter/enhancement-proposals#120 is open); a caption every reader sees
    is the text alternative, and the site copies it into the image's alt (delivery/site/alt_text.py)."""
    path, nb = notebook
    missing = []
    for index, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code" or not _shows_figure(cell):
            continue
        following = next((c for c in nb["cells"][index + 1:] if c["cell_type"] == "markdown"), None)
        text = "".join(following["source"]).lstrip() if following else ""
        if not text.startswith("**Figure"):
            missing.append(index)
    assert not missing, (f"{path.name}: the figures of cells {missing} have no caption — open the next markdown "
                         "cell with '**Figure.** what it shows (axes, colours, the point it makes)'")



def test_the_set_up_names_the_course_version_it_was_written_for(notebook):
    """setup_lesson(course=...) is how a learner hears that the installed package is another version."""
    from lmtie_edu import __version__

    path, nb = notebook
    first = "".join(lesson_code_cells(nb)[0]["source"])
    assert f'course="{__version__}"' in first, f'{path.name}: setup_lesson(..., course="{__version__}")'
