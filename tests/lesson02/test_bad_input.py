"""Lesson 02: what a learner can type into its helpers, figures, panel and checks (issue 24)."""

import math

import numpy as np
import torch

from lmtie_edu.kit.exercises import HINTS_SHOWN
from lmtie_edu.lesson02 import exercises as ex
from lmtie_edu.lesson02 import solutions
from lmtie_edu.lesson02.figures import geometry_figure, logits_figure, logits_panel, norm_cosine_figure
from lmtie_edu.lesson02.logits import hidden_from_polar, score_table, toy_vocabulary
from tests.probes import Probe, parametrize

LABELS, W_EMB, _ = toy_vocabulary()
H = hidden_from_polar(50, 1.3)
W3 = torch.randn(20, 3, generator=torch.Generator().manual_seed(0))
NAMES3 = [f"t{i}" for i in range(20)]


def _with_zero_row(W):
    W = W.clone()
    W[1] = 0
    return W


def _same_scores(got, expected):
    return got.keys() == expected.keys() and all(
        torch.equal(got[k], expected[k]) if isinstance(expected[k], torch.Tensor) else got[k] == expected[k]
        for k in expected)


def _toy_is_fresh():
    labels, embedding, head = toy_vocabulary()
    labels[0], embedding[0, 0], head[0, 0] = "spoiled", 99.0, 99.0
    again = toy_vocabulary()
    return again[0][0] == "the" and again[1][0, 0] == 2.6 and again[2][0, 0] != 99.0


POLAR = [
    Probe("angle numpy int", lambda: hidden_from_polar(np.int64(90), 1.0), check=lambda h: abs(h[0]) < 1e-6),
    Probe("angle numpy float", lambda: hidden_from_polar(np.float32(0.0), 2), check=lambda h: h.tolist() == [2, 0]),
    Probe("angle text", lambda: hidden_from_polar("50", 1.0), TypeError, r"angle_degrees must be a finite number"),
    Probe("angle NaN", lambda: hidden_from_polar(float("nan"), 1.0), ValueError, r"angle_degrees must be a finite"),
    Probe("length inf", lambda: hidden_from_polar(0, math.inf), ValueError, r"length must be a finite"),
    Probe("length bool", lambda: hidden_from_polar(0, True), TypeError, r"length must be a finite number"),
    Probe("length -1", lambda: hidden_from_polar(0, -1), ValueError, r"length must be >= 0; got -1"),
    Probe("length 1e39 (beyond float32)", lambda: hidden_from_polar(0, 1e39), ValueError, r"length must be .*at most"),
    Probe("angle 400 (a full turn more)", lambda: hidden_from_polar(400, 1.0),
          check=lambda h: torch.allclose(h, hidden_from_polar(40, 1.0), atol=1e-6)),
    Probe("toy_vocabulary returns fresh objects", _toy_is_fresh, check=bool),
]

SCORES = [
    Probe("h a list", lambda: score_table([1.0, 0.0], W_EMB), TypeError, r"h must be a torch.Tensor of shape \(d,\)"),
    Probe("W a list", lambda: score_table(H, W_EMB.tolist()), TypeError, r"W must be a torch.Tensor"),
    Probe("h of shape (3,)", lambda: score_table(torch.ones(3), W_EMB), ValueError, r"h must have shape \(d,\) = \(2,\)"),
    Probe("h of shape (1, 2)", lambda: score_table(H[None], W_EMB), ValueError, r"h must have shape \(d,\)"),
    Probe("h integer", lambda: score_table(torch.tensor([1, 0]), W_EMB), TypeError, r"h must hold floating-point"),
    Probe("W integer", lambda: score_table(H, W_EMB.long()), TypeError, r"W must hold floating-point"),
    Probe("h NaN", lambda: score_table(torch.tensor([math.nan, 0]), W_EMB), ValueError, r"h must hold finite"),
    Probe("W meta", lambda: score_table(H, W_EMB.to("meta")), ValueError, r"W is a meta tensor"),
    Probe("h meta", lambda: score_table(H.to("meta"), W_EMB), ValueError, r"h must hold finite real values"),
    Probe("h bfloat16", lambda: score_table(H.bfloat16(), W_EMB)["top"], check=lambda top: top == 0),
    Probe("W float64", lambda: score_table(H, W_EMB.double())["top"], check=lambda top: top == 0),
    Probe("logits overflow float32", lambda: score_table(torch.tensor([1e30, 0]), W_EMB * 1e30), ValueError,
          r"logits .*overflow"),
    Probe("h requires grad", lambda: score_table(H.clone().requires_grad_(), W_EMB)["top"], check=lambda t: t == 0),
    # issue 36, item 4: torch's "norm_sparse currently only supports full reductions" before
    Probe("W sparse (its dense form is scored)", lambda: _same_scores(score_table(H, W_EMB.to_sparse()),
                                                                     score_table(H, W_EMB)), check=bool),
    Probe("h and W sparse", lambda: _same_scores(score_table(H.to_sparse(), W_EMB.to_sparse()), score_table(H, W_EMB)),
          check=bool),
]

