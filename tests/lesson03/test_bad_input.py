"""Lesson 03: what a learner can type into its helpers, figures, panel and checks (issue 24)."""

import numpy as np
import torch

from lmtie_edu.kit.exercises import HINTS_SHOWN
from lmtie_edu.lesson03 import exercises as ex
from lmtie_edu.lesson03 import figures, solutions
from lmtie_edu.lesson03.gradients import gradient_parts, rows_touched, untied_twin
from lmtie_edu.shared.models import TinyLM
from lmtie_edu.shared.toy_corpus import zipf_corpus
from tests.probes import Probe, parametrize

G = torch.randn(6, 4, generator=torch.Generator().manual_seed(0))
CORPUS = zipf_corpus(200, 12, seed=0)
SHARE = torch.full((12,), 0.5)


def _tied(seed=0):
    torch.manual_seed(seed)
    return TinyLM(12, 6, context=2, tie=True)


def _heatmaps(n=3, **kwargs):
    return figures.plot_gradient_heatmaps([G] * n, [f"m{i}" for i in range(n)], **kwargs)


def _set(**values):
    panel = figures.decomposition_panel()
    panel.set(**values)
    return panel.values()


def _refused(**values):
    """set() raised ValueError naming the control and the options, and left the panel as it was."""
    panel = figures.decomposition_panel()
    before = (panel.values(), dict(panel.result.numbers), panel.image.value)
    try:
        panel.set(**values)
    except ValueError as error:
        name = next(iter(values))
        return (str(error).startswith(f"{name} must be one of [0, 1, 2")
                and (panel.values(), dict(panel.result.numbers), panel.image.value) == before)
    return False


def _panel_loss_after_spoiling_the_demo():
    loss = figures.decomposition_figure(2, 3, 4).numbers["loss"]
    demo = figures.demo_model()
    with torch.no_grad():
        demo.embedding.weight.mul_(10)                  # the learner changes the model they were given
    figures._cached_parts.cache_clear()
    again = figures.decomposition_figure(2, 3, 4).numbers["loss"]
    fresh = figures.demo_model()
    return loss == again and not torch.equal(fresh.embedding.weight, demo.embedding.weight) and fresh.tied


def _frequency(untied_input=SHARE, untied_output=SHARE, tied=SHARE):
    return figures.update_frequency_figure(CORPUS, untied_input, untied_output, tied)


HEATMAPS = [
    Probe("12 matrices, no size given", lambda: _heatmaps(12).get_size_inches()[0], check=lambda width: width <= 40),
    Probe("40 matrices", lambda: _heatmaps(40), ValueError, r"at most 12 matrices.*got 40"),
    Probe("titles None", lambda: figures.plot_gradient_heatmaps([G], None), TypeError, r"titles must be a list of 1"),
    Probe("titles not text", lambda: figures.plot_gradient_heatmaps([G], [1]), TypeError, r"titles\[0\] must be text"),
    Probe("a matrix as a list", lambda: figures.plot_gradient_heatmaps([G.tolist()], ["a"]), TypeError,
          r"matrices\[0\] must be a torch.Tensor"),
    Probe("a 1-D matrix", lambda: figures.plot_gradient_heatmaps([G[0]], ["a"]), ValueError, r"matrices\[0\] .*2-D"),
    Probe("a complex matrix", lambda: figures.plot_gradient_heatmaps([G.to(torch.complex64)], ["a"]), TypeError,
          r"matrices\[0\] must hold real numbers"),
    Probe("a bool matrix", lambda: figures.plot_gradient_heatmaps([G > 0], ["a"]), TypeError,
          r"matrices\[0\] must hold real numbers"),
    Probe("a bfloat16 matrix", lambda: figures.plot_gradient_heatmaps([G.bfloat16()], ["a"]), check=bool),
    Probe("an integer matrix", lambda: figures.plot_gradient_heatmaps([G.long()], ["a"]), check=bool),
    Probe("a sparse matrix", lambda: figures.plot_gradient_heatmaps([G.to_sparse()], ["a"]), check=bool),
    Probe("a meta matrix", lambda: figures.plot_gradient_heatmaps([G.to("meta")], ["a"]), ValueError, r"meta"),
    Probe("a matrix of 50 million entries", lambda: figures.plot_gradient_heatmaps(
        [torch.zeros(1, 1).expand(50_000, 1_000)], ["a"]), ValueError, r"at most 4,000,000 entries"),
    Probe("NaN matrix", lambda: figures.plot_gradient_heatmaps([G * float("nan")], ["a"]), ValueError, r"NaN or inf"),
    Probe("inputs as a 2-D tensor", lambda: _heatmaps(inputs=torch.tensor([[1, 2], [2, 5]])), check=bool),
    Probe("inputs as one int", lambda: _heatmaps(inputs=3, targets=np.int64(4)), check=bool),
    Probe("inputs out of range", lambda: _heatmaps(inputs=[6]), ValueError, r"inputs must lie in \[0, 5\]"),
    Probe("suptitle not text", lambda: _heatmaps(suptitle=3), TypeError, r"suptitle must be text"),
    Probe("1000 rows: few tick labels", lambda: len(figures.plot_gradient_heatmaps(
        [torch.randn(1000, 3)], ["a"]).axes[0].get_yticks()), check=lambda ticks: ticks <= 20),
]

