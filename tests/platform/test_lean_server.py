"""delivery/lean_server.py: the learners' Jupyter server starts without rfc3987-syntax and without jupyter_lsp."""

from __future__ import annotations

import json
import subprocess
import sys

from delivery import lean_server


def test_the_project_environment_is_lean():
    """`make lab` ran the tool: the server's imports no longer build rfc3987-syntax's parsers."""
    done = subprocess.run([sys.executable, "-c", "import sys, jupyter_server.serverapp, jupyterlab.labapp; "
                           "print('rfc3987_syntax' in sys.modules)"], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
    config = json.loads(lean_server.config_path(lean_server.Path(sys.prefix)).read_text(encoding="utf-8"))
    assert config["ServerApp"]["jpserver_extensions"] == {"jupyter_lsp": False}


def test_the_server_reads_the_config():
    done = subprocess.run([sys.executable, "-m", "jupyter", "server", "extension", "list"], capture_output=True,
                          text=True, timeout=120)
    listing = done.stdout + done.stderr
    assert "jupyter_lsp" in listing and "jupyterlab" in listing
    line = next(line for line in listing.splitlines() if line.strip().startswith("jupyter_lsp "))
    assert "disabled" in line, line


def test_the_config_is_written_once(tmp_path):
    assert lean_server.write_config(tmp_path) is True
    assert lean_server.write_config(tmp_path) is False
    assert json.loads(lean_server.config_path(tmp_path).read_text(encoding="utf-8")) == lean_server.CONFIG


def test_jsonschema_still_validates_without_the_package():
    done = subprocess.run([sys.executable, "-c", "import jsonschema; "
                           "jsonschema.validate({'a': 1}, {'type': 'object', 'properties': {'a': {'type': 'integer'}}}, "
                           "format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER); print('ok')"],
                          capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "ok"
