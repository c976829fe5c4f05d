"""Issue 36, item 4: the deep tracebacks and hangs a reliability review found, each now a clear error or the
right result (the ones in lessons 01–03 are probed in those lessons' test_bad_input.py)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from lmtie_edu.kit.plotting import heatmap, new_figure
from lmtie_edu.lesson05.experiment import load_digits_split
from lmtie_edu.lesson06.corpus import load_similarity_benchmark
from lmtie_edu.lesson06.figures import gradient_counts_figure
from lmtie_edu.lesson06.summaries import mean_and_spread
from lmtie_edu.lesson07.pitfalls import tiny_gpt2
from tests.probes import Probe, parametrize


def _counts_figure_with_grad():
    counts = torch.tensor([0.0, 0.0, 9.0, 5.0, 1.0])
    inputs = torch.tensor([0.0, 0.0, 0.9, 0.5, 0.1], requires_grad=True)
    outputs = inputs * 2  # computed with autograd on
    return gradient_counts_figure(inputs, outputs, counts, steps=10)


PROBES = [
    Probe("tiny_gpt2 tie numpy bool", lambda: tiny_gpt2(tie=np.bool_(True)).config.tie_word_embeddings,
          check=lambda tied: tied is True),
    Probe("load_digits_split seed 10**40", lambda: load_digits_split(seed=10**40), ValueError, r"seed must be"),
    Probe("load_similarity_benchmark path 5", lambda: load_similarity_benchmark(path=5), TypeError,
          r"path must be the file to read .*got 5 \(int\)"),
    Probe("gradient_counts_figure with tensors that require grad", _counts_figure_with_grad,
          check=lambda fig: fig is not None),
    Probe("mean_and_spread 10**8 values", lambda: mean_and_spread(torch.zeros(1).expand(10**8)), ValueError,
          r"at most 1,000,000 numbers"),
    Probe("mean_and_spread a generator of 10**8 values", lambda: mean_and_spread(float(i) for i in range(10**8)),
          ValueError, r"at most 1,000,000 numbers"),
    Probe("heatmap 10**8 rows", lambda: heatmap(new_figure()[1], torch.zeros(1, 1).expand(10**8, 1)), ValueError,
          r"heatmap draws at most"),
    Probe("heatmap a 3-D tensor", lambda: heatmap(new_figure()[1], torch.zeros(2, 2, 2)), ValueError,
          r"matrix must be 2-D"),
]


@parametrize(PROBES)
def test_deep_error_is_clear(probe):
    probe.run()


@pytest.mark.parametrize("tie", [np.bool_(True), np.bool_(False)])
def test_a_panel_takes_numpy_bool_like_check_bool(tie):
    from lmtie_edu.lesson03.figures import decomposition_panel
    panel = decomposition_panel(tie=tie)
    panel.set(tie=not tie)
    assert panel.values()["tie"] is (not bool(tie))
