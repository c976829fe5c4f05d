"""Start and stop a private JupyterLab (or Notebook 7) for the browser test.

The server runs from the current interpreter's environment (the project's .venv under `make test`)
on 127.0.0.1, a free port and a random token. Everything it could write — config, runtime files,
user settings, workspaces, checkpoints, the notebooks themselves — lives in a scratch directory:
the lessons are copied there, so running them never touches the committed notebooks.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from delivery.lab.processes import die_with_parent, free_port

SETTINGS_DIR = Path(__file__).resolve().parents[3] / "delivery" / "lab" / "jupyterlab-settings"
START_TIMEOUT_SECONDS = 60
STOP_TIMEOUT_SECONDS = 15



def isolated_env(scratch: Path) -> dict:
    """The server's environment: user-level Jupyter state redirected into ``scratch``."""
    dirs = {
        "JUPYTER_CONFIG_DIR": scratch / "config",
        "JUPYTER_DATA_DIR": scratch / "data",
        "JUPYTER_RUNTIME_DIR": scratch / "runtime",
        "JUPYTERLAB_SETTINGS_DIR": scratch / "settings",
        "JUPYTERLAB_WORKSPACES_DIR": scratch / "workspaces",
        "IPYTHONDIR": scratch / "ipython",
    }
    for path in dirs.values():
        path.mkdir(parents=True, exist_ok=True)
    # Our settings: JupyterLab's default windowing (every cell in the DOM), no news toast, no autosave.
    shutil.copytree(SETTINGS_DIR, dirs["JUPYTERLAB_SETTINGS_DIR"], dirs_exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("JPY_")}
    env.update({k: str(v) for k, v in dirs.items()})
    env.pop("JUPYTER_PATH", None)
    env.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    return env


class LabServer:
    """A running ``jupyter lab`` (or, with ``app="notebook"``, Notebook 7) serving a scratch copy of the lessons.

    ``solved_dir`` (optional) holds the same lessons with their exercises solved; those are served in
    place of the lessons of the same name. :meth:`original` is the file a served notebook was copied
    from: the stored outputs a run is compared with, out of reach of anything the server writes.
    """

    # The front ends a student may open a lesson in: the module that starts it, and its application's class.
    APPS = {"jupyterlab": "LabApp", "notebook": "JupyterNotebookApp"}

    def __init__(self, lessons_dir: Path, scratch: Path, solved_dir: Path | None = None, app: str = "jupyterlab"):
        if app not in self.APPS:
            raise ValueError(f"app must be one of {sorted(self.APPS)}; got {app!r}")
        self.app = app
        self.scratch = scratch
        self.root = scratch / "notebooks"
        shutil.copytree(lessons_dir, self.root, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
        self.originals = {path.relative_to(lessons_dir).as_posix(): path for path in lessons_dir.rglob("*.ipynb")}
        for path in sorted(solved_dir.glob("*.ipynb")) if solved_dir else ():
            shutil.copyfile(path, self.root / path.name)
            self.originals[path.name] = path
        self.env = isolated_env(scratch)
        self.log_path = scratch / "jupyterlab.log"
        self.token = secrets.token_hex(24)
        self.port = 0
        self.process: subprocess.Popen | None = None

    # -- life cycle ------------------------------------------------------------------------------
    def start(self) -> LabServer:
        for _attempt in range(3):  # another process may grab the free port between probe and bind
            self.port = free_port()
            self._spawn()
            if self._wait_ready():
                return self
            self.stop()
        raise RuntimeError(f"JupyterLab did not start; log tail:\n{self.log_tail()}")

    def _spawn(self) -> None:
        command = [
            sys.executable, "-m", self.app, "--no-browser", "--ip=127.0.0.1", f"--port={self.port}",
            "--ServerApp.port_retries=0", f"--IdentityProvider.token={self.token}",
            f"--ServerApp.root_dir={self.root}",
            # window.jupyterapp lets the test read the notebook model (outputs, counts, kernel status).
            f"--{self.APPS[self.app]}.expose_app_in_browser=True",
        ]
        if hasattr(os, "getuid") and os.getuid() == 0:
            command.append("--allow-root")
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                command, cwd=self.root, env=self.env, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                start_new_session=True, preexec_fn=die_with_parent,
            )

    def _wait_ready(self) -> bool:
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False
            try:
                with urllib.request.urlopen(self.url("api/status"), timeout=2) as response:
                    if response.status == 200:
                        return True
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.2)
        return False

    def stop(self) -> None:
        """SIGTERM (the server shuts its kernels down), then SIGKILL the group if it hangs."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(STOP_TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(STOP_TIMEOUT_SECONDS)
        except ProcessLookupError:
            pass

    # -- helpers ---------------------------------------------------------------------------------
    def original(self, path: str) -> Path:
        return self.originals[path]

    def url(self, path: str) -> str:
        separator = "&" if "?" in path else "?"
        return f"http://127.0.0.1:{self.port}/{path}{separator}token={self.token}"

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def running_kernels(self) -> list:
        import json

        with urllib.request.urlopen(self.url("api/kernels"), timeout=5) as response:
            return json.load(response)
