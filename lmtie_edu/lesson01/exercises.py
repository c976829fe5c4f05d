"""Checks for the lesson 01 exercises."""

import torch
import torch.nn.functional as F

from lmtie_edu.kit.exercises import (
    Mismatch,
    exercise,
    expect_close,
    expect_equal,
    expect_type,
    forbid_autograd,
    hint,
    no_indexing,
)
from lmtie_edu.kit.feedback import describe_difference
from lmtie_edu.shared.language import N_, tr

from . import lookup as embedding
from . import mistake_texts, solutions
from .mistakes import bag_error, bag_models, on_every_case, rows_mistake, set_case, step_error, step_models

__all__ = ["bag_of_tokens", "hint", "rows_reached", "sgd_step_on_lookup"]  # hint: the lesson calls ex.hint("name")

@exercise(solutions.bag_of_tokens,
          hints=[N_("A one-hot row picks one row of W. What does the sum of a sequence's one-hot rows hold, and what "
                 "does multiplying that sum by W give?"),
                 N_("Build the one-hot tensor of the ids with one column per token of the vocabulary (W's number of "
                 "rows), in W's dtype; add it up over the positions of each sequence to get a (B, V) table of "
                 "counts; then one matrix product with W.")],
          mistakes={
              "no_num_classes": N_("F.one_hot without num_classes makes only (largest id in the batch + 1) columns, "
                                "not one per token of the vocabulary, so its rows are shorter than W is tall and "
                                "the product's shapes do not match. Give F.one_hot the vocabulary size: the number "
                                "of rows of W."),
              "num_classes_not_rows": N_("your one-hot has a number of columns other than W's number of rows, so the "
                                      "product's shapes do not match. num_classes must be the vocabulary size of "
                                      "the W you are given, W.shape[0] — not its width W.shape[1], and not a fixed "
                                      "number such as the lesson's V = 10 (the check passes matrices of other sizes)."),
              "integer_one_hot": N_("your one-hot or count tensor holds integers (int64: what F.one_hot returns, and "
                                 "what a sum of booleans gives) while W holds floats, and PyTorch does not multiply "
                                 "tensors of different dtypes. Convert it to W's dtype before the product."),
              "not_summed": N_("you returned one vector per token, shape (B, T, d): that is the lookup itself. The bag "
                            "of a sequence is the sum of its tokens' vectors, one (d,) vector per sequence."),
              "mean_not_sum": N_("you averaged the tokens' vectors (a mean over the T positions: 1/T of the answer). "
                              "The bag is their sum — every occurrence adds its row once more and nothing divides "
                              "by the length (nn.EmbeddingBag's mode='sum', not its default mode='mean')."),
              "last_token_only": N_("you returned the vector of each sequence's last token only. The bag of a "
                                 "sequence is the sum of the vectors of all its tokens: count every position."),
              "reshape_not_transpose": N_("you reshaped the (B, T) ids to (T, B) to sum over the first axis, but "
                                       "reshape keeps the ids in memory order and cuts them into new rows: it "
                                       "mixes the sequences, it does not swap the axes. Sum the one-hot rows over "
                                       "the positions, dim=1, of the (B, T, V) tensor (or transpose, never "
                                       "reshape)."),
              "running_sum": N_("you returned a running sum, one partial bag per position, shape (B, T, d). The "
                             "bag is the sum over all T positions: one (d,) vector per sequence."),
              "scaled_by_sqrt_d": N_("your bags are the right ones times the square root of the width d. Nothing "
                                  "scales here: the bag is the plain sum of the tokens' rows of W."),
              "summed_over_width": N_("you summed each token's vector over its d numbers (the last axis), which "
                                   "gives one number per token, shape (B, T). Sum over the positions instead, "
                                   "keeping the d numbers of the vectors: one (d,) vector per sequence."),
              "normalised_counts": N_("you divided each sequence's counts by their Euclidean length before the "
                                   "product, so each bag is the sum divided by that length. The bag is the plain "
                                   "sum: each occurrence adds its row once, with the raw counts."),
              "zero_as_padding": N_("you left token 0 out of the bags, as if id 0 were padding. Here 0 is a token "
                                 "like any other (nothing marks padding): each of its occurrences adds row 0 of W."),
              "distinct_tokens": N_("you counted a token repeated in a sequence only once (a one-hot's maximum, or "
                                 "a set, instead of its sum). Every occurrence adds its row once more: a token "
                                 "that occurs twice adds its row twice."),
              "float32_result": N_("your bags are float32 while W is float64: your code turns numbers into float32 "
                                "(.float(), or a tensor made in the default dtype) and loses precision. Convert "
                                "the counts to W's own dtype, .to(W.dtype), and leave W as it is."),
              **mistake_texts.BAG,
          },
          on_error=bag_error)
