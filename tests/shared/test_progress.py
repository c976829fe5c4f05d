"""The progress bar of training loops: nothing outside a kernel, a bar inside one."""

from lmtie_edu.shared.progress import Progress


def test_progress_outside_a_kernel_shows_nothing_and_yields_everything():
    progress = Progress(range(5), "training")
    assert list(progress) == [0, 1, 2, 3, 4]
    assert progress.bar is None
    progress.note("ignored")  # no error without a bar


def test_progress_bar_counts_steps_when_shown():
    progress = Progress(range(3), "training", show=True)
    assert list(progress) == [0, 1, 2]
    assert progress.bar.value == 3 and progress.bar.max == 3 and progress.bar.bar_style == "success"
