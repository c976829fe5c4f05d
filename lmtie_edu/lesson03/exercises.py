"""Checks for the lesson 03 exercises."""

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
)
from lmtie_edu.shared.language import N_, tr

from . import mistake_texts, solutions
from .mistakes import (
    HEAD_CASE,
    always_lists,
    by_positions,
    by_some_positions,
    checks_each_window,
    checks_first_window,
    head_error,
    head_models,
    known,
    lookup_models,
    on_every_case,
    one_write_per_id,
    skips_positions,
    starved_models,
    target_row_only,
)

__all__ = ["head_gradient", "hint", "lookup_gradient", "starved_input_rows"]  # the lesson calls ex.hint("name")


@exercise(solutions.head_gradient,
          hints=[N_("Go through the logits z = W_out h. What is the gradient of the cross-entropy with respect to "
                 "the logits, and how does a change in row j of W_out change z_j?"),
                 N_("The gradient with respect to the logits is the softmax probabilities minus the one-hot of the "
                 "target. Row j of the result is that difference's entry j times h, so the result is an outer "
                 "product of a (V,) vector and a (d,) vector.")],
          mistakes={
              "transposed": N_("your gradient has the shape (d, V) of W_out's transpose. A gradient has the shape of "
                            "the matrix it belongs to: one row per token, (V, d). Put the (V,) vector first in "
                            "the outer product."),
              "no_target_term": N_("you used the probabilities p alone. The cross-entropy also subtracts the "
                                "target's one-hot y: the gradient with respect to the logits is p - y, so the "
                                "target row is pulled towards h while the others are pushed away."),
              "sign_flipped": N_("every entry has the opposite sign: you computed y - p, the direction that lowers "
                              "the loss (what an update adds), not the gradient p - y."),
              "only_target_row": N_("your gradient is zero in every row except the target's: the statement \"only the "
                                 "target's output vector is updated\" that §2 corrects. The loss depends on every "
                                 "logit through the softmax, so row j receives (p_j - y_j) h: the target row "
                                 "(p_target - 1) h, and every other row p_j h, pushed away from h in proportion to "
                                 "its probability. A softmax probability is never 0, so every row gets a gradient."),
              "divided_by_width": N_("your gradient is the right one divided by d, the size of h. Nothing averages "
                                  "over the hidden size: the cross-entropy of one prediction has the gradient "
                                  "(p - y) ⊗ h, as it is."),
              "gradient_of_h": N_("you returned the gradient with respect to the hidden state h, W_outᵀ(p - y), of "
                               "shape (d,): what flows back into the model. The exercise asks for the gradient "
                               "with respect to W_out, one row per token: the outer product (p - y) ⊗ h, (V, d)."),
              "sigmoid_not_softmax": N_("you turned the logits into probabilities with a sigmoid, one token at a "
                                     "time, as for binary labels. The cross-entropy over V tokens uses a softmax "
                                     "over all the logits: p = softmax(W_out h)."),
              "softmax_of_one_logit": N_("all your probabilities are 1: the softmax ran over an axis of size 1 (a "
                                      "batch axis you added, or the wrong dim), so each logit was normalised "
                                      "against itself alone. Take the softmax over the V logits."),
              "target_row_for_h": N_("you multiplied p - y by the target's output vector, W_out's target row, "
                                  "instead of by h. Logit z_j = w_j·h changes with row w_j at the rate h: row j of "
                                  "the gradient is (p_j - y_j) h."),
              "factor_two": N_("your gradient is twice the right one, as if from a squared error (whose derivative "
                            "brings a factor 2). The cross-entropy's gradient with respect to the logits is p - y, "
                            "with no factor: the result is (p - y) ⊗ h."),
              "log_probabilities": N_("you used the log-probabilities, log softmax, in place of the probabilities: "
                                   "the gradient of the cross-entropy with respect to the logits is p - y with "
                                   "p = softmax(W_out h) itself, not its logarithm."),
              "gradient_of_logits": N_("you returned p - y, of shape (V,): the gradient with respect to the logits. "
                                    "The exercise asks for the gradient with respect to W_out: row j is "
                                    "(p_j - y_j) times h, the outer product (p - y) ⊗ h, (V, d)."),
              "divided_by_vocab": N_("your gradient is the right one divided by V, the number of tokens. The loss of "
                                  "one prediction is not averaged over the vocabulary: its gradient is (p - y) ⊗ h, "
                                  "as it is."),
              "logits_for_probabilities": N_("you used the logits z = W_out h where the probabilities belong: the "
                                          "gradient with respect to the logits is p - y, with p = softmax(z)."),
              **mistake_texts.HEAD,
          },
          on_error=head_error)