def bag_of_tokens(answer, solution):
    generator = torch.Generator().manual_seed(1)
    # Case 1: the ids stop far below V, and largest id + 1 (4) ≠ d (6) ≠ V (10) — so a crash's sizes say which of
    # num_classes left out, W.shape[1] or the lesson's V = 10 was used; case 2 has another V than the lesson's 10.
    cases = [(torch.randn(10, 6, generator=generator), torch.tensor([[2, 0, 2], [1, 3, 3]])),
             (torch.randn(7, 5, generator=generator), torch.tensor([[6, 6, 1, 6], [0, 2, 4, 5]])),
             (torch.randn(6, 3, generator=generator, dtype=torch.float64), torch.tensor([[5, 0], [2, 2]]))]  # a float64 W
    for W, ids in cases:
        what = tr("bag_of_tokens(W of shape {shape}, ids={ids})", shape=tuple(W.shape), ids=ids.tolist())
        set_case(W, ids)
        expected, per_token = solution(W, ids), F.one_hot(ids, W.shape[0]).to(W.dtype) @ W   # before the answer runs
        got = answer(no_indexing(W), ids.clone())            # copies; W refuses W[ids], F.embedding, index_select, …
        expect_type(got, torch.Tensor, what)
        if got.dtype != W.dtype and got.dtype.is_floating_point:
            raise Mismatch(tr("{what}: the bags must be in W's dtype", what=what), str(W.dtype), str(got.dtype),
                           mistake="float32_result" if (got.dtype, W.dtype) == (torch.float32, torch.float64) else None)
        try:
            expect_close(got, expected, what, atol=1e-5,
                         wrong={"not_summed": per_token, "mean_not_sum": expected / ids.shape[1],
                                "last_token_only": per_token[:, -1],
                                "reshape_not_transpose": F.one_hot(ids.reshape(ids.shape[1], ids.shape[0]),
                                                                   W.shape[0]).to(W.dtype).sum(dim=0) @ W,
                                "running_sum": per_token.cumsum(dim=1), "scaled_by_sqrt_d": expected * W.shape[1] ** 0.5,
                                "summed_over_width": per_token.sum(dim=-1), **bag_models(W, ids)})
        except Mismatch as wrong:
            on_every_case(wrong, bag_models, cases, lambda case: answer(no_indexing(case[0]), case[1].clone()), got,
                          (W, ids))
            raise
    return len(cases)


