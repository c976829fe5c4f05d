"""Bad-input probes (issue 24), shared by the lessons' test_bad_input.py files.

A probe is a call and what it must give: an error of a type whose message matches a regex (naming the argument
and the expected value), or a result that ``check`` accepts. :func:`classify` sorts an outcome into the issue's
kinds — (a) deep traceback, (b) silent wrong result, (c) misleading message, (d) hang, (e) clear error,
(f) correct result — for the before/after counts (``python -m tests.probes``).
"""

from __future__ import annotations

import re
import threading
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import pytest


@dataclass
class Probe:
    name: str
    call: Callable
    raises: type[BaseException] | None = None
    match: str = ""
    check: Callable | None = None     # result -> bool; None with raises=None: any result without an error

    def run(self) -> None:
        """Assert the expected outcome (what the tests do)."""
        if self.raises is not None:
            with pytest.raises(self.raises, match=self.match):
                self.call()
        else:
            result = self.call()
            assert self.check is None or self.check(result), f"{self.name}: wrong result {result!r:.200}"


def parametrize(probes: list[Probe]):
    return pytest.mark.parametrize("probe", probes, ids=[p.name for p in probes])


def classify(probe: Probe, timeout: float = 20.0) -> str:
    """One letter of the issue's kinds for this probe's outcome."""
    outcome: dict = {}

    def target():
        try:
            outcome["result"] = probe.call()
        except BaseException as error:  # noqa: BLE001 — every outcome is counted
            outcome["error"] = error

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        return "d"
    error = outcome.get("error")
    if error is None:
        if probe.raises is not None:
            return "b"
        return "f" if probe.check is None or probe.check(outcome["result"]) else "b"
    if probe.raises is not None and isinstance(error, probe.raises) and re.search(probe.match, str(error)):
        return "e"
    last = traceback.extract_tb(error.__traceback__)[-1].filename
    return "c" if "lmtie_edu" in last and isinstance(error, (TypeError, ValueError)) else "a"


def count(probes: list[Probe]) -> Counter:
    kinds = Counter()
    for probe in probes:
        kind = classify(probe)
        kinds[kind] += 1
        if kind not in "ef":
            print(f"  ({kind}) {probe.name}")
    return kinds


if __name__ == "__main__":
    import importlib

    total = Counter()
    for lesson in ("lesson01", "lesson02", "lesson03"):
        module = importlib.import_module(f"tests.{lesson}.test_bad_input")
        print(lesson)
        kinds = count(module.PROBES)
        print(f"  {len(module.PROBES)} probes: {dict(sorted(kinds.items()))}")
        total += kinds
    print(f"all: {sum(total.values())} probes: {dict(sorted(total.items()))}")


def assert_all_refused(cases) -> None:
    """Each ``(call, error type, message regex)`` must raise that error with that message; report every miss."""
    failures = []
    for call, error, message in cases:
        try:
            with pytest.raises(error, match=message):
                call()
        except BaseException as failure:  # noqa: BLE001 — collect every probe's outcome
            failures.append(f"{message}: {type(failure).__name__}: {str(failure)[:200]}")
    assert not failures, "\n".join(failures)
