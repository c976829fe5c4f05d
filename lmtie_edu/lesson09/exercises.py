"""Checks for the lesson 09 exercises."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from lmtie_edu.kit.exercises import exercise, expect_close, expect_type, hint
from lmtie_edu.shared.language import N_, tr
from lmtie_edu.shared.seeding import seeded

from . import mistakes, solutions

__all__ = ["bilinear_scores", "centred_unused_scores", "hint", "recall_at_k"]  # the lesson calls ex.hint("name")


# -- exercise 1: what a person inspecting the top k finds ----------------------------------------------------------
# Ten distinct scores; k below, equal to and above the number of suspects, so that dividing by k, counting, or
# taking the lowest scores each give another value in some case.
RECALL_SCORES = [0.3, 2.5, -1.0, 0.9, 4.0, 1.7, -0.2, 3.1, 0.1, 2.2]
RECALL_CASES = [([4, 7, 2], 2), ([4, 7, 2], 3), ([1, 9, 5, 6], 5), ([2, 6], 4), ([5, 3], 4), ([4, 7], 1),
                ([4, 7], 2), ([5, 0], 1),  # every suspect flagged (// gives 1); k + 1 ids differ from those above the mean
                ([3], 6)]  # 3's score 0.9 is 6th highest; ranked by size (|−1.0| > 0.9), id 2 would take its place


def _recall(scores: torch.Tensor, suspects: list[int], flagged: torch.Tensor) -> tuple[int, int]:
    found = sum(1 for i in suspects if i in set(flagged.tolist()))
    return found, len(suspects)


@exercise(solutions.recall_at_k,
          hints=[N_("Flag the k ids with the highest scores (the ones a person would look at first), then ask: what "
                 "share of the suspects is among them? The answer is a number between 0 and 1."),
                 N_("torch.topk(scores, k).indices are the flagged ids; torch.isin(torch.as_tensor(suspects), flagged) "
                 "says for each suspect whether it was flagged. Average that over the suspects and return a float.")],
          mistakes={"lowest_k": N_("you flagged the k lowest scores: the detector's score is higher for a likelier "
                    "suspect, so a person inspects the k highest."),
                    "per_flagged": N_("you divided by k, the number of flagged ids: that is the share of the flagged ids "
                    "that are suspects (precision). Recall divides by the number of suspects."),
                    "count": N_("you returned how many suspects were flagged; recall is that count divided by the "
                    "number of suspects, a share between 0 and 1."),
                    "one_too_many": N_("you flagged k + 1 ids: in the scores sorted from the highest, the k-th highest "
                    "sits at index k − 1 (indices start at 0), so a threshold at index k lets one id too many "
                    "through. Flag exactly k ids (torch.topk(scores, k))."),
                    "suspects_only": N_("you ranked the suspects among themselves: the k flagged ids are the k highest "
                    "scores of all the ids, and ids that are not suspects can take those places. Flag from all the "
                    "scores, then count the suspects among the flagged."),
                    "integer_division": N_("you divided with //, which rounds down to a whole number: the share is 0 "
                    "unless every suspect is found. Divide with /."),
                    "capped_denominator": N_("you divided by the smaller of k and the number of suspects: recall "
                    "divides by the number of suspects, even when k is too small to flag them all (then recall "
                    "cannot reach 1, and that is what it should show)."),
                    "over_all_ids": N_("you divided by the number of all ids (len(scores)): recall divides the suspects "
                    "found by the number of suspects."),
                    "by_size": N_("you flagged the k scores largest in size (their absolute values): a large "
                    "negative score is an unlikely suspect, not a likely one. Flag the k highest scores, signs "
                    "kept."),
                    "top_score_dropped": N_("your k flagged ids leave out the highest score and take the (k + 1)-th "
                    "instead: a slice one place off (argsort(...)[-k - 1:-1] stops before the last index). The "
                    "top k of an ascending argsort are [-k:]."),
                    "kth_smallest_threshold": N_("you kept every score at or above the k-th smallest one "
                    "(torch.kthvalue counts from the lowest): that flags all but k − 1 ids. The k-th highest is "
                    "kthvalue(scores, len(scores) − k + 1), or use torch.topk(scores, k)."),
                    "one_too_few": N_("you flagged k − 1 ids: a strict threshold at the k-th highest score, or a "
                    "slice that stops one short, leaves out the k-th. Flag exactly k ids (torch.topk(scores, k))."),
                    "first_k_ids": N_("you flagged the ids 0 to k − 1, the first k ids: the flagged ids are those "
                    "with the k highest scores (torch.topk(scores, k).indices)."),
                    "percent": N_("you returned recall as a percentage (times 100): the exercise asks for the "
                    "share itself, a number between 0 and 1."),
                    "miss_rate": N_("you returned the share of the suspects that were not flagged (1 − recall): "
                    "recall is the share that were.")})
def recall_at_k(answer, solution):
    scores = torch.tensor(RECALL_SCORES, dtype=torch.float64)
    runs = []
    for suspects, k in RECALL_CASES:
        call = f"recall_at_k(scores, {suspects}, k={k})"
        expected = solution(scores.clone(), list(suspects), k)
        found, total = _recall(scores, suspects, torch.topk(scores, k).indices)
        low, _ = _recall(scores, suspects, torch.topk(scores, k, largest=False).indices)
        more, _ = _recall(scores, suspects, torch.topk(scores, k + 1).indices)
        slips = {"lowest_k": low / total, "per_flagged": found / k, "count": float(found), "one_too_many": more / total,
                 "suspects_only": min(k, total) / total, "integer_division": float(found // total),
                 "capped_denominator": found / min(k, total), "over_all_ids": found / len(scores),
                 **mistakes.recall_slips(scores, suspects, k)}
        got = answer(scores.clone(), list(suspects), k)
        if isinstance(got, torch.Tensor) and got.numel() == 1:
            got = got.item()
        expect_type(got, (float, int), call)
        runs.append((call, expected, slips, float(got)))
    # A mistake is named only when the answer gives its value in every case: a number that happens to equal the
    # k lowest scores' recall in one case (0.0, say) is not evidence that the answer flagged the lowest scores.
    made = {key for key in runs[0][2] if all(abs(got - slips[key]) <= 1e-9 for _, _, slips, got in runs)}
    for call, expected, slips, got in runs:
        wrong = {key: value for key, value in slips.items() if key in made and abs(value - expected) > 1e-9}
        expect_close(got, expected, call, atol=1e-9, wrong=wrong)
    return len(RECALL_CASES)


# -- exercise 2: the known-unused direction, centred ----------------------------------------------------------------
def _matrices() -> list[tuple[str, torch.Tensor, list[int]]]:
    with seeded(3):
        small = torch.randn(6, 3, dtype=torch.float64) + torch.tensor([1.5, -1.0, 0.0], dtype=torch.float64)
        shifted = torch.randn(20, 5, dtype=torch.float64) + torch.tensor([2.0, 0, 0, 0, 0], dtype=torch.float64)
    shifted[15:] *= 3                                   # long rows, as the never-seen ids of a tied model
    return [(N_("a 6 × 3 matrix whose rows share an offset, rows 1 and 4 known unused"), small, [1, 4]),
            (N_("a 20 × 5 matrix, rows 15 to 19 known unused and long"), shifted, [15, 16, 17, 18, 19])]


def _own_row_mean_scores(matrix: torch.Tensor, known: list[int]) -> torch.Tensor:
    centred = matrix - matrix.mean(1, keepdim=True)
    return F.cosine_similarity(centred, centred[known].mean(0)[None, :], dim=1)


def _centring_slips(matrix: torch.Tensor, known: list[int]) -> dict[str, torch.Tensor]:
    """What four more slips return: the reference left unnormalised, the cosine down the columns, centring on the
    other rows' mean, unit rows centred."""
    centred = matrix - matrix.mean(0)
    reference = centred[known].mean(0)
    others = torch.ones(len(matrix), dtype=torch.bool)
    others[known] = False
    on_others = matrix - matrix[others].mean(0)
    unit = F.normalize(matrix, dim=1)
    unit_centred = unit - unit.mean(0)
    return {"reference_not_normalised": F.normalize(centred, dim=1) @ reference,
            "cosine_over_rows": F.cosine_similarity(centred, reference[None, :].expand_as(centred), dim=0),
            "centred_on_other_rows": F.cosine_similarity(on_others, on_others[known].mean(0)[None, :], dim=1),
            "normalised_before_centring": F.cosine_similarity(unit_centred, unit_centred[known].mean(0)[None, :], dim=1)}