@exercise(solutions.sgd_step_on_lookup,
          hints=[N_("Work out the gradient of W[ids].sum() row by row first: which rows does it reach, and what does a "
                 "row receive when its id occurs several times? Then apply the SGD rule: new weights = old "
                 "weights minus lr times the gradient."),
                 N_("Every column of row i of the gradient holds the number of times i occurs in ids (zero for the "
                 "others): count occurrences per token id, for all vocab_size ids, and broadcast those counts "
                 "across the d columns.")],
          mistakes={
              "overwrite": N_("a row looked up several times moved only once. Gradients of repeated lookups add up "
                           "(one contribution per occurrence); setting a row, or indexed assignment with repeated "
                           "ids, keeps only one of them."),
              "ascent": N_("your rows moved up by lr times the count; SGD steps against the gradient, so they move "
                        "down."),
              "update_only": N_("you returned the step (-lr times the gradient), not the weights after it: add the "
                             "step to W."),
              "no_minlength": N_("your counts stop at the largest id looked up: torch.bincount returns max(minlength, "
                              "largest id + 1) counts, so without minlength (or with one below W's number of rows, "
                              "such as its width d) the rows after the largest id have no count, and the counts do "
                              "not line up with W's rows. Give torch.bincount minlength=W.shape[0]."),
              "counts_not_column": N_("your (V,) vector of counts was broadcast along W's last dimension — one count "
                                   "per column, not per row — so it does not line up with W's rows (PyTorch "
                                   "refuses when V ≠ d). Make it a column, counts.unsqueeze(1) of shape (V, 1), so "
                                   "that row i's count spreads over its d columns."),
              "count_times_width": N_("your rows moved by lr times the count times d, the width of W. Each of the d "
                                   "numbers of a looked-up row is one term of the sum, so each gets a gradient of "
                                   "1 per occurrence: the count, not d times the count."),
              "every_row_moves": N_("you moved every row of W by lr. Only the rows looked up are in the sum, so "
                                 "the others get no gradient and stay as they are; a looked-up row moves once per "
                                 "occurrence."),
              "gradient_is_the_row": N_("you used the row itself (times its count) as its gradient. The loss is a "
                                     "plain sum of the looked-up numbers, so each of them has a gradient of 1 per "
                                     "occurrence, whatever its value: the gradient of row i is its count in every "
                                     "column."),
              "mean_over_batch": N_("you divided the step by the number of sequences, as for a loss averaged over "
                                 "the batch. This loss is a plain sum (W[ids].sum()): nothing divides the count."),
              "squared_loss": N_("your rows moved by 2·lr times the count times the row itself: the gradient of a "
                              "sum of squares. This loss is the plain sum W[ids].sum(): each looked-up number has "
                              "a gradient of 1 per occurrence, whatever its value."),
              "counts_not_at_ids": N_("you put the counts on the first rows of W (rows 0, 1, … one per distinct id, "
                                   "as unique(return_counts=True) lists them), not on the rows of the ids "
                                   "themselves. Row i must move by lr times the count of id i: count per id over "
                                   "all W.shape[0] rows (torch.bincount with minlength)."),
              "max_over_sequences": N_("you counted each id in every sequence and kept the largest of these counts "
                                    "(a max over the batch). The loss adds up all lookups of all sequences: row i "
                                    "moves once per occurrence of i anywhere in ids, the sum of the counts."),
              **mistake_texts.STEP,
          },
          on_error=step_error)
def sgd_step_on_lookup(answer, solution):
    generator = torch.Generator().manual_seed(2)
    cases = [(torch.randn(6, 3, generator=generator), torch.tensor([[1, 4, 4], [0, 4, 1]]), 0.1),
             (torch.randn(8, 2, generator=generator), torch.tensor([7, 7, 2]), 0.5)]
    for W, ids, lr in cases:
        what = tr("sgd_step_on_lookup(W of shape {shape}, ids={ids}, lr={lr})", shape=tuple(W.shape), ids=ids.tolist(),
                  lr=lr)
        set_case(W, ids)
        expected = solution(W, ids, lr)                      # before the answer runs, which gets copies
        with forbid_autograd():                              # predict the step: no backward(), no optimiser
            got = answer(W.clone(), ids.clone(), lr)
        expect_type(got, torch.Tensor, what)
        step = expected - W
        looked_up = (torch.bincount(ids.flatten(), minlength=W.shape[0]) > 0).to(W.dtype).unsqueeze(1)
        try:
            counts = torch.bincount(ids.flatten(), minlength=W.shape[0]).to(W.dtype).unsqueeze(1)
            expect_close(got, expected, what, wrong={"overwrite": W - lr * looked_up, "ascent": W - step,
                                                     "update_only": step,
                                                     "count_times_width": W - lr * counts * W.shape[1],
                                                     "every_row_moves": W - lr, "gradient_is_the_row": W - lr * counts * W,
                                                     "mean_over_batch": W - lr * counts / ids.shape[0],
                                                     **step_models(W, ids, lr)})
        except Mismatch as wrong:
            on_every_case(wrong, step_models, cases, _stepped(answer), got, (W, ids, lr))
            if wrong.mistake is None and got.shape == W.shape:   # say how the step itself differs (×2, ×1/n, …)
                where = describe_difference(got.detach() - W, step).replace(tr("your answer is the expected one"),
                                                                            tr("it is the expected step"))
                wrong.where = tr("your step (your answer − W): {where}", where=where)
            raise
    return len(cases)


def _stepped(answer):
    def run(case):
        with forbid_autograd():
            return answer(case[0].clone(), case[1].clone(), case[2])
    return run


def _as_int_list(got, what: str) -> list[int]:
    expect_type(got, (list, tuple), what, mistake="range_not_list" if type(got).__name__ == "range" else None)
    if not all(isinstance(j, int) and not isinstance(j, bool) for j in got):
        raise Mismatch(tr("{what} must return a list of ints", what=what), tr("ints"), [type(j).__name__ for j in got])
    return list(got)


