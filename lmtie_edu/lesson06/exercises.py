"""Checks for the lesson 06 exercises: the width a tied model affords for the untied model's parameters,
perplexity over mixed targets, and which rows get a gradient in which steps, tied and untied."""

import math

import torch

from lmtie_edu.kit.exercises import Mismatch, exercise, expect_close, expect_equal, expect_type, hint
from lmtie_edu.shared.language import N_, tr

from . import mistakes, solutions

__all__ = ["combined_perplexity", "gradient_step_counts", "hint", "tied_width"]  # the lesson calls ex.hint("name")

# (V, d, c, H): the lesson's model; a fraction ≥ ½ (rounding up overshoots); a tied width that meets the budget
# exactly ("no more than" includes equal); one where forgetting the MLP's biases overshoots; one where the MLP
# is most of the model, so the freed V·d buys almost no width.
_WIDTH_CASES = [(1000, 32, 3, 64), (2000, 64, 3, 128), (65, 16, 3, 16), (50, 16, 1, 8), (50, 16, 2, 256),
                (40, 8, 3, 16)]  # a fit within c numbers of the budget: counting a part TinyLM lacks misses it


def _width_parameters(V, d, c, H, tie):
    """TinyLM's parameter count: E (and O unless tied), Linear(c·d → H) and Linear(H → d) with their biases."""
    return (1 if tie else 2) * V * d + c * d * H + H + H * d + d


def _exact_fit(V, d, c, H, solution) -> bool:
    """Does the tied model at the expected width have exactly the untied budget?"""
    return _width_parameters(V, solution(V, d, c, H), c, H, tie=True) == _width_parameters(V, d, c, H, tie=False)


@exercise(solutions.tied_width, hints=[
    N_("Write the parameter count of a TinyLM as a function of its width d, tied and untied: which parts grow "
    "with d? The untied model's count at d_model is the budget."),
    N_("Untied: 2·V·d for E and O, plus the MLP, c·d·H + H (first layer and its bias) and H·d + d (second layer "
    "and its bias); tied, one V·d. Increase d from d_model while the tied count at d + 1 still fits the budget.")],
    mistakes={
        "doubled_width": N_("you balanced the V×d matrices only (V·d' = 2·V·d gives d' = 2·d). The MLP grows with the "
                         "width too (c·d·H + H·d + d numbers), so a wider tied model also pays for a wider MLP and "
                         "affords less than twice the width."),
        "same_width": N_("d_model itself would be the answer only if the tie saved nothing. At width d_model the tied "
                      "model has V·d fewer parameters than the untied one, so it can be wider. (Counting the shared "
                      "matrix twice — state_dict() lists it under both names — gives this answer.)"),
        "over_budget": N_("a tied model of your width has more parameters than the untied model: you rounded up, left "
                       "something out of the tied count (the two Linear layers' biases are H + d numbers), or put "
                       "something into the untied budget that TinyLM does not have (its head has no bias). The "
                       "answer is the largest width that still fits the budget."),
        "below_budget": N_("one width short: at the expected width the tied model has exactly as many parameters as "
                        "the untied one, and \"no more than\" includes equal — your count stopped while it was "
                        "still strictly below the budget."),
        "context_forgotten": N_("your MLP's first layer reads one vector of d numbers (d·H weights): it reads the "
                             "c context vectors side by side, c·d numbers, so it has c·d·H weights, in the budget "
                             "and in the tied count alike."),
        "hidden_grows_with_width": N_("you let the MLP's hidden size grow with the width (H = 4·d, the transformer "
                                   "habit): TinyLM's hidden size is the given `hidden`, the same at every width, so "
                                   "only c·d·H + H·d + d of the MLP grows with d."),
        "position_table": N_("you counted a table of position vectors (context × d numbers): TinyLM has none (it "
                          "reads the c context vectors side by side), so its count is E (and O), the two Linear "
                          "layers and their biases."),
        "second_layer_forgotten": N_("you left out the MLP's second layer, Linear(H → d) with its bias (H·d + d "
                                  "numbers, which grow with the width): without it a wider model looks cheaper "
                                  "than it is."),
        "multiple_of_8": N_("you rounded the width down to a multiple of 8: the exercise asks for the largest "
                         "width that fits the budget, whatever it is."),
        "parameters_saved": N_("you returned V·d_model, the number of parameters the tie saves: the exercise asks "
                            "for the width those saved parameters buy."),
    })