@exercise(solutions.centred_unused_scores,
          hints=[N_("Centre first: subtract the mean row (over all rows) from every row. Then do §4's recipe on the "
                 "centred matrix: the reference is the mean of the centred rows whose ids are in known_unused, and "
                 "each row's score is its cosine with that reference."),
                 N_("centred = matrix - matrix.mean(dim=0); reference = centred[known_unused].mean(dim=0); "
                 "F.cosine_similarity(centred, reference[None, :], dim=1) gives one score per row, shape (V,).")],
          mistakes={"not_centred": N_("you scored the matrix as it is (§4's recipe): the exercise centres it first — "
                    "subtract the mean row from every row, and build the reference from the centred rows."),
                    "reference_not_centred": N_("you centred the rows but took the reference from the rows as they "
                    "were: the reference must be the mean of the centred known unused rows."),
                    "rows_not_centred": N_("you centred only the reference: every row must be centred too before its "
                    "cosine is taken."),
                    "dot_product": N_("you scored each centred row by its dot product with the reference, not its "
                    "cosine: long rows then score high whatever their direction. Divide by both lengths."),
                    "own_row_mean": N_("you subtracted from each row its own mean (the mean over dim=1): centring "
                    "subtracts the mean row — the mean over all rows, dim=0 — from every row."),
                    "reference_not_normalised": N_("you divided each row by its length but not the reference: the "
                    "cosine divides by both lengths, so every score came out times the reference's length."),
                    "cosine_over_rows": N_("you took the cosine along dim=0, down the columns: one number per column. "
                    "A score is one cosine per row, along dim=1, shape (V,)."),
                    "centred_on_other_rows": N_("you centred with the mean of the rows that are not known unused: "
                    "centring subtracts the mean row over all the rows, the known unused ones included."),
                    "normalised_before_centring": N_("you made every row unit length before centring, so you "
                    "subtracted the mean of the unit rows: centre the rows as they are (the cosine ignores their "
                    "lengths afterwards)."),
                    "first_known_row": N_("your reference is the first known unused row alone: it is the mean of "
                    "all the known unused rows (centred), so that no single row's quirks decide the direction."),
                    "median_centred": N_("you centred on the median row (median over dim=0): centring subtracts the "
                    "mean row, matrix.mean(dim=0)."),
                    "scalar_mean": N_("you centred with one number, the mean of all entries (matrix.mean() without "
                    "dim=0): centring subtracts the mean row, one mean per column, matrix.mean(dim=0) of shape "
                    "(d,)."),
                    "mean_of_cosines": N_("you averaged each row's cosines with the known unused rows one by one: "
                    "the score is the cosine with one reference, the mean of those centred rows (a mean of "
                    "cosines is not the cosine with the mean)."),
                    "standardised_columns": N_("you also divided every column by its standard deviation: centring "
                    "only subtracts the mean row; scaling the columns changes the directions, and so the "
                    "cosines.")})
