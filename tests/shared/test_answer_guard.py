"""A check survives the answer: a loop is stopped, exit() and Ctrl-C are the learner's, printing is capped,
and torch's global state is as before — and the next check in the same session behaves normally."""

import signal
import sys
import time

import torch

from lmtie_edu.kit import answer_guard
from lmtie_edu.kit.exercises import RESULTS
from lmtie_edu.lesson01 import exercises as ex
from lmtie_edu.lesson01 import solutions


def _correct_still_passes(capsys):
    capsys.readouterr()
    assert ex.bag_of_tokens(solutions.bag_of_tokens)
    assert capsys.readouterr().out.startswith("✅ bag_of_tokens: correct")
    assert RESULTS["bag_of_tokens"] is True


def test_a_looping_answer_is_stopped_and_told_so(monkeypatch, capsys):
    monkeypatch.setattr(answer_guard, "TIME_LIMIT_SECONDS", 0.5)

    def loops(W, ids):
        while True:
            pass

    assert not ex.bag_of_tokens(loops)
    out = capsys.readouterr().out
    assert out.startswith("❌ bag_of_tokens: stopped — your code ran for more than 0.5 s"), out
    assert RESULTS["bag_of_tokens"] is False
    _correct_still_passes(capsys)


def test_exit_and_interrupt_in_an_answer_are_the_learners(capsys):
    def exits(W, ids):
        raise SystemExit(3)

    def interrupted(W, ids):
        raise KeyboardInterrupt

    assert not ex.bag_of_tokens(exits)
    assert "your code raised SystemExit: 3" in capsys.readouterr().out
    assert not ex.bag_of_tokens(interrupted)
    assert "your code raised KeyboardInterrupt" in capsys.readouterr().out
    _correct_still_passes(capsys)


def test_what_an_answer_prints_is_capped(capsys):
    def chatty(W, ids):
        for i in range(20_000):
            print("line", i)
        return solutions.bag_of_tokens(W, ids)

    assert ex.bag_of_tokens(chatty)
    out = capsys.readouterr().out
    assert out.count("\n") < 40 and "more characters printed by your code (not shown)" in out
    assert out.rstrip().splitlines()[-1].startswith("✅ bag_of_tokens: correct")


def test_one_huge_line_is_capped_by_characters(capsys):
    def shouts(W, ids):
        print("x" * 3_000_000)
        return solutions.bag_of_tokens(W, ids)

    assert ex.bag_of_tokens(shouts)
    out = capsys.readouterr().out
    assert len(out) < 6_000 and "more characters printed by your code (not shown)" in out
    assert out.rstrip().splitlines()[-1].startswith("✅ bag_of_tokens: correct")


def test_a_huge_or_unprintable_error_message_is_the_learners_and_is_capped(capsys):
    class Unprintable(Exception):
        def __str__(self):
            raise RuntimeError("no")

    def raises_huge(W, ids):
        raise ValueError("y" * 3_000_000)

    def raises_unprintable(W, ids):
        raise Unprintable()

    assert not ex.bag_of_tokens(raises_huge)
    out = capsys.readouterr().out
    assert len(out) < 2_000 and "your code raised ValueError: yyy" in out and "a bug in lmtie_edu" not in out
    assert not ex.bag_of_tokens(raises_unprintable)
    out = capsys.readouterr().out
    assert "your code raised Unprintable: (its message cannot be shown" in out and "a bug in lmtie_edu" not in out


def test_an_answer_whose_repr_raises_is_told_so(capsys):
    class Unshowable(list):
        def __repr__(self):
            raise RuntimeError("no")

    def returns_unshowable(W, ids):
        return Unshowable([1, 2])

    assert not ex.bag_of_tokens(returns_unshowable)
    out = capsys.readouterr().out
    assert "a bug in lmtie_edu" not in out and "❌ bag_of_tokens" in out


def test_global_torch_state_is_restored(capsys):
    torch.manual_seed(123)
    expected_next = torch.rand(3)
    torch.manual_seed(123)

    def changes_everything(W, ids):
        torch.set_default_dtype(torch.float64)
        torch.set_grad_enabled(False)
        torch.manual_seed(0)
        torch.rand(100)
        return solutions.bag_of_tokens(W, ids)

    ex.bag_of_tokens(changes_everything)
    assert torch.get_default_dtype() == torch.float32 and torch.is_grad_enabled()
    assert torch.equal(torch.rand(3), expected_next)  # the learner's random stream goes on as if untouched
    capsys.readouterr()