def head_gradient(answer, solution):
    generator = torch.Generator().manual_seed(5)
    cases = [(torch.randn(4, generator=generator), torch.randn(7, 4, generator=generator), 2),
             (torch.randn(3, generator=generator) * 3, torch.randn(5, 3, generator=generator), 0)]
    for h, W_out, target in cases:
        W = W_out.clone().requires_grad_(True)
        F.cross_entropy((W @ h).unsqueeze(0), torch.tensor([target])).backward()
        expected = solution(h, W_out, target)
        assert torch.allclose(expected, W.grad, atol=1e-6)  # the reference agrees with autograd
        what = tr("head_gradient(h of shape {h}, W_out of shape {W_out}, target={target})", h=tuple(h.shape),
                  W_out=tuple(W_out.shape), target=target)
        HEAD_CASE.update(V=W_out.shape[0], d=h.shape[0])      # the sizes a crash's message names
        with forbid_autograd():                              # by hand: backward() and autograd.grad refuse
            got = answer(h.clone(), W_out.clone(), target)
        expect_type(got, torch.Tensor, what)
        p = F.softmax(W_out @ h, dim=0)
        y = F.one_hot(torch.tensor(target), W_out.shape[0]).to(p.dtype)
        try:
            expect_close(got, expected, what, atol=1e-5, wrong=known(
                transposed=expected.T, no_target_term=torch.outer(p, h), sign_flipped=-expected,
                only_target_row=target_row_only(got, target, expected.shape),
                divided_by_width=expected / h.shape[0], gradient_of_h=W_out.T @ (p - y),
                sigmoid_not_softmax=torch.outer(torch.sigmoid(W_out @ h) - y, h),
                softmax_of_one_logit=torch.outer(1 - y, h), target_row_for_h=torch.outer(p - y, W_out[target]),
                **head_models(h, W_out, target)))
        except Mismatch as wrong:
            on_every_case(wrong, head_models, cases, answer, got, (h, W_out, target))
            raise
    return len(cases)


@exercise(solutions.lookup_gradient,
          hints=[N_("Row t of upstream is the gradient of the loss with respect to the vector looked up at position "
                 "t. Which row of the matrix did that vector come from, and what happens when two positions "
                 "looked up the same row?"),
                 N_("Start from a (vocab_size, d) matrix of zeros and add each position's upstream row into the row "
                 "of its id. Rows never looked up stay zero; a repeated id must receive the sum of its positions' "
                 "rows — an indexed assignment keeps only one of them.")],
          mistakes={
              "overwrite": N_("a repeated id received only one of its gradients. Each lookup of the same row adds "
                           "its own contribution; indexed assignment with repeated ids keeps only one of them — "
                           "`grad[ids] = upstream`, and `grad[ids] += upstream` too (it reads the rows, adds, then "
                           "writes them back: one write per repeated id survives). Add position by position, or "
                           "use index_add."),
              "mean_of_repeats": N_("a repeated id received the mean of its gradients. The row is used once per "
                                 "position, and the chain rule adds the contributions of every use: the sum, "
                                 "not the average."),
              "divided_by_positions": N_("you divided by the number of positions. `upstream` already is the gradient "
                                      "of the loss with respect to each looked-up vector (any 1/n of a mean loss is "
                                      "already in it); the lookup only routes each row of it to its id's row, "
                                      "adding them up."),
              "mean_upstream": N_("you gave every position the mean of the upstream rows. Each position has its own "
                               "gradient, row t of upstream: add upstream[t] itself to the row of ids[t]."),
              "sign_flipped": N_("every entry has the opposite sign: you returned minus the gradient, the direction "
                              "an update moves. The lookup passes the upstream rows on as they are."),
              "rows_by_position": N_("you added upstream[t] to row t, the position, not to the row of the token "
                                  "looked up there. The vector at position t came from row ids[t] of the matrix: "
                                  "that row receives its gradient."),
              "shifted_by_one": N_("you paired each id with the upstream row of the position before it (a "
                                "next-token shift). No shift here: upstream[t] is the gradient of the vector looked "
                                "up at position t, and goes to row ids[t]."),
              "first_column_only": N_("only the first column of your gradient is filled; the other d - 1 are zero. "
                                   "An index given to scatter_add is not broadcast: it must have upstream's shape "
                                   "(ids[:, None].expand_as(upstream)), or use index_add, which adds whole rows."),
              "ids_sorted_alone": N_("you sorted the ids but not the upstream rows with them, so upstream[t] went "
                                  "to the row of another position's id. Keep each id with its own upstream row "
                                  "(reorder both by the same order, or do not sort at all)."),
              "whole_sum_per_row": N_("you gave every row looked up the sum of all the upstream rows. A row gets "
                                   "only the upstream rows of the positions where its own id was looked up."),
              **mistake_texts.LOOKUP,
              "transposed": N_("your gradient has the shape (d, vocab_size) of the matrix's transpose. A gradient "
                            "has the shape of the matrix it belongs to: one row per token, (vocab_size, d)."),
          })
