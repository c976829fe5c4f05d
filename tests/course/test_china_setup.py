"""README.zh-CN's set-up path in China, run as far as this machine allows, with the mirrors stood in for locally.

The mirrors themselves are out of reach here, so two local folders served over HTTP take their place, laid out as
they are: a PyPI mirror is a *simple index* (PEP 503: ``/simple/torch/`` lists torch's files), while the aliyun
``pytorch-wheels/cpu/`` folder is a *flat page* of wheel files (``…/cpu/torch-2.13.0+cpu-….whl`` beside every other
package's), the kind pip reads with ``--find-links`` / ``PIP_FIND_LINKS``. pip then resolves the install's first
step (``requirements-torch-cpu.txt``, as ``make lab`` and ``python -m tools.course_env lab`` run it) with the
README's environment variables, download.pytorch.org unreachable as it is from China:

- with the README's ``PIP_FIND_LINKS`` it takes ``2.13.0+cpu`` from the flat page;
- given the same folder as an *index* (``PIP_EXTRA_INDEX_URL``), pip finds no ``torch/`` page there and says
  nothing: it takes PyPI's plain ``2.13.0`` (on Linux the CUDA build and 2.7 GB of nvidia-* wheels). That is
  the mistake the README's troubleshooting section names.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.zh-CN.md"
PYPI_MIRROR = "https://pypi.tuna.tsinghua.edu.cn/simple"
TORCH_MIRROR = "https://mirrors.aliyun.com/pytorch-wheels/cpu/"


def fake_wheel(folder: Path, version: str) -> Path:
    """A wheel named and described as torch ``version`` (pure Python: any platform may take it)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"torch-{version}-py3-none-any.whl"
    info = f"torch-{version}.dist-info"
    with zipfile.ZipFile(path, "w") as wheel:
        wheel.writestr("torch/__init__.py", "")
        wheel.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: torch\nVersion: {version}\n")
        wheel.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        wheel.writestr(f"{info}/RECORD", f"torch/__init__.py,,\n{info}/METADATA,,\n{info}/WHEEL,,\n{info}/RECORD,,\n")
    return path


@pytest.fixture(scope="module")
def mirrors(tmp_path_factory):
    """Local stand-ins: (PyPI mirror's simple index URL, the aliyun flat page's URL)."""
    root = tmp_path_factory.mktemp("mirrors")
    fake_wheel(root / "simple" / "torch", "2.13.0")                   # PyPI: the plain (on Linux: CUDA) build
    fake_wheel(root / "pytorch-wheels" / "cpu", "2.13.0+cpu")         # aliyun: the CPU build, in a flat folder
    fake_wheel(root / "pytorch-wheels" / "cpu", "2.12.0+cpu")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    yield f"{base}/simple/", f"{base}/pytorch-wheels/cpu/"
    server.shutdown()


def readme_commands() -> str:
    return "\n".join(re.findall(r"```(?:bash|bat|powershell)?\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL))


def torch_pip_chooses(tmp_path: Path, environment: dict[str, str]) -> str:
    """The torch version pip would install for the course's first install step, with ``environment`` set."""
    requirements = (REPO / "requirements-torch-cpu.txt").read_text(encoding="utf-8")
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in requirements
    # from China download.pytorch.org is out of reach: stand in a port where nothing listens
    unreachable = tmp_path / "requirements-torch-cpu.txt"
    unreachable.write_text(requirements.replace("https://download.pytorch.org/whl/cpu", "http://127.0.0.1:9/whl/cpu"))
    report = tmp_path / "report.json"
    env = {key: value for key, value in os.environ.items() if not key.startswith("PIP_")}
    env.update(PIP_RETRIES="0", PIP_TIMEOUT="5", PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_CACHE_DIR="1",
               PIP_CONFIG_FILE=os.devnull, **environment)
    subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--no-deps",
                    "--quiet", "--report", str(report), "-r", str(unreachable)], env=env, check=True, timeout=120,
                   capture_output=True)
    [item] = json.loads(report.read_text())["install"]
    return item["metadata"]["version"]


def test_the_readme_gives_the_torch_mirror_as_find_links_not_as_an_index():
    commands = readme_commands()
    assert f"PIP_INDEX_URL={PYPI_MIRROR}" in commands and f"PIP_FIND_LINKS={TORCH_MIRROR}" in commands
    assert "PIP_EXTRA_INDEX_URL" not in commands  # the flat folder is not an index (test below)
    assert "python -m tools.course_env lab" in commands and "py -3.12 -m tools.course_env lab" in commands
    assert '$env:PIP_FIND_LINKS = "' + TORCH_MIRROR + '"' in commands  # Windows PowerShell, without make


def test_with_the_readme_variables_pip_takes_the_cpu_build_from_the_flat_mirror(tmp_path, mirrors):
    index, flat = mirrors
    assert torch_pip_chooses(tmp_path, {"PIP_INDEX_URL": index, "PIP_FIND_LINKS": flat}) == "2.13.0+cpu"


def test_the_flat_mirror_given_as_an_index_silently_yields_pypis_build(tmp_path, mirrors):
    index, flat = mirrors
    assert torch_pip_chooses(tmp_path, {"PIP_INDEX_URL": index, "PIP_EXTRA_INDEX_URL": flat}) == "2.13.0"


@pytest.mark.skipif(not (REPO / ".git").exists() or not shutil.which("git"), reason="needs the git checkout")
def test_a_source_archive_sets_up_without_git(tmp_path):
    """The way without GitHub: an archive of the repository (`git archive`, a release's source zip) holds the
    set-up command, and it runs there without git."""
    archive = tmp_path / "lmtie_edu.tar"
    subprocess.run(["git", "archive", "--format=tar", "-o", str(archive), "HEAD"], cwd=REPO, check=True)
    unpacked = tmp_path / "lmtie_edu"
    unpacked.mkdir()
    shutil.unpack_archive(archive, unpacked)
    assert "git archive" in readme_commands()
    shown = subprocess.run([sys.executable, "-m", "tools.course_env", "install", "--dry-run", "--venv", "v"],
                           cwd=unpacked, capture_output=True, text=True, check=True, timeout=60).stdout
    assert "-r requirements-torch-cpu.txt" in shown and "-r requirements.txt" in shown