def tied_width(answer, solution):
    for V, d, c, H in _WIDTH_CASES:
        expected = solution(V, d, c, H)
        got = answer(V, d, c, H)
        what = f"tied_width(vocab_size={V}, d_model={d}, context={c}, hidden={H})"
        expect_type(got, int, what)
        for key, model in mistakes.WIDTH_MISTAKES.items():  # a count of its own, if the answer gives it everywhere
            if got != expected and got == model(V, d, c, H) and mistakes.always_gives(
                    answer, ((case, case) for case in _WIDTH_CASES), model, lambda a, b: a == b):
                raise Mismatch(tr("{what}: wrong value", what=what), expected, got, mistake=key)
        wrong = {"doubled_width": 2 * d, "same_width": d, "over_budget": expected + 1,
                 "context_forgotten": solution(V, d, 1, H)}
        if _exact_fit(V, d, c, H, solution) and (got != expected - 1 or all(
                answer(*case) == solution(*case) for case in _WIDTH_CASES if not _exact_fit(*case, solution))):
            wrong["below_budget"] = expected - 1     # the exact fit: only `<` instead of `<=` returns one less, and
            # it is right wherever the fit is not exact (a count with a part TinyLM lacks is wrong there too)
        expect_equal(got, expected, what, wrong={key: value for key, value in wrong.items() if value != expected})
    return len(_WIDTH_CASES)


_PERPLEXITY_CASES = [(145.5, 4.6, 0.257), (200.0, 7.0, 0.132), (80.0, 3.0, 0.0), (60.0, 5.0, 0.75)]


def _close(got, value) -> bool:
    return isinstance(got, float) and math.isclose(got, value, rel_tol=1e-6)


def _exp(x: float) -> float:
    return math.exp(x) if x < 700 else math.inf


@exercise(solutions.combined_perplexity, hints=[
    N_("Perplexities do not average. What averages over the targets is the cross-entropy, and a perplexity is "
    "the exponential of a mean cross-entropy."),
    N_("Turn each of the two perplexities back into the mean cross-entropy it came from (a logarithm), take the "
    "mean of the two weighted by how many targets each kind has, and turn the result into a perplexity again.")],
    mistakes={
        "averaged_perplexities": N_("you averaged the two perplexities. A perplexity is the exponential of a mean "
                                 "cross-entropy, so the averaging happens on the log scale: the result is a "
                                 "weighted geometric mean, much lower than the arithmetic one when the two differ "
                                 "a lot (a few easy <unk> targets pull the perplexity down strongly)."),
        "swapped_shares": N_("the weights are swapped: `unk_share` is the share of <unk> targets, so it weighs the "
                          "<unk> perplexity, and the rest (1 − unk_share) weighs the real words."),
        "unweighted": N_("you gave both kinds of target the same weight; each kind counts as often as it occurs, "
                      "so weigh by the shares."),
        "no_exponential": N_("you returned the mean cross-entropy (nats per target), the weighted mean of the two "
                          "logarithms; the perplexity is its exponential."),
        "mismatched_bases": N_("your logarithm and your power are of different bases (math.log with 10 **, or "
                            "math.log2 with math.exp, …): the power must undo the logarithm, so use exp after "
                            "math.log (or 2 ** after math.log2)."),
        "perplexities_as_cross_entropies": N_("you exponentiated the weighted mean of the perplexities themselves: "
                                           "a perplexity is already an exponential. Average their logarithms "
                                           "(the cross-entropies), then take the exponential."),
        "halved_mean": N_("you divided the weighted mean of the logarithms by 2: the weights (1 − unk_share) and "
                       "unk_share already add up to 1, so the weighted sum is the mean."),
        "share_as_percent": N_("you divided unk_share by 100: it is a fraction between 0 and 1 (0.257 means 25.7 % "
                            "of the targets), not a percentage."),
        "unk_added_on_top": N_("you kept the whole cross-entropy of the real words and added the <unk> term on top: "
                            "the mean cross-entropy weighs the words' part by their share too, (1 − unk_share)."),
        "unk_term_dropped": N_("you left out the <unk> targets' term: the mean cross-entropy is (1 − unk_share)·ln "
                            "word_perplexity + unk_share·ln unk_perplexity, both terms."),
        "word_term_dropped": N_("you left out the real words' term: the mean cross-entropy is (1 − unk_share)·ln "
                             "word_perplexity + unk_share·ln unk_perplexity, both terms."),
        "word_perplexity_only": N_("you returned the perplexity on the real words alone: the <unk> targets are "
                                "targets too, and the perplexity over all targets includes them."),
        "harmonic_mean": N_("you took a weighted harmonic mean of the perplexities: a perplexity is the exponential "
                         "of a mean cross-entropy, so the weighted mean is taken of their logarithms (a weighted "
                         "geometric mean)."),
        "words_share_for_both": N_("you weighed both cross-entropies by the words' share (1 − unk_share): the <unk> "
                                "term is weighed by unk_share, so that the two weights add up to 1."),
    })