FREQUENCY = [
    Probe("a share as a list", lambda: _frequency(untied_input=[0.5] * 12), TypeError, r"untied: input rows.*tensor"),
    Probe("a share that requires grad", lambda: _frequency(tied=SHARE.clone().requires_grad_()), check=bool),
    Probe("a share with NaN", lambda: _frequency(tied=SHARE * float("nan")), ValueError, r"tied.*\[0, 1\]"),
    Probe("a complex share", lambda: _frequency(tied=SHARE.to(torch.complex64)), TypeError, r"tied.*real numbers"),
    Probe("a meta share", lambda: _frequency(tied=SHARE.to("meta")), ValueError, r"tied.*meta"),
    Probe("a bfloat16 share", lambda: _frequency(tied=SHARE.bfloat16()), check=bool),
    Probe("corpus None", lambda: figures.update_frequency_figure(None, SHARE, SHARE, SHARE), TypeError,
          r"corpus must be a ZipfCorpus"),
]

PANEL = [
    Probe("demo_model() changed: the panel's loss stays the demo's", _panel_loss_after_spoiling_the_demo, check=bool),
    Probe("decomposition_figure first numpy int", lambda: figures.decomposition_figure(np.int64(2), 3, 4).numbers,
          check=lambda numbers: numbers == figures.decomposition_figure(2, 3, 4).numbers),
    Probe("decomposition_figure first 2.0", lambda: figures.decomposition_figure(2.0, 3, 4), TypeError,
          r"first must be a token id"),
    Probe("decomposition_figure target 16", lambda: figures.decomposition_figure(2, 3, 16), ValueError,
          r"target must lie in \[0, 15\]"),
    Probe("decomposition_panel first numpy int", lambda: figures.decomposition_panel(first=np.int64(2)).values(),
          check=lambda values: values["first"] == 2),
    Probe("decomposition_panel tie None", lambda: figures.decomposition_panel(tie=None), TypeError, r"tie must be"),
    Probe("decomposition_panel second -1", lambda: figures.decomposition_panel(second=-1), ValueError,
          r"second must be a token id in \[0, 15\]; got -1"),
    # issue 36, item 4: a TraitError from ipywidgets for NumPy's bool before; set() took True, 2.0 and 5+0j as the
    # equal token id (the dropdown stores the option) while the constructor refused them
    Probe("decomposition_panel tie numpy bool", lambda: figures.decomposition_panel(tie=np.bool_(False)).values(),
          check=lambda values: values["tie"] is False),
    Probe("decomposition_panel set(tie=numpy bool)", lambda: _set(tie=np.bool_(False))["tie"], check=lambda t: t is False),
    Probe("decomposition_panel second True", lambda: figures.decomposition_panel(second=True), ValueError,
          r"second must be a token id"),
    Probe("decomposition_panel set(second=True) refused, panel unchanged", lambda: _refused(second=True), check=bool),
    Probe("decomposition_panel first 5+0j", lambda: figures.decomposition_panel(first=5 + 0j), ValueError,
          r"first must be a token id"),
    Probe("decomposition_panel set(first=5+0j) refused, panel unchanged", lambda: _refused(first=5 + 0j), check=bool),
    Probe("decomposition_panel first 2.0", lambda: figures.decomposition_panel(first=2.0), ValueError,
          r"first must be a token id"),
    Probe("decomposition_panel set(first=2.0) refused, panel unchanged", lambda: _refused(first=2.0), check=bool),
    Probe("decomposition_panel set(first=numpy int)", lambda: _set(first=np.int64(5))["first"], check=lambda v: v == 5),
]