def centred_unused_scores(answer, solution):
    cases = _matrices()
    for what, matrix, known in cases:
        call = tr("centred_unused_scores(matrix, known_unused) with {case}", case=tr(what))
        expected = solution(matrix.clone(), list(known))
        centred = matrix - matrix.mean(0)
        wrong = {"not_centred": F.cosine_similarity(matrix, matrix[known].mean(0)[None, :], dim=1),
                 "reference_not_centred": F.cosine_similarity(centred, matrix[known].mean(0)[None, :], dim=1),
                 "rows_not_centred": F.cosine_similarity(matrix, centred[known].mean(0)[None, :], dim=1),
                 "dot_product": centred @ centred[known].mean(0),
                 "own_row_mean": _own_row_mean_scores(matrix, known), **_centring_slips(matrix, known)}
        got = answer(matrix.clone(), list(known))
        expect_type(got, torch.Tensor, call)
        more = {key: value for key, value in mistakes.centring_slips(matrix, known).items() if mistakes.always_gives(
            answer, [(m, k) for _, m, k in cases], key, 1e-6)} if not mistakes.close(got, expected, 1e-6) else {}
        expect_close(got, expected, call, atol=1e-6, wrong={**wrong, **more})
    return len(cases)


# -- exercise 3: a matrix between breaks the symmetry ------------------------------------------------------------------
@exercise(solutions.bilinear_scores,
          hints=[N_("Row i of the result holds the scores of every token j following token i: e_i M e_j. Start from the "
                 "tied scores E Eᵀ and put M between the two factors."),
                 N_("E @ M gives the rows e_i M; multiply by E.T to take the dot product with every e_j. Check that the "
                 "result is not symmetric when M is not.")],
          mistakes={"transposed": N_("your matrix is transposed: entry [i, j] holds the score of i following j "
                    "(E Mᵀ Eᵀ). Row i must hold what follows token i: e_i M e_j."),
                    "no_matrix": N_("you returned the tied scores E Eᵀ without M: they are symmetric, which is what M "
                    "is there to break."),
                    "symmetrised": N_("you averaged the scores with their transpose: that makes them symmetric again, "
                    "and a score of j after i equals the score of i after j — the very limit M removes."),
                    "transposes_outside": N_("you multiplied Eᵀ (d × V) by M (d × d), as in Eᵀ M E: their shapes do "
                    "not fit, and Eᵀ M E would be d × d anyway. Row i of the scores is e_i M Eᵀ, so E comes first: "
                    "the scores are V × V."),
                    "diagonal_only": N_("you computed e_i M e_i for every i, the diagonal only: the scores hold "
                    "e_i M e_j for every pair (i, j), a V × V matrix."),
                    "softmaxed": N_("you returned probabilities (a softmax of each row): the exercise asks for the "
                    "scores themselves, before any softmax."),
                    "scaled_by_sqrt_d": N_("you divided by √d, as attention does: these scores are the plain bilinear "
                    "form e_i M e_j, unscaled."),
                    "M_twice": N_("you multiplied both sides by M, (E M)(E M)ᵀ = E M Mᵀ Eᵀ: M sits once between "
                    "the two factors, e_i M e_j, and the other side is E itself."),
                    "diagonal_masked": N_("you set the diagonal to −inf (a word may not follow itself): the "
                    "exercise asks for every score e_i M e_j, the diagonal included; masking is a later choice."),
                    "plus_identity": N_("you used M + I, so the tied scores E Eᵀ are added to the bilinear ones: the "
                    "scores are e_i M e_j with M alone."),
                    "diagonal_of_M": N_("you used only M's diagonal (E scaled by it, element by element): that "
                    "diagonal matrix is symmetric, so the scores are symmetric again. Multiply by the whole M, "
                    "E @ M @ E.T."),
                    "log_softmaxed": N_("you returned log-probabilities (a log_softmax of each row): the exercise "
                    "asks for the scores themselves, before any softmax."),
                    "softmax_over_columns": N_("you returned a softmax over each column (dim=0): the exercise asks "
                    "for the scores themselves, before any softmax.")},
          on_error=lambda error: "transposes_outside" if "(3x5 and 3x3)" in str(error) else None)