def combined_perplexity(answer, solution):
    for words, unk, share in _PERPLEXITY_CASES:
        expected = solution(words, unk, share)
        got = answer(words, unk, share)
        what = f"combined_perplexity({words}, {unk}, {share})"
        expect_type(got, float, what)
        if math.isclose(got, expected, rel_tol=1e-6):
            continue
        wrong = {"averaged_perplexities": (1 - share) * words + share * unk,
                 "swapped_shares": math.exp(share * math.log(words) + (1 - share) * math.log(unk)),
                 "unweighted": math.sqrt(words * unk),
                 "no_exponential": math.log(expected)}
        log_mean = math.log(expected)
        wrong = [*wrong.items(), *(("mismatched_bases", value) for value in (
                    10 ** log_mean, 2 ** log_mean, math.exp(log_mean / math.log(2)), math.exp(log_mean / math.log(10)))),
                 ("perplexities_as_cross_entropies", _exp((1 - share) * words + share * unk)),
                 ("halved_mean", math.exp(log_mean / 2)),
                 ("share_as_percent", math.exp((1 - share / 100) * math.log(words) + share / 100 * math.log(unk)))]
        mistake = next((key for key, value in wrong if math.isclose(got, value, rel_tol=1e-6)), None)
        mistake = mistake or next((key for key, model in mistakes.PERPLEXITY_MISTAKES.items() if _close(
            got, model(words, unk, share)) and mistakes.always_gives(answer, ((case, case) for case in _PERPLEXITY_CASES),
                                                                   model, _close)), None)
        raise Mismatch(tr("{what}: wrong value", what=what), round(expected, 3), round(got, 3) if math.isfinite(got) else got,
                       mistake=mistake)
    return len(_PERPLEXITY_CASES)


def _lesson_batches():
    """Three steps, V = 8, c = 2: id 2 is read three times in step 1, ids 6 and 7 only ever are targets."""
    return [(torch.tensor([[1, 2], [2, 2]]), torch.tensor([3, 1])),
            (torch.tensor([[3, 4], [1, 5]]), torch.tensor([2, 6])),
            (torch.tensor([[2, 1], [5, 5]]), torch.tensor([7, 2]))]


def _random_batches(seed, vocab_size, steps, batch, context):
    generator = torch.Generator().manual_seed(seed)
    skew = torch.arange(vocab_size, 0, -1, dtype=torch.float) ** 2       # a few frequent words, a long tail

    def draw(n):
        return torch.multinomial(skew, n, replacement=True, generator=generator)

    return [(draw(batch * context).reshape(batch, context), draw(batch)) for _ in range(steps)]


def _gradient_cases():
    return [(_lesson_batches(), 8, False), (_random_batches(61, 20, 12, 4, 3), 20, False),
            (_lesson_batches(), 8, True), (_random_batches(62, 20, 12, 4, 3), 20, True)]


def _same(a, b) -> bool:
    """Equal numbers and shape; ``a`` may be anything a learner returned (False if it is not numbers)."""
    try:
        a = torch.as_tensor(a).detach()
    except (TypeError, ValueError, RuntimeError):
        return False
    return a.shape == b.shape and bool(torch.equal(a.double(), b.double()))


def _same_pair(got, pair) -> bool:
    return isinstance(got, (tuple, list)) and len(got) == 2 and all(_same(g, w) for g, w in zip(got, pair, strict=True))