def lookup_gradient(answer, solution):
    generator = torch.Generator().manual_seed(6)
    cases = [(torch.tensor([2, 5, 5, 0]), torch.randn(4, 3, generator=generator), 7),
             (torch.tensor([1, 1, 1]), torch.randn(3, 2, generator=generator), 4),
             (torch.tensor([3, 0, 3, 1, 0]), torch.randn(5, 2, generator=generator), 5)]  # repeats not adjacent
    for ids, upstream, vocab_size in cases:
        W = torch.zeros(vocab_size, upstream.shape[1], requires_grad=True)
        (F.embedding(ids, W) * upstream).sum().backward()  # autograd: the upstream gradient of each lookup is `upstream`
        expected = solution(ids, upstream, vocab_size)
        assert torch.allclose(expected, W.grad)
        what = tr("lookup_gradient(ids={ids}, upstream of shape {upstream}, vocab_size={vocab_size})",
                  ids=ids.tolist(), upstream=tuple(upstream.shape), vocab_size=vocab_size)
        with forbid_autograd():
            got = answer(ids.clone(), upstream.clone(), vocab_size)
        expect_type(got, torch.Tensor, what)
        counts = torch.bincount(ids, minlength=vocab_size).clamp(min=1).unsqueeze(1)
        try:
            expect_close(got, expected, what, wrong=known(
                overwrite=one_write_per_id(got, ids, upstream, expected), mean_of_repeats=expected / counts,
                divided_by_positions=expected / len(ids),
                mean_upstream=torch.bincount(ids, minlength=vocab_size).to(upstream.dtype).unsqueeze(1)
                * upstream.mean(dim=0), sign_flipped=-expected,
                rows_by_position=by_positions(len(ids), upstream, vocab_size, solution),
                shifted_by_one=solution(ids[1:], upstream[:-1], vocab_size), **lookup_models(ids, upstream, vocab_size)))
        except Mismatch as wrong:
            on_every_case(wrong, lookup_models, cases, answer, got, (ids, upstream, vocab_size))
            raise
    return len(cases)


@exercise(solutions.starved_input_rows,
          hints=[N_("An input row is trained only when its token is read. Which tokens does the model predict, and "
                 "which of them does it never read — anywhere in the context, not only in one of its positions?"),
                 N_("Gather the set of ids that occur anywhere in inputs (all positions of all windows) and the set "
                 "of target ids; the answer is the second set without the first, as a sorted list of Python "
                 "ints.")],
          mistakes={
              "never_seen_included": N_("you also listed tokens that are never predicted either. The question is "
                                     "about tokens that occur as a target (the model learns to predict them) but "
                                     "are never read; a token absent from the data altogether is not one of them."),
              "missed_context_positions": N_("you did not look at every position of each input window (only one "
                                          "of them, or only some). A token read at any position of the context "
                                          "is looked up, and its input row gets a gradient."),
              "swapped": N_("you listed the tokens that are read but never predicted (like <bos> in the corpus above): "
                         "the set difference the wrong way round. Their input rows do get gradients, whenever they "
                         "are read. The starved rows are those of tokens predicted but never read (like <eos>)."),
              "per_window": N_("you checked each target against its own window only. An input row is trained whenever "
                            "its token is read in any window of the data, so a target is starved only if no window "
                            "at all reads it."),
              "first_window_only": N_("you compared every target with the first input window only (inputs[0]), as "
                                   "if it held the inputs of all the windows. A token is read if it occurs in any "
                                   "window: gather the ids of all of inputs."),
              "intersection": N_("you listed the tokens that are both predicted and read (the intersection of the "
                              "two sets): their rows do get gradients. The starved ones are predicted but never "
                              "read: the targets minus the inputs."),
              "never_predicted": N_("you listed the tokens that are never predicted (never a target). The starved "
                                 "input rows are those of tokens never read, among the tokens that are "
                                 "predicted: the targets minus the inputs."),
              "compared_counts": N_("you listed the tokens predicted more often than they are read. One read is "
                                 "enough: a token read even once is looked up, and its input row gets a gradient. "
                                 "Starved are the tokens predicted but never read."),
              "last_window_skipped": N_("you left the last input window out of the tokens read (inputs[:-1]). Each "
                                     "window, the last too, is read by the model: gather the ids of every window "
                                     "of inputs."),
              "first_window_skipped": N_("you left the first input window out of the tokens read (inputs[1:]). "
                                      "Each window, the first too, is read by the model: gather the ids of every "
                                      "window of inputs."),
              "nothing_removed": N_("you returned every target token, on every case: none was found among the "
                                 "inputs. A set of tensors gives that, for one (set(inputs.flatten()) holds 0-d "
                                 "tensors, hashed by identity, so no Python int is ever found in it): compare "
                                 "Python ints, from .tolist()."),
              **mistake_texts.STARVED,
          })
