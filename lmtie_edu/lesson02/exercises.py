"""Checks for the lesson 02 exercises."""

import torch
from torch import nn

from lmtie_edu.kit.exercises import Mismatch, exercise, expect_close, expect_equal, expect_type, hint
from lmtie_edu.kit.feedback import LearnerCrash
from lmtie_edu.shared.language import N_, tr

from . import mistake_texts, solutions
from .logits import toy_vocabulary
from .mistakes import (
    above_mean,
    absolute_logits,
    always_lists,
    always_rows,
    cosine_models,
    never_any,
    one_based,
    own_norm,
    positive_logits,
    token_cosines,
    transposed_head,
    up_to_a_factor,
)
from .tie_check import check_tie

__all__ = ["cosine_head", "hint", "tied_head_with_bias", "tokens_beating_self"]  # the lesson calls ex.hint("name")


def _matrices():
    generator = torch.Generator().manual_seed(3)
    return [toy_vocabulary()[1], torch.randn(9, 5, generator=generator), torch.randn(30, 3, generator=generator) * 2]


def _ties():
    """Integer rows, so every logit is exact: row 2 repeats row 0, and row 1 = row 0 + an orthogonal vector, so
    tokens 1 and 2 tie with token 0's own logit (equal, not larger)."""
    return torch.tensor([[1.0, 0, 0], [1, 1, 0], [1, 0, 0], [2, 0, 1], [0, 2, 0], [-1, 1, 1]])


def _parameter_error(error: BaseException) -> str | None:
    """A plain tensor assigned to head.bias or head.weight: PyTorch refuses it (a TypeError naming the parameter)."""
    text = str(error) if isinstance(error, TypeError) else ""
    return next((key for name, key in (("'bias'", "bias_not_parameter"), ("'weight'", "weight_not_parameter"))
                 if "cannot assign" in text and f"as parameter {name}" in text), None)


def _cosine_error(error: BaseException) -> str | None:
    return "no_keepdim" if "must match the size" in str(error) else None


@exercise(solutions.cosine_head,
          hints=[N_("A logit is |h|·|w_i|·cos θ_i. |h| is the same for every token; which factor differs from token to "
                 "token without saying anything about direction? Make it the same for every token."),
                 N_("Divide every row of W by its own length (its Euclidean norm), so that all rows have length 1 and "
                 "still point the same way. Return a new tensor: W itself must not change.")],
          mistakes={
              "columns": N_("you divided each column of W by the column's norm. The head's rows are its token vectors "
                         "(W is (V, d): one row per token), so each row must be divided by its own length; scaling "
                         "columns stretches directions and changes the angles."),
              "in_place": N_("your function changed the matrix it was given. In a model that matrix is the embedding "
                          "(and, tied, the head): an in-place division would rescale the model's own weights. Return "
                          "a new tensor and leave W as it was."),
              "no_keepdim": N_("the norms of the rows form a vector of V numbers; dividing a (V, d) matrix by it lines "
                            "the V numbers up with the d columns, not with the rows. Keep the norms as a (V, 1) "
                            "column (the keepdim option of the norm) so that each row is divided by its own norm."),
              "lengths_kept": N_("your rows still have W's lengths, up to one common factor: you returned W itself, or "
                              "divided the whole matrix by one number (a norm or mean without dim=1). A factor "
                              "common to all rows changes no ranking, so the long rows still win. Divide each row "
                              "by its own length."),
              "softmax_rows": N_("you took a softmax of each row: that makes every row a probability distribution "
                              "(positive numbers adding up to 1), which changes the rows' directions. Keep each "
                              "row's direction and give it length 1: divide it by its own Euclidean norm."),
              "standardised_rows": N_("you centred each row (subtracted its mean) before scaling it, as a "
                                   "LayerNorm does (which then divides by the standard deviation). Subtracting the "
                                   "mean changes the row's direction. Divide each row by its Euclidean norm only."),
              "times_norm": N_("you multiplied each row by its length instead of dividing by it: the long rows get "
                            "longer still. Divide each row by its own norm."),
              **mistake_texts.COSINE,
          },
          on_error=_cosine_error)
