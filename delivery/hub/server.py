"""A real JupyterHub on 127.0.0.1 for the class test and the class benchmark.

JupyterHub (PyPI) and nbgitpuller live in ``build/hub-venv``, a venv layered over the project's .venv
(a .pth file adds the .venv's site-packages), so the single-user servers run the course's own
JupyterLab, ipywidgets and lmtie_edu plus nbgitpuller. The proxy is configurable-http-proxy from npm in
``build/hub-node``; ``make hub-env`` (delivery/hub.mk) installs both. Authenticator: ``DummyAuthenticator``
(any name, any password); spawner: ``SimpleLocalProcessSpawner`` with every student's home a folder
of the scratch directory. Everything binds to 127.0.0.1 on free ports.

:meth:`HubServer.stop` sends SIGTERM (the hub stops the single-user servers and the proxy), then kills
by pid whatever it started that is still alive, and reports those pids: the caller asserts none.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import psutil

from delivery.lab.processes import die_with_parent, free_port

REPO = Path(__file__).resolve().parents[2]
HUB_VENV = Path(os.environ.get("LMTIE_HUB_VENV", REPO / "build" / "hub-venv"))
HUB_NODE = Path(os.environ.get("LMTIE_HUB_NODE", REPO / "build" / "hub-node"))
PROJECT_VENV = Path(sys.prefix)  # the .venv running pytest / the benchmark
LAB_SETTINGS = REPO / "delivery" / "lab" / "jupyterlab-settings"  # default windowing, no news, no autosave
HUB_TEMPLATES = REPO / "deploy" / "jupyterhub" / "templates"  # the hub pages a class needs (see page.html)
START_TIMEOUT_S = 60
STOP_TIMEOUT_S = 30
TARGET = "lmtie_edu"  # the folder nbgitpuller pulls the course into, in each student's home
BRANCH = "students/main"  # what delivery/student_branch.py writes from main



def missing_tools() -> list[str]:
    """What `make hub-env` must install first (empty when the hub can start)."""
    needed = [HUB_VENV / "bin" / "jupyterhub", HUB_VENV / "bin" / "jupyterhub-singleuser",
              HUB_NODE / "node_modules" / ".bin" / "configurable-http-proxy"]
    missing = [str(path) for path in needed if not path.exists()]
    if shutil.which("git") is None:
        missing.append("git")
    return missing


INSTRUCTOR = {"GIT_AUTHOR_NAME": "Instructor", "GIT_AUTHOR_EMAIL": "instructor@example.invalid",
              "GIT_COMMITTER_NAME": "Instructor", "GIT_COMMITTER_EMAIL": "instructor@example.invalid"}


def git(*args: str, cwd: Path) -> str:
    env = {**os.environ, **INSTRUCTOR}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


class CourseRepo:
    """The instructor's upstream: a bare repository with the course's students' branch, served as file://.

    nbgitpuller runs plain ``git clone``/``git fetch`` on the ``repo`` URL, so a file:// URL of a
    local bare repository works as well as https (no web server needed). Its branch is what
    ``python -m delivery.student_branch`` writes from this repository's HEAD (in a clean clone: the
    committed lessons), so the notebooks match the lmtie_edu package the kernels import and the
    students get no solutions.
    """

    def __init__(self, scratch: Path):
        from delivery.student_branch import write_branch

        source = scratch / "course"
        git("clone", "-q", "--no-checkout", str(REPO), str(source), cwd=scratch)
        git("fetch", "-q", str(REPO), "HEAD", cwd=source)  # this checkout's HEAD, whatever branch it is on
        write_branch("FETCH_HEAD", BRANCH, repo=source, author=INSTRUCTOR)
        self.work = scratch / "instructor"
        self.bare = scratch / "upstream" / "lmtie_edu.git"
        git("clone", "-q", "--branch", BRANCH, str(source), str(self.work), cwd=scratch)
        self.bare.parent.mkdir(parents=True)
        git("clone", "-q", "--bare", "--branch", BRANCH, str(self.work), str(self.bare), cwd=scratch)
        git("remote", "add", "upstream", str(self.bare), cwd=self.work)

    @property
    def url(self) -> str:
        return self.bare.as_uri()

    def publish(self, relative: str, text: str, message: str) -> None:
        """The instructor changes a file and pushes (what students get on their next pull)."""
        (self.work / relative).write_text(text)
        git("add", "-A", cwd=self.work)
        git("commit", "-q", "-m", message, cwd=self.work)
        git("push", "-q", "upstream", BRANCH, cwd=self.work)


def pull_link(hub_url: str, repo_url: str, notebook: str, *, branch: str = BRANCH, target: str = TARGET) -> str:
    """The nbgitpuller link a teacher shares: log in, start the server, pull, open the lesson."""
    query = urllib.parse.urlencode({
        "repo": repo_url, "branch": branch, "targetpath": target,
        "urlpath": f"lab/tree/{target}/notebooks/{notebook}",
    })
    return f"{hub_url.rstrip('/')}/hub/user-redirect/git-pull?{query}"


CONFIG_TEMPLATE = """\
import shutil
c = get_config()  # noqa
c.JupyterHub.bind_url = {bind_url!r}
c.JupyterHub.hub_bind_url = {hub_bind_url!r}
c.ConfigurableHTTPProxy.api_url = {proxy_api_url!r}
c.ConfigurableHTTPProxy.command = [{proxy!r}]
c.ConfigurableHTTPProxy.pid_file = {proxy_pid!r}
c.JupyterHub.db_url = {db_url!r}
c.JupyterHub.cookie_secret_file = {cookie_secret!r}
c.JupyterHub.pid_file = {hub_pid!r}
c.JupyterHub.cleanup_servers = True
c.JupyterHub.cleanup_proxy = True
c.JupyterHub.authenticator_class = "dummy"
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = {homes!r} + "/{{username}}"
c.Spawner.cmd = [{singleuser!r}]
c.Spawner.ip = "127.0.0.1"
c.Spawner.default_url = "/lab"
c.Spawner.notebook_dir = "~"
c.Spawner.args = {args!r}
c.Spawner.environment = {environment!r}
c.Spawner.start_timeout = 600  # a class arriving at once on 2 cores: spawning is slow, not failed
c.Spawner.http_timeout = 600
c.JupyterHub.concurrent_spawn_limit = 0
c.JupyterHub.template_paths = [{templates!r}]  # the same pages as the Kubernetes deployment (config.yaml)

