"""Issue 24 probes of the shared helpers and the plotting kit, grouped by the lessons that call them.

Each probe is a bad (or borderline) input with what must happen: ``(ErrorType, message regex)`` for a clear
refusal that names the argument and what was expected, or a predicate on the result for a correct answer.
Limits that bound memory or time must refuse *before* any allocation, so every probe here is fast.
"""

import numpy as np
import pytest
import torch
from matplotlib.figure import Figure
from torch import nn

from lmtie_edu.kit.panels import PanelResult, report
from lmtie_edu.kit.plotting import figure_to_png, heatmap, new_figure, show
from lmtie_edu.shared.models import TinyLM, check_context_ids, count_parameters
from lmtie_edu.shared.notebook import setup_lesson
from lmtie_edu.shared.positions import sinusoidal_positions
from lmtie_edu.shared.progress import Progress
from lmtie_edu.shared.seeding import seeded
from lmtie_edu.shared.toy_corpus import zipf_corpus, zipf_probabilities
from lmtie_edu.shared.training import make_windows, train
from lmtie_edu.shared.tying import shares_storage
from lmtie_edu.shared.validation import check_bool, check_choice, check_matrix, check_token_ids

NAN = float("nan")


def _ax():
    return new_figure()[1]


def _model():
    with seeded(0):
        return TinyLM(6, 4)


def _xy(context=2):
    return torch.zeros(4, context, dtype=torch.long), torch.ones(4, dtype=torch.long)


def _sparse_rows():
    return torch.tensor([[0.0, 0.0], [1.0, 2.0]]).to_sparse()


def _with_seed(seed):
    torch.manual_seed(5)
    expected = torch.rand(2)
    torch.manual_seed(5)
    setup_lesson(seed=seed)
    return not torch.equal(torch.rand(2), expected)  # setup_lesson reseeds (that is its job)


def _is_figure_shown(value):
    return value is None