def cosine_head(answer, solution):
    for W in _matrices():
        what = tr("cosine_head(W of shape {shape})", shape=tuple(W.shape))
        expected, columns = solution(W), up_to_a_factor(W / W.norm(dim=0, keepdim=True))   # before the answer runs
        given = W.clone()
        got = answer(given)
        if not torch.equal(given, W):
            raise Mismatch(tr("{what} changed W", what=what), tr("W unchanged"), tr("W rescaled in place"),
                           mistake="in_place")
        expect_type(got, torch.Tensor, what)
        if tuple(got.shape) != tuple(W.shape) or not got.is_floating_point():
            shaped = next((key for key, model in (("token_cosines", token_cosines), ("transposed_head", transposed_head))
                           if got.shape == model(W).shape and always_rows(answer, _matrices(), model, factor=False)),
                          None)
            raise Mismatch(tr("{what} must return a float tensor of W's shape", what=what),
                           tr("float {shape}", shape=tuple(W.shape)), f"{got.dtype} {tuple(got.shape)}", mistake=shaped)
        models = cosine_models(W)
        try:
            expect_close(up_to_a_factor(got.detach()), expected, tr("{what}, up to one common factor", what=what),
                         atol=1e-5, wrong={"columns": columns, "lengths_kept": up_to_a_factor(W),
                                           "softmax_rows": up_to_a_factor(torch.softmax(W, dim=1)),
                                           "standardised_rows": up_to_a_factor((W - W.mean(dim=1, keepdim=True))
                                                                               / W.std(dim=1, keepdim=True)),
                                           "times_norm": up_to_a_factor(W * W.norm(dim=1, keepdim=True)),
                                           **{key: up_to_a_factor(rows) for key, rows in models.items()}})
        except Mismatch as wrong:
            if wrong.mistake in models:   # the first of them that the answer's rows match on every matrix
                wrong.mistake = next((key for key, rows in models.items()
                                      if torch.allclose(up_to_a_factor(got.detach()).double(),
                                                        up_to_a_factor(rows).double(), atol=1e-5)
                                      and always_rows(answer, _matrices(), lambda M, key=key: cosine_models(M)[key])),
                                     None)
            raise
    return len(_matrices())


def _token_cases() -> list:
    """Every (W, i) the check of tokens_beating_self asks about."""
    return [(W, i) for W, step in [(M, 3) for M in _matrices()] + [(_ties(), 1)] for i in range(0, W.shape[0], step)]


@exercise(solutions.tokens_beating_self,
          hints=[N_("Fed h = e_i, the tied head gives token j the logit e_i·e_j, and token i its own squared length. "
                 "Compute all V logits at once, with one product of W and e_i."),
                 N_("Compare every logit with token i's own and keep only the strictly larger ones (i itself never "
                 "qualifies); return their positions as a sorted list of Python ints.")],
          mistakes={
              "includes_self": N_("your list includes token i itself. Its own logit is e_i·e_i = |e_i|² and the question "
                               "asks for tokens whose logit is strictly larger, so i never qualifies. (If you "
                               "computed |e_i|² on its own, e.g. W[i].norm()**2, rounding can make it a hair smaller "
                               "than entry i of W @ W[i]: compare the logits with that same entry.)"),
              "ties_included": N_("your list includes tokens whose logit only equals token i's own: e_i·e_j = |e_i|², "
                               "e.g. a duplicate of e_i, or e_i plus a vector orthogonal to it. Equal is not "
                               "larger: the question asks for a strictly larger logit (> rather than ≥)."),
              "norm_not_squared": N_("you compared the logits with |e_i|, token i's length. Token i's own logit is "
                                  "e_i·e_i = |e_i|², the squared length: compare with that (entry i of W @ W[i])."),
              "by_norm": N_("you listed the tokens longer than token i. Being longer is necessary (Cauchy–Schwarz: "
                         "e_i·e_j ≤ |e_i|·|e_j|) but not enough: a long token pointing away from e_i still loses. "
                         "Compare the logits themselves."),
              "above_mean_logit": N_("you listed the tokens whose logit is above the average logit. A token beats "
                                  "token i when its logit is larger than token i's own logit, e_i·e_i = |e_i|²: "
                                  "compare with that (entry i of W @ W[i])."),
              "beaten_by_i": N_("your comparison goes the wrong way: you listed the tokens whose logit is smaller "
                             "than token i's own, those that i beats. The question asks for those with a larger "
                             "logit."),
              "index_shift": N_("you removed token i from the logits before comparing, so every token after i moved "
                             "down one place, and the positions you returned are one too small for them. Keep all V "
                             "logits (i never beats itself anyway), or add one back to the positions after i."),
              "longer_and_positive": N_("you listed the tokens longer than token i with a positive logit. Both are "
                                     "necessary but together still not enough: a long token at a wide angle to e_i "
                                     "can have a positive logit below |e_i|². Compare the logits themselves with "
                                     "|e_i|²."),
              "only_the_winner": N_("you returned only the token with the largest logit. The question asks for "
                                 "every token whose logit is larger than token i's own: there can be several, "
                                 "listed in increasing order."),
              **mistake_texts.TOKENS,
          })
