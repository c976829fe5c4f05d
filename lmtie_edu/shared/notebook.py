"""One call at the top of every lesson: seeds, threads and print settings for reproducible outputs.

Importing this module (or :mod:`lmtie_edu.kit.plotting`) also gives matplotlib a writable configuration
directory when the learner's own is not writable (a read-only home or checkout): otherwise matplotlib's
import writes a "not a writable directory" warning to the lesson's first cell.
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch

from . import cell_order
from . import language as language_module
from .validation import check_positive_int, check_seed

MAX_THREADS = 256


def _writable(directory: Path) -> bool:
    try:
        directory.mkdir(parents=True, exist_ok=True)  # what matplotlib itself would do
    except OSError:
        return False
    return directory.is_dir() and os.access(directory, os.W_OK)


def _matplotlib_dirs() -> list[Path]:
    """The directories matplotlib will write to: MPLCONFIGDIR, else its XDG config and cache directories."""
    if os.environ.get("MPLCONFIGDIR"):
        return [Path(os.environ["MPLCONFIGDIR"])]
    home = Path.home()
    if sys.platform == "win32":
        return [Path(os.environ.get("LOCALAPPDATA") or home) / "matplotlib"]
    if not sys.platform.startswith(("linux", "freebsd")):
        return [home / ".matplotlib"]
    return [Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config") / "matplotlib",
            Path(os.environ.get("XDG_CACHE_HOME") or home / ".cache") / "matplotlib"]


def use_writable_matplotlib_dir() -> None:
    """Point MPLCONFIGDIR to a fresh temporary directory if matplotlib could not write where it would.

    Only before matplotlib is imported (it reads the setting once); afterwards this does nothing.
    """
    if "matplotlib" in sys.modules:
        return
    try:
        writable = all(_writable(directory) for directory in _matplotlib_dirs())
    except (OSError, RuntimeError):  # RuntimeError: Path.home() when there is no home directory
        writable = False
    if not writable:
        os.environ["MPLCONFIGDIR"] = str(_own_temporary_dir())


def _own_temporary_dir() -> Path:
    """This user's lmtie matplotlib directory in the temporary folder (its font cache then survives the
    kernel), or a fresh one if that name is taken by someone else or by a link."""
    shared = Path(tempfile.gettempdir()) / f"lmtie-matplotlib-{getattr(os, 'getuid', lambda: 'user')()}"
    try:
        shared.mkdir(mode=0o700, exist_ok=True)
        if (not shared.is_symlink() and shared.is_dir() and os.access(shared, os.W_OK)
                and (not hasattr(os, "getuid") or shared.stat().st_uid == os.getuid())):
            return shared
    except OSError:
        pass
    return Path(tempfile.mkdtemp(prefix="lmtie-matplotlib-"))


use_writable_matplotlib_dir()


def setup_lesson(seed: int = 0, threads: int = 1, language: str = "en", course: str | None = None) -> None:
    """Seed every generator, fix the thread count, round printed tensors and choose the package's language.

    Stored outputs are compared digit by digit when the notebook is re-run (nbval), so the run
    must not depend on the machine's core count: one thread gives the same floating-point sums
    everywhere. ``threads=2`` is used only by the training lesson, for speed. Seeding the global
    generators is this call's job: the lesson asks for it, in its first cell; no other helper does.
    In a Jupyter kernel it also makes a cell run before the cell it needs say which one to run
    (:mod:`lmtie_edu.shared.cell_order`). ``language="zh_CN"`` (the Chinese lessons' choice) makes hints,
    diagnoses, questions, check lines and figure labels Chinese (:mod:`lmtie_edu.shared.language`).
    ``course`` is the lmtie_edu version the lesson was written for: when the installed package is another
    version (a hub image or a Colab install older or newer than the pulled lessons), one line says so, since
    the lesson's figures, checks and hints may then not match its text.
    """
    seed = check_seed(seed)
    threads = check_positive_int(threads, "threads")
    if threads > MAX_THREADS:
        raise ValueError(f"threads must be an integer from 1 to {MAX_THREADS}; got {threads:,}")
    use_writable_matplotlib_dir()
    random.seed(seed)
    np.random.seed(seed)  # noqa: NPY002 — learners may use the legacy global generator
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    torch.set_printoptions(precision=4, sci_mode=False)
    np.set_printoptions(precision=4, suppress=True)
    language_module.use(language)
    cell_order.install()
    mismatch = course_mismatch(course)
    if mismatch:
        print(mismatch)


def course_mismatch(course: str | None) -> str | None:
    """The line that says the installed lmtie_edu is not the version a lesson was written for, or None."""
    from lmtie_edu import __version__

    if course is None:
        return None
    if not isinstance(course, str) or not course.strip():
        raise TypeError(f"course must be the lesson's lmtie_edu version as a str, such as '0.1.0'; got {course!r}")
    if course == __version__:
        return None
    return language_module.tr(
        "⚠️ This lesson was written for lmtie_edu {course}, but lmtie_edu {installed} is installed: its figures, "
        "checks and hints may not match the text. Use one version for both: the course's set-up at v{course} "
        "(make lab in that checkout, or that version's Colab cell), or the lessons of v{installed}.",
        course=course, installed=__version__)