PROBES = {
    # -- toy corpus (lessons 02, 03) -------------------------------------------------------------
    "zipf context=1000 (12 GB)": (lambda: zipf_corpus(context=1000), ValueError, r"context.*GB|GB.*context"),
    "zipf vocab 1e6 (13.5 GB)": (lambda: zipf_corpus(vocab_size=1_000_000),
                                 lambda c: c.as_input.shape == (1_000_000,) and int(c.as_target.sum()) == len(c.targets)),
    "zipf 4e6 sentences (minutes)": (lambda: zipf_corpus(4_000_000), ValueError, r"n_sentences.*at most"),
    "zipf mean_length 1e7": (lambda: zipf_corpus(10, mean_length=10**7), ValueError, r"at most"),
    "zipf seed 2**70": (lambda: zipf_corpus(10, seed=2**70), ValueError, r"seed must be an integer >= 0"),
    "zipf numpy sizes": (lambda: zipf_corpus(np.int64(20), np.int64(10), context=np.int64(2), seed=np.int64(0)),
                         lambda c: c.inputs.shape[1] == 2),
    "zipf context '2'": (lambda: zipf_corpus(10, context="2"), TypeError, r"context must be an integer >= 1"),
    "zipf exponent nan": (lambda: zipf_corpus(10, exponent=NAN), ValueError, r"exponent must be"),
    "zipf_probabilities 0": (lambda: zipf_probabilities(0), ValueError, r"n_words must be an integer >= 1"),
    # -- windows and training (lessons 02, 03, 06) -------------------------------------------------
    "make_windows context 1e5 of 1e6": (lambda: make_windows(torch.zeros(10**6, dtype=torch.long), 10**5),
                                        ValueError, r"GB"),
    "make_windows float stream": (lambda: make_windows([0.5, 1.5, 2.5], 1), TypeError, r"must be integers"),
    "train steps 1e9 (hours)": (lambda: train(_model(), *_xy(), steps=10**9, show_progress=False),
                                ValueError, r"steps must be .*at most"),
    "train batch x vocab > 1 GB": (lambda: train(TinyLM(100_000, 2), *_xy(), steps=1, batch_size=1_000_000,
                                                 show_progress=False), ValueError, r"batch_size.*GB"),
    "train wrong context": (lambda: train(_model(), *_xy(context=3), steps=1, show_progress=False),
                            ValueError, r"inputs must have shape \(N, 2\)"),
    "train frozen model": (lambda: train(_model().requires_grad_(False), *_xy(), steps=1, show_progress=False),
                           ValueError, r"no trainable parameters"),
    "train seed numpy": (lambda: train(_model(), *_xy(), steps=1, seed=np.int64(1), show_progress=False),
                         lambda losses: len(losses) == 1),
    "train show_progress np.bool_": (lambda: train(_model(), *_xy(), steps=1, show_progress=np.bool_(False)),
                                     lambda losses: len(losses) == 1),
    # -- TinyLM (lessons 03, 04, 06, 07) ----------------------------------------------------------
    "check_context_ids context '2'": (lambda: check_context_ids([[1, 2]], 10, "2"), TypeError,
                                      r"context must be an integer >= 1; got '2'"),
    "check_context_ids wrong width": (lambda: check_context_ids([[1, 2, 3]], 10, 2), ValueError,
                                      r"context ids must have shape \(batch, 2\).*got \(1, 3\)"),
    "TinyLM forward rank 1": (lambda: _model()(torch.tensor([1, 2])), ValueError,
                              r"must have rank 2, e\.g\. \(batch, "),
    "TinyLM forward bfloat16 ids": (lambda: _model()(torch.ones(1, 2, dtype=torch.bfloat16)), TypeError,
                                    r"must be integers"),
    "TinyLM forward sparse ids": (lambda: _model()(torch.ones(1, 2, dtype=torch.long).to_sparse()),
                                  lambda out: out.shape == (1, 6)),
    "count_parameters of a Parameter": (lambda: count_parameters(nn.Parameter(torch.ones(2))), TypeError,
                                        r"model must be a torch.nn.Module"),
    # -- validation (every lesson) -----------------------------------------------------------------
    "rank message rank 1": (lambda: check_token_ids([[1]], 5, ranks=(1,)), ValueError,
                            r"must have rank 1, e\.g\. \(seq,\); got rank 2"),
    "rank message rank 1 or 2": (lambda: check_token_ids([[[1]]], 5), ValueError,
                                 r"must have rank 1 or 2, e\.g\. \(seq,\) or \(batch, seq\); got rank 3"),
    "check_token_ids sparse": (lambda: check_token_ids(torch.tensor([1, 0, 3]).to_sparse(), 5),
                               lambda ids: ids.tolist() == [1, 0, 3]),
    "check_token_ids sparse out of range": (lambda: check_token_ids(torch.tensor([0, 9]).to_sparse(), 5),
                                            ValueError, r"must lie in \[0, 4\]"),
    "check_matrix sparse": (lambda: check_matrix(_sparse_rows(), "W"), lambda m: m.shape == (2, 2)),
    "check_matrix bfloat16 nan": (lambda: check_matrix(torch.tensor([[NAN]], dtype=torch.bfloat16), "W"),
                                  ValueError, r"W must hold finite numbers"),
    "check_bool np.bool_": (lambda: check_bool(np.bool_(True), "tie"), lambda v: v is True),
    "check_choice tensor": (lambda: check_choice(torch.tensor([1, 2]), "mode", ["a", "b"]), ValueError,
                            r"mode must be one of \['a', 'b'\]"),
    # -- positions (lessons 02, 07) ----------------------------------------------------------------
    "sinusoidal 1e8 x 64 (25.6 GB)": (lambda: sinusoidal_positions(10**8, 64), ValueError, r"GB"),
    "sinusoidal numpy": (lambda: sinusoidal_positions(np.int64(3), np.int64(4)), lambda t: t.shape == (3, 4)),
    # -- tying (lessons 01, 07) --------------------------------------------------------------------
    "shares_storage sparse": (lambda: shares_storage(_sparse_rows(), torch.ones(2)), lambda v: v is False),
    # -- progress (lessons 03, 05, 06) ---------------------------------------------------------------
    "Progress of an int": (lambda: Progress(5), TypeError, r"iterable must be"),
    "Progress total numpy": (lambda: list(Progress(iter(range(2)), total=np.int64(2))), lambda v: v == [0, 1]),
    "Progress show 'yes'": (lambda: Progress([1], show="yes"), TypeError, r"show must be True or False"),
    # -- set-up (every lesson) ----------------------------------------------------------------------
    "setup_lesson numpy seed": (lambda: _with_seed(np.int64(0)), lambda v: v is True),
    "setup_lesson seed '0'": (lambda: setup_lesson(seed="0"), TypeError, r"seed must be an integer >= 0"),
    "setup_lesson seed 2**40": (lambda: setup_lesson(seed=2**40), ValueError, r"seed must be an integer >= 0"),
    "setup_lesson threads 0": (lambda: setup_lesson(threads=0), ValueError, r"threads must be an integer >= 1"),
    # -- plotting (every lesson) -------------------------------------------------------------------
    "new_figure 150 x 150 (minutes)": (lambda: new_figure(150, 150), ValueError, r"at most .* axes"),
    "new_figure layout 'bogus'": (lambda: new_figure(layout="bogus"), ValueError, r"layout must be one of"),
    "new_figure margins bad key": (lambda: new_figure(margins={"lft": 0.1}), ValueError, r"margins"),
    "new_figure margins left > right": (lambda: new_figure(margins={"left": 0.9, "right": 0.1}), ValueError,
                                        r"margins"),
    "new_figure numpy rows": (lambda: new_figure(np.int64(1), np.int64(2)), lambda r: len(r[1]) == 2),
    "show (fig, ax) tuple": (lambda: show(new_figure()), _is_figure_shown),
    "show an Axes": (lambda: show(_ax()), _is_figure_shown),
    "show a PanelResult": (lambda: show(PanelResult(new_figure()[0], {})), _is_figure_shown),
    "show a string": (lambda: show("fig"), TypeError, r"fig must be a matplotlib Figure"),
    "figure_to_png tuple": (lambda: figure_to_png(new_figure()), lambda b: b[:4] == b"\x89PNG"),
    "heatmap bfloat16": (lambda: heatmap(_ax(), torch.ones(2, 2, dtype=torch.bfloat16)),
                         lambda im: im.get_array().shape == (2, 2)),
    "heatmap sparse": (lambda: heatmap(_ax(), _sparse_rows()), lambda im: im.get_array()[1, 1] == 2.0),
    "heatmap complex": (lambda: heatmap(_ax(), torch.ones(2, 2, dtype=torch.complex64)), TypeError,
                        r"matrix must .*real"),
    "heatmap ax is the tuple": (lambda: heatmap(new_figure(), torch.ones(2, 2)), TypeError,
                                r"ax must be one matplotlib Axes"),
    "heatmap cmap 'bogus'": (lambda: heatmap(_ax(), torch.ones(2, 2), cmap="bogus"), ValueError,
                             r"cmap must be"),
    "heatmap highlight 'a'": (lambda: heatmap(_ax(), torch.ones(2, 2), highlight_rows=["a"]), TypeError,
                              r"highlight_rows must be"),
    "heatmap highlight int": (lambda: heatmap(_ax(), torch.ones(2, 2), highlight_rows=1),
                              lambda im: len(im.axes.patches) == 1),
    "heatmap symmetric 'no'": (lambda: heatmap(_ax(), torch.ones(2, 2), symmetric="no"), TypeError,
                               r"symmetric must be True or False"),
    "heatmap 1e5 x 1e4 (GB)": (lambda: heatmap(_ax(), torch.zeros(1, 1).expand(100_000, 10_000)), ValueError,
                               r"at most"),
    # -- panel reports (every lesson with a panel) ---------------------------------------------------
    "report(PanelResult)": (lambda: report(PanelResult(Figure(), {"loss": 1.5})), lambda v: v is None),
    "report(None)": (lambda: report(None), TypeError, r"report needs"),
}