FIGURES = [
    Probe("geometry_figure of a 3-D W", lambda: geometry_figure(W3[0], W3, NAMES3), ValueError,
          r"W must have shape \(V, 2\).*norm_cosine_figure"),
    Probe("geometry_figure of 500 tokens", lambda: geometry_figure(torch.ones(2), torch.randn(500, 2),
                                                                   [str(i) for i in range(500)]),
          ValueError, r"at most 60 tokens"),
    Probe("geometry_figure labels too short", lambda: geometry_figure(H, W_EMB, LABELS[:3]), ValueError,
          r"labels must name every row of W: expected 8"),
    Probe("geometry_figure title not text", lambda: geometry_figure(H, W_EMB, LABELS, title=None), TypeError,
          r"title must be text"),
    Probe("geometry_figure with a zero row", lambda: geometry_figure(H, _with_zero_row(W_EMB), LABELS)[1]["top"],
          check=lambda top: top == 0),
    Probe("geometry_figure bfloat16", lambda: geometry_figure(H, W_EMB.bfloat16(), LABELS)[1]["top"],
          check=lambda top: top == 0),
    Probe("norm_cosine_figure with a zero row", lambda: norm_cosine_figure(W3[0], _with_zero_row(W3), NAMES3)[1]["top"],
          check=lambda top: isinstance(top, int)),
    Probe("norm_cosine_figure all rows zero", lambda: norm_cosine_figure(W3[0], torch.zeros(20, 3), NAMES3),
          ValueError, r"W must have a row that is not zero"),
    Probe("norm_cosine_figure zero h", lambda: norm_cosine_figure(torch.zeros(3), W3, NAMES3), ValueError,
          r"h must not be the zero vector"),
    Probe("norm_cosine_figure all logits negative", lambda: norm_cosine_figure(-W3[0], W3.abs() * W3[0].sign(),
                                                                               NAMES3)[1]["top"],
          check=lambda top: isinstance(top, int)),
    Probe("norm_cosine_figure k > V", lambda: norm_cosine_figure(W3[0], W3, NAMES3, k=100)[0].axes[1].get_title(),
          check=lambda title: "best 20" in title),
    Probe("norm_cosine_figure k numpy int", lambda: norm_cosine_figure(W3[0], W3, NAMES3, k=np.int64(3))[1]["top"],
          check=lambda top: isinstance(top, int)),
    Probe("norm_cosine_figure k 0", lambda: norm_cosine_figure(W3[0], W3, NAMES3, k=0), ValueError, r"k must be"),
    Probe("norm_cosine_figure labels a string", lambda: norm_cosine_figure(W3[0], W3, "abc"), TypeError,
          r"labels must be a list of 20"),
    Probe("logits_figure angle 400", lambda: logits_figure(400, 1.3).numbers["h"],
          check=lambda h: h == logits_figure(40, 1.3).numbers["h"]),
    Probe("logits_figure tie None", lambda: logits_figure(tie=None), TypeError, r"tie must be True or False"),
    Probe("logits_panel angle 400", lambda: logits_panel(angle=400), ValueError, r"angle must be a value in \[0, 355\]"),
    Probe("logits_panel length -1", lambda: logits_panel(length=-1), ValueError, r"length must be a value in"),
    Probe("logits_panel tie None", lambda: logits_panel(tie=None), TypeError, r"tie must be True or False"),
    Probe("logits_panel angle numpy int", lambda: logits_panel(angle=np.int64(50)).values()["angle"],
          check=lambda angle: angle == 50),
    Probe("logits_panel length numpy float", lambda: logits_panel(length=np.float64(1.3)).values()["length"],
          check=lambda length: length == 1.3),
]


# -- exercise checks: an answer that mutates its inputs cannot change the reference ----------------------------------

def _verdict(name, answer):
    HINTS_SHOWN.pop(name, None)
    return bool(getattr(ex, name)(answer))


def _beating_then_spoil(W, i):
    result = solutions.tokens_beating_self(W, i)
    W.mul_(-1)
    return result


def _head_then_spoil(embedding):
    head = solutions.tied_head_with_bias(embedding)
    return head


def _cosine_on_a_copy_then_spoil(W):
    result = solutions.cosine_head(W.clone())
    return result


CHECKS = [
    Probe("tokens_beating_self: right answer that then flips W", lambda: _verdict("tokens_beating_self",
                                                                                  _beating_then_spoil),
          check=lambda passed: passed),
    Probe("cosine_head: right answer", lambda: _verdict("cosine_head", _cosine_on_a_copy_then_spoil),
          check=lambda passed: passed),
    Probe("tied_head_with_bias: right answer", lambda: _verdict("tied_head_with_bias", _head_then_spoil),
          check=lambda passed: passed),
]

PROBES = POLAR + SCORES + FIGURES + CHECKS


@parametrize(PROBES)
def test_bad_input(probe, capsys):
    probe.run()