GRADIENTS = [
    Probe("rows_touched of a sparse grad", lambda: rows_touched(G.to_sparse()), check=lambda n: n == 6),
    Probe("rows_touched of None", lambda: rows_touched(None), TypeError, r"grad must be a torch.Tensor.*backward"),
    Probe("rows_touched of a (0, 3) grad", lambda: rows_touched(torch.zeros(0, 3)), check=lambda n: n == 0),
    Probe("gradient_parts inputs 1-D", lambda: gradient_parts(_tied(), [2, 5], [3]), ValueError,
          r"inputs must be a \(batch, context\) matrix of token ids, shape \(1, 2\); got shape \(2,\)"),
    Probe("gradient_parts inputs of the wrong width", lambda: gradient_parts(_tied(), [[2, 5, 1]], [3]), ValueError,
          r"inputs must have shape .*\(1, 2\); got \(1, 3\)"),
    Probe("gradient_parts NaN model", lambda: gradient_parts(_nan_model(), [[2, 5]], [3]), ValueError,
          r"model has NaN or inf"),
    Probe("gradient_parts float64 model", lambda: gradient_parts(_tied().double(), [[2, 5]], [3])["max_abs_diff"],
          check=lambda diff: diff < 1e-12),
    Probe("gradient_parts huge batch", lambda: gradient_parts(_tied(), torch.zeros(1_000_000, 2, dtype=torch.long),
                                                              torch.zeros(1_000_000, dtype=torch.long)),
          ValueError, r"at most 10,000,000"),
    Probe("untied_twin of an untied model", lambda: untied_twin(TinyLM(12, 6, tie=False)), ValueError, r"must be tied"),
]


def _nan_model():
    model = _tied()
    with torch.no_grad():
        model.body[0].weight[0, 0] = float("nan")
    return model


# -- exercise checks: an answer that mutates its inputs cannot change the reference ----------------------------------

def _verdict(name, answer):
    HINTS_SHOWN.pop(name, None)
    return bool(getattr(ex, name)(answer))


def _starved_then_spoil(inputs, targets, vocab_size):
    result = solutions.starved_input_rows(inputs, targets, vocab_size)
    inputs.zero_()
    targets.zero_()
    return result


def _empty_after_spoiling(inputs, targets, vocab_size):
    targets.copy_(inputs[:, 0])                         # every target is read: a reference taken now would be []
    return []


def _head_then_spoil(h, W_out, target):
    result = solutions.head_gradient(h, W_out, target)
    h.zero_()
    W_out.zero_()
    return result


CHECKS = [
    Probe("starved_input_rows: right answer that then zeroes its inputs",
          lambda: _verdict("starved_input_rows", _starved_then_spoil), check=lambda passed: passed),
    Probe("starved_input_rows: [] after making every target read",
          lambda: _verdict("starved_input_rows", _empty_after_spoiling), check=lambda passed: not passed),
    Probe("head_gradient: right answer that then zeroes h and W_out",
          lambda: _verdict("head_gradient", _head_then_spoil), check=lambda passed: passed),
]

PROBES = HEATMAPS + FREQUENCY + PANEL + GRADIENTS + CHECKS


@parametrize(PROBES)
def test_bad_input(probe, capsys):
    probe.run()
