"""Run every lesson in a venv that mimics Google Colab's runtime, through the lessons' own Colab set-up cell.

1. build/colab-venv (made once, reused): what Colab's runtime ships (its published list, Aug 2026) as far as
   this machine can install it — numpy 2.1.3, matplotlib 3.10.0, transformers 5.15.0, ipywidgets 7.7.1,
   ipykernel 6.17.1, IPython 7.34.0. Two differences, each for a reason: Python 3.11, the only one here
   (Colab: 3.13.15); torch 2.13.0, the CPU wheel on this machine's disk (Colab: 2.11.0, whose Linux wheel on
   PyPI is a CUDA build of about 2.7 GB with its nvidia-* wheels, too much for every CI run). The venv is
   layered over the course's .venv (delivery/layered_venv.py): the versions above are installed in it and come
   first on its path; torch, the same 2.13.0, and the rest of what neither list pins (scipy, tokenizers, …)
   come from .venv rather than a second install (about a minute of unpacking and compiling torch).
2. The set-up cell that delivery/colab.py stamps into the lessons is run there with ``google.colab``
   simulated (a stub module in sys.modules), its git URL replaced by a copy of this checkout
   (``pip install "<copy>[lessons]"`` plus its keep-pins). Then torch, numpy, ipykernel and ipywidgets
   must have the versions they had before.
3. Every lesson is executed headless (nbclient, a kernel of that venv). ``google.colab`` is NOT
   simulated inside the lessons: their set-up cell is the no-op it is everywhere but Colab, and the
   package is already installed by step 2 (``--simulate-colab`` runs each lesson's own set-up cell
   for real instead, about 10 s more per lesson). At the end of each lesson one extra cell finds every
   TiePanel, calls ``panel.set(tie=not panel.tie.value)`` and checks that the figure bytes changed.

The copy is build/colab-src (tracked and untracked-but-not-ignored files).

Usage: python -m delivery.colab_env_check [--simulate-colab] [notebooks ...]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from delivery import colab  # the set-up cell's source
from delivery.layered_venv import layered_venv
from tools.course import notebooks

REPO = Path(__file__).resolve().parents[1]

VENV = REPO / "build" / "colab-venv"
SRC = REPO / "build" / "colab-src"
# Colab's runtime (published list, Aug 2026) but Python and torch (see the module docstring).
BASE = ["torch==2.13.0", "numpy==2.1.3", "matplotlib==3.10.0", "transformers==5.15.0", "ipywidgets==7.7.1",
        "ipykernel==6.17.1", "ipython==7.34.0", "nbclient", "nbformat"]
WATCHED = ("torch", "numpy", "ipykernel", "ipywidgets", "matplotlib", "transformers")

TOGGLE_CELL = """\
import gc as _gc
import json as _json
import sys as _sys
import warnings as _warnings
from importlib.metadata import version as _version

import lmtie_edu as _lmtie_edu
from lmtie_edu.kit.panels import TiePanel as _TiePanel

_rows = []
with _warnings.catch_warnings():  # isinstance() on every live object touches deprecated torch aliases
    _warnings.simplefilter("ignore")
    _panels = [o for o in _gc.get_objects() if issubclass(type(o), _TiePanel)]  # type(): safe on dead weak proxies
for _panel in _panels:
    _before, _tie = bytes(_panel.image.value), _panel.tie.value
    _panel.set(tie=not _tie)
    _rows.append({"compute": getattr(_panel.compute, "__qualname__", repr(_panel.compute)), "tie_before": _tie,
                  "changed": bytes(_panel.image.value) != _before, "seconds": round(_panel.last_redraw_seconds, 2)})
print("LMTIE-PANELS " + _json.dumps({"panels": _rows, "python": _sys.executable, "package": _lmtie_edu.__file__,
                                    "versions": {n: _version(n) for n in WATCHED}}))
""".replace("WATCHED", repr(WATCHED))


def venv_python() -> Path:
    return VENV / "bin" / "python"


def make_venv() -> None:
    stamp, wanted = VENV / ".colab-base", "layered over .venv: " + " ".join(BASE)
    if stamp.exists() and stamp.read_text() == wanted:
        return
    print(f"creating {VENV.relative_to(REPO)} over .venv ({' '.join(BASE)})", flush=True)
    layered_venv(VENV, Path(sys.executable))
    subprocess.run([str(venv_python()), "-m", "pip", "install", "-q", *BASE], check=True)
    stamp.write_text(wanted)


def versions() -> dict:
    code = f"import json; from importlib.metadata import version; print(json.dumps({{n: version(n) for n in {WATCHED!r}}}))"
    return json.loads(subprocess.run([str(venv_python()), "-c", code], check=True, capture_output=True,
                                     text=True).stdout)


def copy_checkout() -> None:
    """SRC = the working tree's tracked + untracked (not ignored) files; nothing is written into the tree."""
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                           check=True, capture_output=True, text=True).stdout.split("\0")
    shutil.rmtree(SRC, ignore_errors=True)
    for name in filter(None, files):
        source = REPO / name
        if source.is_file():
            (SRC / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, SRC / name)


def colab_cell(local: bool = True) -> str:
    url, _ = colab.repository_url()
    source = colab.setup_source(url, colab.DEFAULT_REF)
    return source.replace(colab.install_target(url, colab.DEFAULT_REF), f"{SRC}[lessons]") if local else source