def starved_input_rows(answer, solution):
    cases = [(torch.tensor([[0, 0], [0, 2], [2, 3]]), torch.tensor([2, 3, 1]), 5),
             (torch.tensor([[4, 4], [1, 2]]), torch.tensor([0, 0]), 6),
             (torch.tensor([[3, 1], [0, 2]]), torch.tensor([3, 1]), 5),   # targets read only in the first position
             (torch.tensor([[1, 2]]), torch.tensor([2]), 3),
             (torch.tensor([[0, 0], [0, 5], [5, 2], [0, 0]]), torch.tensor([5, 2, 8, 1]), 10),  # set order ≠ sorted
             (torch.tensor([[0, 0, 3], [0, 3, 4], [3, 4, 1]]), torch.tensor([4, 1, 5]), 7),     # 1 read only last
             (torch.tensor([[2, 2], [0, 1], [1, 0]]), torch.tensor([2, 2, 2]), 4),  # 2 read less often than predicted
             (torch.tensor([[0, 4, 1], [1, 0, 2]]), torch.tensor([3, 4]), 5)]  # the first target starved, 4 read mid-window
    for inputs, targets, vocab_size in cases:
        what = f"starved_input_rows(inputs={inputs.tolist()}, targets={targets.tolist()}, vocab_size={vocab_size})"
        expected = solution(inputs, targets, vocab_size)     # before the answer runs, which gets copies
        got = answer(inputs.clone(), targets.clone(), vocab_size)
        expect_type(got, list, what)
        if not all(isinstance(j, int) and not isinstance(j, bool) for j in got):
            raise Mismatch(tr("{what} must return a list of Python ints", what=what), "ints",
                           [type(j).__name__ for j in got])
        targets_set, read = set(targets.tolist()), set(inputs.flatten().tolist())
        some_positions = by_some_positions(inputs, targets)
        per_window = sorted({t for row, t in zip(inputs.tolist(), targets.tolist(), strict=True) if t not in row})
        if got == per_window != expected and not checks_each_window(answer):
            per_window = None  # the same list, for another reason (e.g. every target against the first window only)
        first_window = sorted(targets_set - set(inputs[0].tolist()))
        predicted = torch.bincount(targets.flatten(), minlength=vocab_size)
        times_read = torch.bincount(inputs.flatten(), minlength=vocab_size)
        # counts and intersection both give [2] in the last case: intersection is named only if it holds on every case
        by_counts = [j for j in range(vocab_size) if predicted[j] > times_read[j]]
        expect_equal(got, expected, what, wrong={
            "never_seen_included": sorted(set(range(vocab_size)) - read),
            "swapped": sorted(read - targets_set),
            "per_window": per_window,
            "missed_context_positions": got if got in some_positions and skips_positions(answer) else None,
            "first_window_only": first_window if got == first_window != expected and checks_first_window(answer)
            else None,
            "compared_counts": by_counts,
            "never_predicted": sorted(set(range(vocab_size)) - targets_set),
            **{key: value for key, value in starved_models(inputs, targets, vocab_size).items()
               if got == value != expected and always_lists(answer, cases, key)}})
    return len(cases)
