"""Lesson 09: one wrong answer per diagnosed mistake, the shortcuts each check must refuse, plausible wrong answers
caught without a named mistake (each must say where it differs), and more answers that make a named mistake (ALSO)."""

import torch
import torch.nn.functional as F

# -- recall_at_k --------------------------------------------------------------------------------------------------


def recall_lowest(scores, suspects, k):
    flagged = torch.topk(scores, k, largest=False).indices
    return torch.isin(torch.as_tensor(suspects), flagged).double().mean().item()


def recall_per_flagged(scores, suspects, k):  # precision
    flagged = torch.topk(scores, k).indices
    return torch.isin(flagged, torch.as_tensor(suspects)).double().mean().item()


def recall_count(scores, suspects, k):
    flagged = torch.topk(scores, k).indices
    return float(torch.isin(torch.as_tensor(suspects), flagged).sum())


def recall_by_sorting_ascending(scores, suspects, k):  # the lowest k, by sorting
    flagged = torch.argsort(scores)[:k].tolist()
    return sum(s in flagged for s in suspects) / len(suspects)


def recall_top_k_plus_one(scores, suspects, k):  # one id too many
    flagged = torch.topk(scores, k + 1).indices
    return torch.isin(torch.as_tensor(suspects), flagged).double().mean().item()


def recall_first_k_ids(scores, suspects, k):  # the first k ids, not the k highest scores
    return sum(s < k for s in suspects) / len(suspects)


def recall_above_mean(scores, suspects, k):  # a threshold instead of the top k
    return (scores[torch.as_tensor(suspects)] > scores.mean()).double().mean().item()


def recall_values_for_ids(scores, suspects, k):  # the k highest scores themselves compared with the ids
    flagged = torch.topk(scores, k).values
    return torch.isin(torch.as_tensor(suspects, dtype=scores.dtype), flagged).double().mean().item()


def recall_as_fraction_string(scores, suspects, k):
    flagged = torch.topk(scores, k).indices
    return f"{int(torch.isin(torch.as_tensor(suspects), flagged).sum())}/{len(suspects)}"


# -- centred_unused_scores -------------------------------------------------------------------------------------------


def centred_not(matrix, known_unused):
    return F.cosine_similarity(matrix, matrix[known_unused].mean(0)[None, :], dim=1)


def centred_rows_only(matrix, known_unused):
    centred = matrix - matrix.mean(0)
    return F.cosine_similarity(centred, matrix[known_unused].mean(0)[None, :], dim=1)


def centred_reference_only(matrix, known_unused):
    centred = matrix - matrix.mean(0)
    return F.cosine_similarity(matrix, centred[known_unused].mean(0)[None, :], dim=1)


def centred_dot(matrix, known_unused):
    centred = matrix - matrix.mean(0)
    return centred @ centred[known_unused].mean(0)


def centred_by_known_mean(matrix, known_unused):  # the reference subtracted from itself: the mean of the known rows
    centred = matrix - matrix[known_unused].mean(0)
    return F.cosine_similarity(centred, centred[known_unused].mean(0)[None, :] + 1e-12, dim=1)


def centred_own_row_mean(matrix, known_unused):  # each row's own mean subtracted, not the mean row
    centred = matrix - matrix.mean(1, keepdim=True)
    return F.cosine_similarity(centred, centred[known_unused].mean(0)[None, :], dim=1)


def centred_mean_of_cosines(matrix, known_unused):
    centred = matrix - matrix.mean(0)
    return F.cosine_similarity(centred[:, None, :], centred[None, known_unused, :], dim=2).mean(1)


def centred_reference_uncentred_by_loop(matrix, known_unused):  # rows centred, the reference summed from raw rows
    mean_row = matrix.mean(0)
    reference = sum(matrix[k] for k in known_unused) / len(known_unused)
    return torch.stack([F.cosine_similarity(row - mean_row, reference, dim=0) for row in matrix])


def centred_as_list(matrix, known_unused):
    centred = matrix - matrix.mean(0)
    return F.cosine_similarity(centred, centred[known_unused].mean(0)[None, :], dim=1).tolist()


# -- bilinear_scores --------------------------------------------------------------------------------------------------


def bilinear_transposed(E, M):
    return E @ M.T @ E.T