def tokens_beating_self(answer, solution):
    cases = 0
    for W, step in [(M, 3) for M in _matrices()] + [(_ties(), 1)]:
        norms = W.norm(dim=1)
        for i in range(0, W.shape[0], step):
            what = tr("tokens_beating_self(W of shape {shape}, i={i})", shape=tuple(W.shape), i=i)
            expected = solution(W, i)                        # before the answer runs, which gets a copy
            got = answer(W.clone(), i)
            expect_type(got, list, what, mistake="squeezed" if type(got) is int else None)
            if not all(isinstance(j, int) and not isinstance(j, bool) for j in got):
                raise Mismatch(tr("{what} must return a list of Python ints", what=what), tr("ints"),
                               sorted({type(j).__name__ for j in got}))
            logits = W @ W[i]
            tokens = range(W.shape[0])
            top = int(logits.argmax())
            expect_equal(got, expected, what, wrong={
                "includes_self": [j for j in tokens if logits[j] >= logits[i]],
                "ties_included": [j for j in tokens if j != i and logits[j] >= logits[i]],
                "norm_not_squared": [j for j in tokens if logits[j] > norms[i]],
                "by_norm": [j for j in tokens if norms[j] > norms[i]],
                **{key: model(W, i) for key, model in (("above_mean_logit", above_mean),
                                                       ("absolute_logits", absolute_logits),
                                                       ("own_norm", own_norm), ("never_any", never_any),
                                                       ("positive_logits", positive_logits), ("one_based", one_based))
                   if got == model(W, i) != expected and always_lists(answer, _token_cases(), model)},
                "beaten_by_i": [j for j in tokens if logits[j] < logits[i]],
                "index_shift": [j - (j > i) for j in expected],
                "longer_and_positive": [j for j in tokens if norms[j] > norms[i] and logits[j] > 0],
                "only_the_winner": [] if top == i else [top],
                "unsorted": got if sorted(got) == expected else None})
            cases += 1
    return cases


@exercise(solutions.tied_head_with_bias,
          hints=[N_("nn.Linear(in, out) stores its weight as (out, in). Choose in and out so that the weight has the "
                 "embedding's shape (V, d); then let the head use the embedding's Parameter itself, not its values."),
                 N_("Keep the layer's bias (one number per token) and set it to zero. Replace the layer's own weight "
                 "Parameter by the embedding's Parameter object with a plain attribute assignment (no copying, no "
                 "new nn.Parameter).")],
          mistakes={
              "copy_not_share": N_("the head has a weight with the embedding's values, but it is a different tensor, "
                                "with memory of its own: a copy. Training would move the two apart. A tie makes "
                                "head.weight the very same Parameter object as embedding.weight."),
              "second_parameter": N_("head.weight reads the embedding's memory, so the values are shared and stay equal "
                                  "after an optimiser step, but it is still a Parameter object of its own, not "
                                  "embedding.weight. The model then has two Parameters over one storage: "
                                  "parameters() counts the V·d matrix twice, the optimiser keeps two entries for "
                                  "it (Adam: two sets of moments), and whatever gives one of them new memory "
                                  "(model.double(), copy.deepcopy(model), another .data assignment) silently "
                                  "unties them. A tie is one Parameter: head.weight = embedding.weight."),
              "reversed_tie": N_("you tied the other way round (embedding.weight = head.weight): the two names share "
                              "one Parameter now, but it is the head's matrix, and the embedding's own values are "
                              "gone (in a trained model, the learned embedding). Give the head the embedding's "
                              "Parameter: head.weight = embedding.weight."),
              "transposed_layer": N_("your layer is nn.Linear(V, d): it maps V numbers to d (and its bias, if it has "
                                  "one, has d entries). The head maps a hidden state of size d to V logits: its "
                                  "in_features is d and out_features is V, i.e. nn.Linear(d, V)."),
              "froze_shared": N_("you froze the shared matrix (requires_grad_(False) on head.weight): it is the "
                              "embedding's Parameter too, so the embedding stops learning as well, and the tied "
                              "head trains only its bias. Leave the weight trainable; only the bias is the head's own."),
              "bias_not_zero": N_("the bias is there but not zero: nn.Linear starts its bias at small random values. "
                               "The exercise asks for a zero bias, so that the tied head starts as the plain "
                               "inner product."),
              "not_a_linear": N_("you returned a module of another kind than nn.Linear. It may compute the same "
                              "logits, but the exercise asks for the head as an nn.Linear(d, V), the layer a "
                              "model's head is and whose weight and bias other code reads: build that layer and "
                              "give it the embedding's Parameter as its weight."),
              "bias_dtype": N_("your bias has another dtype than the tied weight (the embedding's), and PyTorch does "
                            "not mix dtypes in one layer: the head cannot be applied. Make the bias in the "
                            "weight's dtype — nn.Linear's own bias already is; zero it in place."),
              **mistake_texts.HEAD,
          },
          on_error=_parameter_error)