@exercise(solutions.gradient_step_counts, hints=[
    N_("Two different questions, one per side. A row of E gets a gradient when the lookup reads it; a row of O "
    "gets one whenever its score enters the loss — and the softmax gives every word a score. Tied, ask which "
    "matrix the gradient lands in."),
    N_("Untied: for each step, mark the ids that occur in that step's inputs (once per step, however often they "
    "occur; torch.bincount with minlength=vocab_size, then > 0) and add the marks up; every output row counts "
    "every step. Tied: E is O, so both counts are the count of the one matrix's rows.")],
    mistakes={
        "output_only_targets": N_("your output counts are the steps in which the word is a target. The softmax gives "
                               "every word a probability, so every row of O gets a gradient at every step (p_j·h "
                               "for a wrong word: small, not zero) — lesson 03's correction of \"only the target "
                               "row gets a gradient\"."),
        "counted_occurrences": N_("you counted how often each word is read, not in how many steps: a row read three "
                               "times in one batch gets one gradient in that step (the three contributions are "
                               "summed into it)."),
        "tied_as_untied": N_("for the tied model you returned the untied counts. After the tie E and O are one "
                          "Parameter with one .grad, so a row gets a gradient whenever either use reaches it — "
                          "and the output side reaches every row at every step. That is what tying gives a rare "
                          "word: its one row is trained at every step."),
        "tied_summed": N_("you added the two sides' counts. Tied, the two contributions are summed into one gradient "
                       "per step, so a row counts once per step: no count can exceed the number of steps."),
        "tied_reads_only": N_("for the tied model you counted only the steps in which the row is read. The one "
                           "matrix is also the output layer, and the softmax sends a gradient to every one of its "
                           "rows at every step: tied, every count is the number of steps."),
        "counted_positions": N_("you counted, per step, the context positions in which the word is read (any over "
                             "the batch, then a sum over positions): a row read at two positions of one step gets "
                             "one gradient in that step. Ask only whether the step reads it at all."),
        "first_example_only": N_("your input counts look at the first example of each batch only (inputs[0] is one "
                              "row of the batch): every example's context is read in that step, so look at all of "
                              "the step's inputs."),
        "pair_swapped": N_("your pair is in the wrong order: return (input_counts, output_counts), the rows of E "
                        "first and the rows of O second."),
        "output_batch_size": N_("your output counts are the batch size. A row of O gets one gradient per step (the "
                             "batch's examples are summed into it), so its count is the number of steps."),
        "input_from_targets": N_("your untied input counts are the steps in which the word is a target: a row of E "
                              "gets a gradient when the lookup reads it, so count the steps whose inputs contain "
                              "the word."),
        "marked_not_counted": N_("your untied input counts say only whether a row was ever read (0 or 1): count the "
                              "steps in which it is read, adding one for every step (+=), not setting it to 1."),
        "inputs_and_targets": N_("your untied input counts also count the steps in which the word is only a target: "
                              "the target's row of E is not read (the target is scored by O), so only the inputs "
                              "count."),
        "last_context_word_only": N_("your untied input counts look at the last context position only (inputs[:, -1]): "
                                  "the model reads every word of the window, so look at all of the step's inputs."),
        "tied_union_of_reads_and_targets": N_("tied, you counted the steps in which the row is read or is a target: "
                                           "the one matrix is also the output layer, and the softmax sends a "
                                           "gradient to every one of its rows at every step, so every count is the "
                                           "number of steps."),
    })
def gradient_step_counts(answer, solution):
    cases = _gradient_cases()
    for batches, vocab_size, tie in cases:
        expected = solution([(x.clone(), y.clone()) for x, y in batches], vocab_size, tie)
        got = answer([(x.clone(), y.clone()) for x, y in batches], vocab_size, tie)
        what = tr("gradient_step_counts({count} batches of shape {shape}, vocab_size={vocab_size}, tie={tie})",
                  count=len(batches), shape=tuple(batches[0][0].shape), vocab_size=vocab_size, tie=tie)
        if not isinstance(got, (tuple, list)) or len(got) != 2:
            raise Mismatch(tr("{what} must return a pair (input_counts, output_counts)", what=what),
                           tr("a pair of tensors"),
                           type(got).__name__ if not isinstance(got, (tuple, list)) else tr("{count} items", count=len(got)))
        wrong = {key: pair for key, pair in mistakes.gradient_mistakes(batches, vocab_size, tie).items()
                 if not all(_same(w, e) for w, e in zip(pair, expected, strict=True))}
        mistake = next((key for key, pair in wrong.items()
                        if all(_same(g, w) for g, w in zip(got, pair, strict=True))), None)
        if mistake is None and not all(_same(g, e) for g, e in zip(got, expected, strict=True)):
            mistake = next((key for key, model in mistakes.COUNT_MISTAKES.items() if _same_pair(
                got, model(batches, vocab_size, tie)) and mistakes.always_gives(answer, (
                    (([(x.clone(), y.clone()) for x, y in b], v, t), (b, v, t)) for b, v, t in cases), model,
                    _same_pair)), None)
            wrong[mistake] = mistakes.COUNT_MISTAKES[mistake](batches, vocab_size, tie) if mistake else None
        for index, part in enumerate((N_("input counts (rows of E)"), N_("output counts (rows of O)"))):
            expect_close(got[index], expected[index], tr("{what}: the {part}", what=what, part=tr(part)),
                         wrong={mistake: wrong[mistake][index]} if mistake else None)
    return len(cases)