def bilinear_without_m(E, M):
    return E @ E.T


def bilinear_symmetrised(E, M):
    S = E @ M @ E.T
    return (S + S.T) / 2


def bilinear_wrong_side(E, M):  # M applied to the head side: E (E M)ᵀ = E Mᵀ Eᵀ
    return E @ (E @ M).T


def bilinear_elementwise(E, M):  # M's diagonal only
    return (E * torch.diagonal(M)) @ E.T


def bilinear_as_numpy(E, M):
    return (E @ M @ E.T).numpy()


def recall_among_suspects(scores, suspects, k):  # the suspects ranked among themselves
    return min(k, len(suspects)) / len(suspects)


def recall_integer_division(scores, suspects, k):
    flagged = set(torch.topk(scores, k).indices.tolist())
    return float(sum(s in flagged for s in suspects) // len(suspects))


def recall_capped_denominator(scores, suspects, k):  # "at most k can be found"
    flagged = set(torch.topk(scores, k).indices.tolist())
    return sum(s in flagged for s in suspects) / min(k, len(suspects))


def recall_over_all_ids(scores, suspects, k):
    flagged = set(torch.topk(scores, k).indices.tolist())
    return sum(s in flagged for s in suspects) / len(scores)


def centred_reference_not_normalised(matrix, known_unused):
    centred = matrix - matrix.mean(dim=0)
    return F.normalize(centred, dim=1) @ centred[known_unused].mean(dim=0)


def centred_cosine_over_rows(matrix, known_unused):
    centred = matrix - matrix.mean(dim=0)
    reference = centred[known_unused].mean(dim=0)
    return F.cosine_similarity(centred, reference[None, :].expand_as(centred), dim=0)


def centred_on_the_other_rows(matrix, known_unused):
    others = torch.ones(matrix.shape[0], dtype=torch.bool)
    others[known_unused] = False
    centred = matrix - matrix[others].mean(dim=0)
    return F.cosine_similarity(centred, centred[known_unused].mean(dim=0)[None, :], dim=1)


def centred_unit_rows(matrix, known_unused):  # rows normalised first, then centred
    unit = F.normalize(matrix, dim=1)
    centred = unit - unit.mean(dim=0)
    return F.cosine_similarity(centred, centred[known_unused].mean(dim=0)[None, :], dim=1)


def bilinear_transposes_outside(E, M):
    return E.T @ M @ E


def bilinear_diagonal(E, M):
    return ((E @ M) * E).sum(dim=1)


def bilinear_softmaxed(E, M):
    return F.softmax(E @ M @ E.T, dim=1)


def bilinear_scaled(E, M):
    return E @ M @ E.T / E.shape[1] ** 0.5


def recall_by_size(scores, suspects, k):
    flagged = torch.topk(scores.abs(), k).indices
    return torch.isin(torch.as_tensor(suspects), flagged).double().mean().item()


def recall_slice_one_off(scores, suspects, k):
    flagged = torch.argsort(scores)[-k - 1:-1]  # drops the top score
    return torch.isin(torch.as_tensor(suspects), flagged).double().mean().item()


def recall_kthvalue_threshold(scores, suspects, k):
    threshold = torch.kthvalue(scores, k).values  # the k-th smallest, not the k-th largest
    flagged = torch.nonzero(scores >= threshold).flatten()
    return torch.isin(torch.as_tensor(suspects), flagged).double().mean().item()


def recall_strict_threshold(scores, suspects, k):  # "> the k-th highest": k − 1 ids
    threshold = torch.sort(scores, descending=True).values[k - 1]
    flagged = torch.nonzero(scores > threshold).flatten()
    return torch.isin(torch.as_tensor(suspects), flagged).double().mean().item()


def recall_as_percent(scores, suspects, k):
    flagged = torch.topk(scores, k).indices
    return 100 * torch.isin(torch.as_tensor(suspects), flagged).double().mean().item()


def centred_first_known_row(matrix, known_unused):
    centred = matrix - matrix.mean(dim=0)
    return F.cosine_similarity(centred, centred[known_unused[0]][None, :], dim=1)


def centred_on_the_median(matrix, known_unused):
    centred = matrix - matrix.median(dim=0).values
    return F.cosine_similarity(centred, centred[known_unused].mean(dim=0)[None, :], dim=1)


def centred_with_one_number(matrix, known_unused):
    centred = matrix - matrix.mean()
    return F.cosine_similarity(centred, centred[known_unused].mean(dim=0)[None, :], dim=1)


def bilinear_m_on_both_sides(E, M):
    return (E @ M) @ (E @ M).T


def bilinear_diagonal_masked(E, M):  # "a word cannot follow itself"
    S = E @ M @ E.T
    return S.masked_fill(torch.eye(len(S), dtype=torch.bool), float("-inf"))


def bilinear_plus_identity(E, M):
    return E @ (M + torch.eye(len(M), dtype=M.dtype)) @ E.T


def bilinear_log_softmaxed(E, M):
    return torch.log_softmax(E @ M @ E.T, dim=1)


def bilinear_softmax_over_columns(E, M):
    return torch.softmax(E @ M @ E.T, dim=0)


def recall_missed(scores, suspects, k):  # the share missed
    flagged = torch.topk(scores, k).indices
    return 1 - torch.isin(torch.as_tensor(suspects), flagged).double().mean().item()


def centred_standardised(matrix, known_unused):  # z-scores, not only centred
    centred = (matrix - matrix.mean(dim=0)) / matrix.std(dim=0)
    return F.cosine_similarity(centred, centred[known_unused].mean(dim=0)[None, :], dim=1)


WRONG = {
    "recall_at_k": {"lowest_k": recall_lowest, "per_flagged": recall_per_flagged, "count": recall_count,
                    "one_too_many": recall_top_k_plus_one, "suspects_only": recall_among_suspects,
                    "integer_division": recall_integer_division, "capped_denominator": recall_capped_denominator,
                    "over_all_ids": recall_over_all_ids, "by_size": recall_by_size,
                    "top_score_dropped": recall_slice_one_off, "kth_smallest_threshold": recall_kthvalue_threshold,
                    "one_too_few": recall_strict_threshold, "first_k_ids": recall_first_k_ids,
                    "percent": recall_as_percent, "miss_rate": recall_missed},
    "centred_unused_scores": {"not_centred": centred_not, "reference_not_centred": centred_rows_only,
                              "rows_not_centred": centred_reference_only, "dot_product": centred_dot,
                              "own_row_mean": centred_own_row_mean,
                              "reference_not_normalised": centred_reference_not_normalised,
                              "cosine_over_rows": centred_cosine_over_rows,
                              "centred_on_other_rows": centred_on_the_other_rows,
                              "normalised_before_centring": centred_unit_rows,
                              "first_known_row": centred_first_known_row, "median_centred": centred_on_the_median,
                              "scalar_mean": centred_with_one_number, "mean_of_cosines": centred_mean_of_cosines,
                              "standardised_columns": centred_standardised},
    "bilinear_scores": {"transposed": bilinear_transposed, "no_matrix": bilinear_without_m,
                        "symmetrised": bilinear_symmetrised, "transposes_outside": bilinear_transposes_outside,
                        "diagonal_only": bilinear_diagonal, "softmaxed": bilinear_softmaxed,
                        "scaled_by_sqrt_d": bilinear_scaled, "M_twice": bilinear_m_on_both_sides,
                        "diagonal_masked": bilinear_diagonal_masked, "plus_identity": bilinear_plus_identity,
                        "diagonal_of_M": bilinear_elementwise, "log_softmaxed": bilinear_log_softmaxed,
                        "softmax_over_columns": bilinear_softmax_over_columns},
}

SHORTCUTS = {
    "recall_at_k": [recall_as_fraction_string],
    "centred_unused_scores": [centred_as_list],
    "bilinear_scores": [bilinear_as_numpy],
}

CAUGHT = {
    "recall_at_k": [recall_above_mean, recall_values_for_ids],
    "centred_unused_scores": [centred_by_known_mean],
}

ALSO = {  # more answers that make a named mistake: exercise -> {mistake: answer}
    "recall_at_k": {"lowest_k": recall_by_sorting_ascending},
    "centred_unused_scores": {"reference_not_centred": centred_reference_uncentred_by_loop},
    "bilinear_scores": {"transposed": bilinear_wrong_side},
}