@exercise(solutions.rows_reached,
          hints=[N_("Split it in two questions. Which rows does the lookup read? And when the head is W itself, "
                 "which rows does it score?"),
                 N_("Untied: each token predicts the next one, so the last id is only a target and is never looked "
                 "up, and a repeated id is one row. Tied: the head scores every token of the vocabulary, and a "
                 "softmax gives each of them a probability above zero.")],
          mistakes={
              "targets_as_inputs": N_("untied, a token that is only a target (here the last id) is never looked up, so "
                                   "its embedding row gets no gradient; the loss reaches the head's row for it, "
                                   "and the head is a separate matrix."),
              "head_only_targets": N_("tied, the head's gradient is not only in the target rows: row j receives "
                                   "(p_j - y_j) times h, and a softmax gives every token a probability above zero, "
                                   "so every row of the tied matrix gets a gradient."),
              "tie_ignored": N_("with the tie, the head is the embedding matrix: besides the rows looked up, W "
                             "receives the head's gradient, which reaches more rows."),
              "dropped_last_value": N_("untied, you left out the last id's token altogether, but only its last "
                                    "position is nothing more than a target: when that token also occurs earlier "
                                    "in the sequence, it is looked up there, and its row gets a gradient. The rows "
                                    "looked up are those of ids[:-1], every position but the last."),
              "targets_not_inputs": N_("untied, you listed the rows of the targets (every token but the first), "
                                    "not those of the inputs. The first token is looked up: it is the input that "
                                    "predicts the second. The one that is only a target is the last: the rows "
                                    "looked up are those of ids[:-1]."),
              "every_row_untied": N_("untied, you listed every row of the vocabulary, which is the tied case: only "
                                  "then is the head W, whose softmax reaches every row. Untied, the embedding's "
                                  "gradient reaches only the rows looked up."),
              "one_row_too_many": N_("tied, you listed vocab_size + 1 rows, one more than W has: range(n) already "
                                  "gives the n numbers 0 … n-1."),
              "sequence_length_for_vocab": N_("tied, you listed one row per position of the sequence (range of its "
                                           "length). Every row of the vocabulary gets a gradient: the rows are "
                                           "0 … vocab_size-1, however long the sequence."),
              "last_input_only": N_("untied, you listed only the row of the last input (the token before the last). "
                                 "Every position but the last predicts its next token and is looked up: the rows "
                                 "are those of all of ids[:-1], not of the final prediction's input alone."),
              **mistake_texts.ROWS,
          },
          computed_by=("lmtie_edu.lesson01.lookup.next_token_gradient",))
def rows_reached(answer, solution):
    cases = [([2, 5, 5, 9], 12, False), ([0, 3, 3, 7, 1], 9, False), ([3, 1, 3], 5, False),  # 3 is input and target
             ([2, 5, 5, 9], 12, True), ([4, 4, 0], 6, True)]
    for ids, vocab_size, tie in cases:
        ids = torch.tensor(ids)
        what = f"rows_reached(ids={ids.tolist()}, vocab_size={vocab_size}, tie={tie})"
        truth = embedding.next_token_gradient(ids, tie=tie, vocab_size=vocab_size)["rows_touched"]
        expected = solution(ids, vocab_size, tie)
        assert expected == truth, (expected, truth)          # the reference agrees with the step itself
        with forbid_autograd():                              # reason it out: no backward()
            got = _as_int_list(answer(ids.clone(), vocab_size, tie), what)
        if len(set(got)) != len(got):
            raise Mismatch(tr("{what}: a row is listed more than once (list each row once, sorted)", what=what),
                           expected, got)
        if sorted(got) == expected and got != expected:
            raise Mismatch(tr("{what}: the right rows, but not in increasing order", what=what), expected, got)
        inputs, targets = set(ids[:-1].tolist()), set(ids[1:].tolist())
        wrong = {"targets_as_inputs": sorted(inputs | targets),
                 "dropped_last_value": sorted(set(ids.tolist()) - {ids[-1].item()}),
                 "targets_not_inputs": sorted(targets), "every_row_untied": list(range(vocab_size))} if not tie else {
            "head_only_targets": sorted(inputs | targets), "tie_ignored": sorted(inputs),
            "one_row_too_many": list(range(vocab_size + 1)), "sequence_length_for_vocab": list(range(len(ids)))}
        if got != expected and (key := rows_mistake(answer, cases, got, ids.tolist(), vocab_size, tie)):
            wrong[key] = got
        expect_equal(got, expected, what, wrong=wrong)
    return len(cases)