def bilinear_scores(answer, solution):
    with seeded(4):
        E = torch.randn(5, 3, dtype=torch.float64)
        M = torch.randn(3, 3, dtype=torch.float64)
    call = tr("bilinear_scores(E, M) with E 5 × 3 and M 3 × 3 (not symmetric)")
    expected = solution(E.clone(), M.clone())
    assert not torch.allclose(expected, expected.T), "the check's example must not be symmetric"
    got = answer(E.clone(), M.clone())
    expect_type(got, torch.Tensor, call)
    diagonal = torch.eye(len(E), dtype=torch.bool)
    expect_close(got, expected, call, atol=1e-9, wrong={"transposed": expected.T, "no_matrix": E @ E.T,
                                                        "symmetrised": (expected + expected.T) / 2,
                                                        "diagonal_only": torch.diagonal(expected),
                                                        "softmaxed": torch.softmax(expected, dim=1),
                                                        "scaled_by_sqrt_d": expected / E.shape[1] ** 0.5,
                                                        "M_twice": E @ M @ M.T @ E.T,
                                                        "diagonal_masked": expected.masked_fill(diagonal, -torch.inf),
                                                        "plus_identity": expected + E @ E.T,
                                                        "diagonal_of_M": E @ torch.diag(torch.diagonal(M)) @ E.T,
                                                        "log_softmaxed": torch.log_softmax(expected, dim=1),
                                                        "softmax_over_columns": torch.softmax(expected, dim=0)})
    return 1