def seed_lab_settings(spawner):
    # JupyterLab's default windowing (every cell in the DOM), no news toast, no autosave.
    target = spawner.home_dir + "/.jupyter/lab/user-settings"
    shutil.copytree({settings!r}, target, dirs_exist_ok=True)

c.Spawner.pre_spawn_hook = seed_lab_settings
"""


class HubServer:
    """A running JupyterHub; ``url`` is the proxy's public address (what students open)."""

    def __init__(self, scratch: Path):
        self.scratch = scratch
        self.homes = scratch / "homes"
        self.homes.mkdir(parents=True, exist_ok=True)
        self.log_path = scratch / "jupyterhub.log"
        self.config_path = scratch / "jupyterhub_config.py"
        self.process: subprocess.Popen | None = None
        self.port = 0
        # Every process seen under the hub, as (pid, start time): stop() must see them gone. The start
        # time makes sure a pid the system has since given to another program is never touched.
        self.started: set[tuple[int, float]] = set()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _write_config(self) -> None:
        self.port = free_port()
        args = ["--LabApp.expose_app_in_browser=True", "--ServerApp.port_retries=0"]
        if hasattr(os, "getuid") and os.getuid() == 0:
            args.append("--allow-root")
        environment = {
            # The course's JupyterLab, widget front end and server extensions are in the project .venv.
            "JUPYTER_CONFIG_PATH": str(PROJECT_VENV / "etc" / "jupyter"),
            "JUPYTER_PATH": str(PROJECT_VENV / "share" / "jupyter"),
            "MPLCONFIGDIR": str(REPO / "build" / "matplotlib"),
            "PYDEVD_DISABLE_FILE_VALIDATION": "1",
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        }
        self.config_path.write_text(CONFIG_TEMPLATE.format(
            bind_url=f"{self.url}/", hub_bind_url=f"http://127.0.0.1:{free_port()}",
            proxy_api_url=f"http://127.0.0.1:{free_port()}",
            proxy=str(HUB_NODE / "node_modules" / ".bin" / "configurable-http-proxy"),
            proxy_pid=str(self.scratch / "proxy.pid"), hub_pid=str(self.scratch / "hub.pid"),
            db_url=f"sqlite:///{self.scratch / 'jupyterhub.sqlite'}",
            cookie_secret=str(self.scratch / "cookie_secret"), homes=str(self.homes),
            singleuser=str(HUB_VENV / "bin" / "jupyterhub-singleuser"), args=args, environment=environment,
            settings=str(LAB_SETTINGS), templates=str(HUB_TEMPLATES),
        ))

    def start(self) -> HubServer:
        missing = missing_tools()
        if missing:
            raise RuntimeError(f"the hub's tools are not installed (run `make hub-env`): {', '.join(missing)}")
        for _attempt in range(3):  # another process may take a probed port before the hub binds it
            self._write_config()
            env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTERHUB_", "JPY_"))}
            env["PATH"] = f"{HUB_VENV / 'bin'}:{env.get('PATH', '')}"
            with open(self.log_path, "ab") as log:
                self.process = subprocess.Popen(
                    [str(HUB_VENV / "bin" / "jupyterhub"), "-f", str(self.config_path)],
                    cwd=self.scratch, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                    start_new_session=True, preexec_fn=die_with_parent,
                )
            if self._wait_ready():
                self.remember_processes()
                return self
            self.stop()
        raise RuntimeError(f"JupyterHub did not start; log tail:\n{self.log_tail()}")

    def _wait_ready(self) -> bool:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False
            try:
                with urllib.request.urlopen(f"{self.url}/hub/api/", timeout=2) as response:
                    if response.status == 200 and "version" in json.load(response):
                        return True
            except (urllib.error.URLError, ConnectionError, TimeoutError, ValueError):
                pass
            time.sleep(0.2)
        return False

    # -- processes -------------------------------------------------------------------------------
    def processes(self) -> list[psutil.Process]:
        """The hub and everything under it: proxy, single-user servers, kernels."""
        if self.process is None:
            return []
        try:
            hub = psutil.Process(self.process.pid)
            return [hub, *hub.children(recursive=True)]
        except psutil.NoSuchProcess:
            return []

    def remember_processes(self) -> None:
        for proc in self.processes():
            try:
                self.started.add((proc.pid, proc.create_time()))
            except psutil.NoSuchProcess:
                continue

    def student_servers(self) -> dict[str, psutil.Process]:
        """Each student's single-user server process, by user name."""
        servers = {}
        for proc in self.processes()[1:]:
            try:
                if any("jupyterhub-singleuser" in part for part in proc.cmdline()):
                    servers[proc.environ().get("JUPYTERHUB_USER", str(proc.pid))] = proc
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
        return servers

    def stop(self) -> list[str]:
        """Stop the hub (it stops servers, kernels, proxy); kill by pid what survives. Returns survivors."""
        self.remember_processes()
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            os.kill(process.pid, signal.SIGTERM)
            try:
                process.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                os.kill(process.pid, signal.SIGKILL)
                process.wait(STOP_TIMEOUT_S)
        survivors = []
        deadline = time.monotonic() + 10
        for pid, created in sorted(self.started):
            try:
                proc = psutil.Process(pid)
                if proc.create_time() != created:
                    continue  # that process ended; the pid now belongs to someone else
                while proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE and time.monotonic() < deadline:
                    time.sleep(0.1)
                if proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE:
                    survivors.append(f"{pid} {' '.join(proc.cmdline())[:200]}")
                    proc.kill()
            except psutil.NoSuchProcess:
                continue
        return survivors

    def log_tail(self, lines: int = 60) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"


def tree_rss(proc: psutil.Process) -> int:
    """Resident memory of a process and its descendants (a student's server + kernel), in bytes."""
    total = 0
    try:
        members = [proc, *proc.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0
    for member in members:
        try:
            total += member.memory_info().rss
        except psutil.NoSuchProcess:
            continue
    return total