def tied_head_with_bias(answer, solution):
    embedding = nn.Embedding(12, 5)
    original, before = embedding.weight, embedding.weight.detach().clone()
    head = answer(embedding)
    expect_type(head, nn.Linear, "tied_head_with_bias(embedding)",
                mistake="not_a_linear" if isinstance(head, nn.Module) and head is not embedding else None)
    if (head.in_features, head.out_features) != (5, 12):
        raise Mismatch(tr("the head must map d = 5 numbers to V = 12 logits"), "(in_features, out_features) = (5, 12)",
                       f"(in_features, out_features) = {(head.in_features, head.out_features)}",
                       mistake="transposed_layer" if (head.in_features, head.out_features) == (12, 5) else None)
    check_tie(head.weight, embedding, original, before)
    if head.bias is None:
        raise Mismatch(tr("the head needs its own per-token bias of shape (V,) = (12,)"),
                       tr("a bias of shape {shape}", shape=(12,)), tr("no bias (head.bias is None)"), mistake="no_bias")
    shape = tuple(head.bias.shape)
    if shape != (12,):
        raise Mismatch(tr("the head needs one bias entry per token, shape (V,) = (12,)"),
                       tr("a bias of shape {shape}", shape=(12,)), tr("a bias of shape {shape}", shape=shape),
                       mistake={(12, 1): "bias_column", (5,): "bias_per_feature"}.get(
                           shape, "one_bias" if head.bias.numel() == 1 else None))
    if head.bias.dtype != embedding.weight.dtype:
        raise Mismatch(tr("the bias must have the tied weight's dtype"), embedding.weight.dtype, head.bias.dtype,
                       mistake="bias_dtype")
    if not head.bias.requires_grad:
        raise Mismatch(tr("the bias must be trainable, like the tied weight"), "head.bias.requires_grad is True",
                       "head.bias.requires_grad is False", mistake="frozen_bias")
    if not embedding.weight.requires_grad:
        raise Mismatch(tr("the tied weight must stay trainable"), "embedding.weight.requires_grad is True",
                       "embedding.weight.requires_grad is False", mistake="froze_shared")
    if torch.count_nonzero(head.bias.detach()) > 0:
        raise Mismatch(tr("the initial bias must be zero"), torch.zeros(12), head.bias.detach(), mistake="bias_not_zero")
    model = nn.ModuleList([embedding, head])
    expect_equal(sum(p.numel() for p in model.parameters()), 12 * 5 + 12, tr("parameters of embedding + head"))
    ids = torch.tensor([3, 7])
    with torch.no_grad():
        try:
            logits = head(embedding(ids))
        except Exception as error:  # noqa: BLE001 — the head the learner built cannot be applied (a float64 bias, …)
            raise LearnerCrash(error) from error
        expect_close(logits, embedding(ids) @ embedding.weight.T, "head(embedding(ids))")
    return 1