@pytest.mark.parametrize("name", list(PROBES))
def test_probe(name):
    thunk, *expected = PROBES[name]
    if len(expected) == 2:
        error, pattern = expected
        with pytest.raises(error, match=pattern):
            thunk()
    else:
        assert expected[0](thunk()), name


def test_report_prints_a_panel_result(capsys):
    report(PanelResult(Figure(), {"loss": 1.23456}))
    assert capsys.readouterr().out == "loss: 1.235\n"


def test_helpers_leave_the_learners_generators_alone():
    import random

    torch.manual_seed(11)
    np.random.seed(11)  # noqa: NPY002 — the learner's legacy generator
    random.seed(11)
    expected = (torch.rand(2), np.random.rand(2), random.random())  # noqa: NPY002
    torch.manual_seed(11)
    np.random.seed(11)  # noqa: NPY002
    random.seed(11)
    corpus = zipf_corpus(50, 12, seed=3)
    model = TinyLM(12, 4)  # the learner's own call: it draws from the global generator ...
    torch.manual_seed(11)  # ... so reseed as the learner would before asking for the stream again
    train(model, corpus.inputs, corpus.targets, steps=2, show_progress=False)
    heatmap(_ax(), sinusoidal_positions(4, 4))
    with seeded(0):
        torch.rand(3)
    assert torch.equal(torch.rand(2), expected[0])
    assert np.array_equal(np.random.rand(2), expected[1]) and random.random() == expected[2]  # noqa: NPY002