def test_an_answer_that_switches_global_state_gets_a_verdict_about_its_answer(capsys):
    from lmtie_edu.lesson05 import exercises as ex05
    from lmtie_edu.lesson05 import solutions as sol05

    def gradient_then_grad_off(W, b, c, x):      # right, but leaves autograd off for the checker
        torch.set_grad_enabled(False)
        return sol05.tied_gradient(W, b, c, x)

    def bag_then_float64(W, ids):                # right, but leaves float64 as the default dtype
        torch.set_default_dtype(torch.float64)
        return solutions.bag_of_tokens(W, ids)

    def bag_and_silence(W, ids):                 # right, but replaces print
        import builtins
        builtins.print = lambda *args, **kwargs: None
        return solutions.bag_of_tokens(W, ids)

    assert ex05.tied_gradient(gradient_then_grad_off)
    assert ex.bag_of_tokens(bag_then_float64)
    assert ex.bag_of_tokens(bag_and_silence)
    out = capsys.readouterr().out
    assert "a bug in lmtie_edu" not in out and out.count("✅") == 3
    assert torch.is_grad_enabled() and torch.get_default_dtype() == torch.float32


def test_numpy_and_python_random_states_and_threads_are_restored(capsys):
    import random

    import numpy as np

    def reseeds(W, ids):
        np.random.seed(99)  # noqa: NPY002 — the legacy global generator is what the guard restores
        random.seed(99)
        torch.set_num_threads(1)
        return solutions.bag_of_tokens(W, ids)

    np.random.seed(1)  # noqa: NPY002 — the legacy global generator is what the guard restores
    random.seed(1)
    threads = torch.get_num_threads()
    expected = (np.random.random(), random.random())  # noqa: NPY002 — the legacy global generator is what the guard restores
    np.random.seed(1)  # noqa: NPY002 — the legacy global generator is what the guard restores
    random.seed(1)
    assert ex.bag_of_tokens(reseeds)
    assert (np.random.random(), random.random()) == expected and torch.get_num_threads() == threads  # noqa: NPY002 — the legacy global generator is what the guard restores


def _stopped_within(capsys, answer, limit: float, monkeypatch) -> float:
    monkeypatch.setattr(answer_guard, "TIME_LIMIT_SECONDS", limit)
    start = time.monotonic()
    assert not ex.bag_of_tokens(answer)
    took = time.monotonic() - start
    out = capsys.readouterr().out
    assert out.startswith(f"❌ bag_of_tokens: stopped — your code ran for more than {limit:g} s"), out
    return took


def swallows(W, ids):
    """An answer that catches every exception, the time-out too, and goes on."""
    while True:
        try:
            time.sleep(0.05)
        except BaseException:  # noqa: BLE001 — what a learner might write to "keep going"
            pass


def test_an_answer_that_swallows_the_timeout_is_stopped_all_the_same(monkeypatch, capsys):
    assert _stopped_within(capsys, swallows, 0.5, monkeypatch) < 0.5 + 5
    _correct_still_passes(capsys)


def test_an_answer_that_ignores_or_cancels_the_alarm_is_stopped(monkeypatch, capsys):
    def ignores(W, ids):
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        while True:
            pass

    def cancels(W, ids):
        signal.setitimer(signal.ITIMER_REAL, 0)
        while True:
            pass

    before = signal.getsignal(signal.SIGALRM)
    for answer in (ignores, cancels):
        assert _stopped_within(capsys, answer, 0.5, monkeypatch) < 0.5 + 5
        assert signal.getsignal(signal.SIGALRM) == before  # the answer's SIG_IGN does not outlive the check
        _correct_still_passes(capsys)


def test_an_answer_that_catches_the_timeout_and_returns_late_is_stopped(monkeypatch, capsys):
    def returns_late(W, ids):
        try:
            while True:
                pass
        except BaseException:  # noqa: BLE001
            return solutions.bag_of_tokens(W, ids)

    assert _stopped_within(capsys, returns_late, 0.5, monkeypatch) < 0.5 + 5
    _correct_still_passes(capsys)


def test_tracing_is_handed_back(capsys):
    seen = []

    def tracer(frame, event, arg):
        seen.append(event)

    sys.settrace(tracer)
    try:
        assert ex.bag_of_tokens(solutions.bag_of_tokens)
        assert sys.gettrace() is tracer
    finally:
        sys.settrace(None)
    capsys.readouterr()


def test_an_answer_that_ignores_the_interrupt_is_stopped_and_the_handler_put_back(monkeypatch, capsys):
    def ignores_sigint(W, ids):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        while True:
            pass

    before = signal.getsignal(signal.SIGINT)
    assert _stopped_within(capsys, ignores_sigint, 0.5, monkeypatch) < 0.5 + 5
    assert signal.getsignal(signal.SIGINT) == before
    _correct_still_passes(capsys)
    assert _stopped_within(capsys, swallows, 0.5, monkeypatch) < 0.5 + 5  # the next time-out still works