SIMULATE = "import sys, types; sys.modules['google.colab'] = types.ModuleType('google.colab')\n"


def run_setup_cell() -> float:
    started = time.perf_counter()
    subprocess.run([str(venv_python()), "-c", SIMULATE + colab_cell()], check=True, cwd=REPO / "build")
    return time.perf_counter() - started


def execute_lessons(paths: list[Path], simulate: bool) -> int:
    """(runs inside the Colab venv) Execute each lesson, toggle its panels; return the number of failures."""
    import nbformat
    from jupyter_client.manager import KernelManager
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    failures = 0
    url, _ = colab.repository_url()
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        colab.stamp(nb, path.name, url)  # as the lesson will be once stamped (no-op if it is)
        for cell in nb.cells:
            if cell.cell_type == "code" and cell.source.startswith(colab.SETUP_MARKER) and simulate:
                cell.source = SIMULATE + colab_cell()
        nb.cells.append(nbformat.v4.new_code_cell(TOGGLE_CELL))
        started = time.perf_counter()
        # The kernel talks over Unix sockets in a folder of its own, not TCP ports: jupyter_client picks a free
        # port, closes it and the kernel binds it later, and in between another process may take it (seen here
        # with the hub test beside: "Address already in use", "Kernel died before replying to kernel_info").
        with tempfile.TemporaryDirectory(prefix="lmtie-kernel-") as sockets:
            kernel = KernelManager(kernel_name="python3", transport="ipc", ip=f"{sockets}/kernel")
            client = NotebookClient(nb, km=kernel, timeout=600, resources={"metadata": {"path": str(path.parent)}})
            try:
                client.execute()
            except CellExecutionError as error:
                failures += 1
                print(f"FAIL {path.name}: {str(error)[-1500:]}", flush=True)
                continue
        seconds = time.perf_counter() - started
        errors = [f"cell {i}: {o.get('ename')}: {o.get('evalue', '')[:200]}" for i, c in enumerate(nb.cells)
                  if c.cell_type == "code" for o in c.outputs if o.get("output_type") == "error"]
        views = sum("application/vnd.jupyter.widget-view+json" in o.get("data", {})
                    for c in nb.cells if c.cell_type == "code" for o in c.outputs)
        stderr = [f"cell {i}: {''.join(o['text']).strip()[:300]}" for i, c in enumerate(nb.cells) if c.cell_type == "code"
                  for o in c.outputs if o.get("output_type") == "stream" and o.get("name") == "stderr"]
        report = json.loads(next(o["text"] for o in nb.cells[-1].outputs
                                 if o.get("name") == "stdout").split("LMTIE-PANELS ", 1)[1])
        panels = report["panels"]
        unchanged = [p["compute"] for p in panels if not p["changed"]]
        if not Path(report["package"]).is_relative_to(VENV):  # the set-up cell's install, not the checkout beneath
            errors.append(f"lmtie_edu was imported from {report['package']}, not from {VENV.relative_to(REPO)}")
        failed = bool(unchanged or errors or views < len(panels))
        failures += failed
        print(f"{'FAIL' if failed else 'ok  '} {path.name}: ran in {seconds:.0f} s; {views} widget view(s) displayed; "
              f"{len(panels)} panel(s) toggled: "
              + ", ".join(f"{p['compute']} tie {p['tie_before']}->{not p['tie_before']} "
                          f"{'redrawn' if p['changed'] else 'UNCHANGED'} ({p['seconds']} s)" for p in panels), flush=True)
        for line in errors:
            print(f"     ERROR OUTPUT {line}")
        for line in stderr:
            print(f"     stderr {line}")
        print(f"     kernel {report['python']} {report['versions']}, lmtie_edu from {report['package']}", flush=True)
    return failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path)
    parser.add_argument("--simulate-colab", action="store_true")
    parser.add_argument("--execute-only", action="store_true", help=argparse.SUPPRESS)  # the in-venv half
    args = parser.parse_args()
    paths = [p.resolve() for p in args.notebooks] or notebooks()
    if args.execute_only:
        return min(execute_lessons(paths, args.simulate_colab), 1)
    started = time.perf_counter()
    make_venv()
    before = versions()
    copy_checkout()
    print(f"set-up cell (Colab simulated, URL -> {SRC.relative_to(REPO)}): ", flush=True)
    print("    " + colab_cell().replace("\n", "\n    "))
    seconds = run_setup_cell()
    after = versions()
    print(f"set-up cell install: {seconds:.0f} s; before {before}; after {after}")
    if after != before:
        print("FAIL: the set-up cell changed the runtime's own packages")
        return 1
    env = dict(os.environ, MPLCONFIGDIR=str(REPO / "build" / "colab-mpl"), PYDEVD_DISABLE_FILE_VALIDATION="1")
    # Two kernels at a time (each lesson is single-threaded): lessons 1, 3, 5, 7 and 2, 4, 6 side by side.
    workers = [subprocess.Popen([str(venv_python()), "-m", "delivery.colab_env_check", "--execute-only",
                                 *(["--simulate-colab"] * args.simulate_colab), *map(str, share)], env=env, cwd=REPO)
               for share in (paths[0::2], paths[1::2]) if share]
    code = max(worker.wait() for worker in workers)
    print(f"colab-like check: {'FAILED' if code else 'passed'} in {time.perf_counter() - started:.0f} s")
    return code


if __name__ == "__main__":
    sys.exit(main())
