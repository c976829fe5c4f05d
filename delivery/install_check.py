"""Does a fresh install get the CPU build of torch, as a laptop resolves it? ``python -m delivery.install_check``.

``make lab`` installs in two steps (README, "Without make" does the same by hand):

1. ``pip install --no-deps -r requirements-torch-cpu.txt``: torch alone, with PyTorch's CPU index beside PyPI.
   pip takes ``2.13.0+cpu`` from that index (a local version label sorts above PyPI's plain ``2.13.0``, whose
   Linux wheel needs about 2.7 GB of ``nvidia-*`` wheels and triton);
2. ``pip install -r requirements.txt``: everything else from PyPI; the installed ``2.13.0+cpu`` satisfies
   ``torch==2.13.0``, so pip keeps it.

This machine's pip configuration (``/etc/xdg/pip``, ``PIP_FIND_LINKS``) finds a CPU wheel on disk and would hide
a mistake, and PyTorch's index is unreachable here. So each check runs pip with no configuration file and no
``PIP_*`` variable — PyPI alone — and PyTorch's CPU index replaced by a stand-in: a one-page index of the CPU
wheel on this disk (the file PyTorch's index serves), or PyTorch's own index where no such wheel lies on disk.
All resolutions are ``--dry-run`` (nothing is installed), and the independent ones run side by side (each waits
on the network, not the CPU):

- step 1 picks a ``+cpu`` torch (Linux; on macOS PyPI's wheel is the CPU build already);
- step 2, resolved with that torch (``--constraint torch==<it>``), pulls no ``nvidia-*`` package and no triton;
- in the course's .venv, which holds that torch, step 2 installs no other torch (pip keeps the ``+cpu`` one).

Then, for every Python that ``pyproject.toml``'s ``requires-python`` admits (3.11–3.14), the exact pins are
resolved as wheels only for Linux x86-64 with that Python's tags (``--python-version``; no interpreter of that
version is needed): every package must have a wheel for it (gensim, which had none for 3.14, was dropped for
that), and torch's pin must have one on PyPI (PyTorch publishes its CPU builds for the same Pythons).

``--pypi-only`` resolves requirements.txt from PyPI alone instead and lists what a one-step install would pull
(the problem this two-step install avoids). Exit status 1 names what went wrong.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TORCH_REQUIREMENTS = REPO / "requirements-torch-cpu.txt"
REQUIREMENTS = REPO / "requirements.txt"
WHEEL_DIRS = (Path("/opt/wheels"),)  # where this kind of machine keeps its CPU torch wheel
CUDA_PACKAGE = re.compile(r"^(nvidia-.*|triton)$", re.IGNORECASE)
# Linux x86-64 wheel tags as pip on a current distribution accepts them (pip does not widen --platform itself).
LINUX_PLATFORMS = ("manylinux_2_28_x86_64", "manylinux_2_27_x86_64", "manylinux_2_24_x86_64",
                   "manylinux_2_17_x86_64", "manylinux2014_x86_64", "manylinux_2_5_x86_64", "manylinux1_x86_64")


def cpu_index() -> str:
    """The ``--extra-index-url`` of requirements-torch-cpu.txt."""
    for line in TORCH_REQUIREMENTS.read_text(encoding="utf-8").splitlines():
        if line.startswith("--extra-index-url "):
            return line.split(maxsplit=1)[1].strip()
    raise SystemExit(f"{TORCH_REQUIREMENTS.name} names no --extra-index-url (PyTorch's CPU index)")


def torch_pin(path: Path) -> str:
    """The ``torch==X`` line of a requirements file."""
    pins = [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("torch==")]
    if len(pins) != 1:
        raise SystemExit(f"{path.name} must pin torch once (torch==X); found {pins or 'no pin'}")
    return pins[0]


def stand_in_index(folder: Path) -> str | None:
    """A simple index serving the CPU torch wheel on this disk (file:// URL), or None when there is none."""
    wheels = sorted(w for d in WHEEL_DIRS if d.is_dir() for w in d.glob("torch-*+cpu-*.whl"))
    if not wheels:
        return None
    (folder / "torch").mkdir(parents=True, exist_ok=True)
    links = "".join(f'<a href="{w.as_uri()}">{w.name}</a>\n' for w in wheels)
    (folder / "torch" / "index.html").write_text(f"<html><body>\n{links}</body></html>\n", encoding="utf-8")
    return folder.as_uri()


def supported_pythons() -> list[str]:
    """The minor versions ``requires-python = ">=3.A,<3.B"`` admits, as "3.A" … "3.(B-1)"."""
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    match = re.search(r'^requires-python = ">=3\.(\d+),<3\.(\d+)"', text, re.MULTILINE)
    if not match:
        raise SystemExit('pyproject.toml must say requires-python = ">=3.A,<3.B"')
    return [f"3.{minor}" for minor in range(int(match[1]), int(match[2]))]


def wheel_problems(python: str, version: str, scratch: Path) -> list[str]:
    """Resolve the exact pins as Linux x86-64 wheels for Python ``version``; what could not be resolved."""
    pins = scratch / f"pins-{version}.txt"
    kept = [line for line in REQUIREMENTS.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith(("#", "-e", "-c", "torch=="))]
    pins.write_text("\n".join([f"-c {REPO / 'constraints.txt'}", *kept]) + "\n", encoding="utf-8")
    tags = ["--only-binary=:all:", "--python-version", version, "--implementation", "cp",
            "--abi", "cp" + version.replace(".", ""), "--abi", "abi3", "--abi", "none",
            "--target", str(scratch / f"target-{version}")]
    for platform in LINUX_PLATFORMS:
        tags += ["--platform", platform]
    found = []
    for what, args in (("the pins", ["-r", str(pins)]), ("torch", ["--no-deps", torch_pin(REQUIREMENTS)])):
        try:
            resolve(python, tags + args, scratch / f"wheels-{version}.json")
        except SystemExit as failure:
            found.append(f"Python {version}: no wheels for {what}: {str(failure).splitlines()[-1]}")
    return found


def pypi_only_env() -> dict:
    """The environment with no pip configuration: no config file, no PIP_* variable."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env["PIP_CONFIG_FILE"] = os.devnull
    return env


def resolve(python: str, args: list[str], report: Path, *, ignore_installed: bool = True) -> list[tuple[str, str]]:
    """``pip install --dry-run`` with ``args`` from PyPI alone: (name, version) of what it would install."""
    command = [python, "-m", "pip", "install", "--dry-run", "--quiet", "--report", str(report), *args]
    if ignore_installed:
        command.insert(5, "--ignore-installed")
    done = subprocess.run(command, cwd=REPO, env=pypi_only_env(), capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"pip could not resolve {' '.join(args)}:\n{done.stderr[-3000:]}")
    installs = json.loads(report.read_text(encoding="utf-8"))["install"]
    return [(item["metadata"]["name"], item["metadata"]["version"]) for item in installs]


def cuda_packages(packages: list[tuple[str, str]]) -> list[str]:
    return sorted(f"{name}=={version}" for name, version in packages if CUDA_PACKAGE.match(name))


def problems(step1: list[tuple[str, str]], step2: list[tuple[str, str]], kept: list[tuple[str, str]],
             *, linux: bool) -> list[str]:
    """What is wrong with the three resolutions (empty when the install gets the CPU build and keeps it)."""
    found = []
    torches = [version for name, version in step1 if name.lower() == "torch"]
    if step1 and [name.lower() for name, _ in step1] != ["torch"]:
        found.append(f"step 1 must install torch alone (--no-deps); it installs {step1}")
    if not torches:
        found.append("step 1 installs no torch")
    elif linux and not torches[0].endswith("+cpu"):
        found.append(f"step 1 takes torch {torches[0]}, not a +cpu build: the CPU index is not used")
    if cuda_packages(step2):
        found.append(f"step 2 pulls CUDA packages: {', '.join(cuda_packages(step2))}")
    replaced = [f"{name}=={version}" for name, version in kept if name.lower() == "torch"]
    if replaced:
        found.append(f"step 2 replaces the installed torch with {replaced[0]}")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pypi-only", action="store_true", help="resolve requirements.txt from PyPI alone")
    args = parser.parse_args(argv)
    python = sys.executable
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        if args.pypi_only:
            packages = resolve(python, ["-r", str(REQUIREMENTS)], scratch / "pypi.json")
            print(f"PyPI alone: {len(packages)} packages; CUDA: {', '.join(cuda_packages(packages)) or 'none'}")
            return 0
        pin = torch_pin(TORCH_REQUIREMENTS)
        if pin != torch_pin(REQUIREMENTS):
            raise SystemExit(f"{TORCH_REQUIREMENTS.name} pins {pin}, requirements.txt {torch_pin(REQUIREMENTS)}")
        index = stand_in_index(scratch / "index") or cpu_index()
        torch_file = scratch / "torch-cpu.txt"
        torch_file.write_text(TORCH_REQUIREMENTS.read_text(encoding="utf-8").replace(cpu_index(), index),
                              encoding="utf-8")
        versions = supported_pythons()
        with ThreadPoolExecutor(max_workers=4) as pool:  # pip processes waiting on PyPI; step 2 needs step 1
            kept_job = pool.submit(resolve, python, ["-r", str(REQUIREMENTS)], scratch / "kept.json",
                                   ignore_installed=False)
            wheel_jobs = [pool.submit(wheel_problems, python, version, scratch) for version in versions]
            step1 = resolve(python, ["--no-deps", "-r", str(torch_file)], scratch / "step1.json")
            chosen = next((f"torch=={v}" for n, v in step1 if n.lower() == "torch"), pin)
            (scratch / "chosen.txt").write_text(chosen + "\n", encoding="utf-8")
            step2 = resolve(python, ["-r", str(REQUIREMENTS), "-c", str(scratch / "chosen.txt"),
                                     "--extra-index-url", index], scratch / "step2.json")
            kept = kept_job.result()
            found = problems(step1, step2, kept, linux=sys.platform.startswith("linux"))
            found += [problem for job in wheel_jobs for problem in job.result()]
    print(f"CPU index: {'stand-in ' + index if index != cpu_index() else index}")
    print(f"step 1: {', '.join(f'{n}=={v}' for n, v in step1)}; step 2: {len(step2)} packages, CUDA: "
          f"{', '.join(cuda_packages(step2)) or 'none'}; the installed torch kept: {'no' if any(n.lower() == 'torch' for n, _ in kept) else 'yes'}")
    print(f"wheels for Python {', '.join(versions)}: "
          f"{'all found' if not any(p.startswith('Python ') for p in found) else 'see below'}")
    for problem in found:
        print("PROBLEM:", problem)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
