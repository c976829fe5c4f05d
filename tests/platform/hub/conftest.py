"""The hub tests run only when asked for (`-m hub`, as `make test-hub` does): they start a JupyterHub,
a proxy and one server per simulated student, which the default `pytest` run must not do."""

from __future__ import annotations

import pytest


def pytest_configure(config):
    config.addinivalue_line("markers", "hub: starts a real JupyterHub with simulated students (make test-hub)")


def pytest_collection_modifyitems(config, items):
    if "hub" in (config.getoption("markexpr", "") or ""):
        return
    skip = pytest.mark.skip(reason="the hub test runs with `make test-hub` (-m hub)")
    for item in items:
        if "hub" in item.keywords:
            item.add_marker(skip)


def pytest_terminal_summary(terminalreporter):
    from delivery.hub.students import CLASS_REPORT

    if CLASS_REPORT:
        terminalreporter.write_sep("-", "class on one JupyterHub (measured; also build/hub-class-test.json)")
        for key, value in CLASS_REPORT.items():
            terminalreporter.write_line(f"{key}: {value}")
