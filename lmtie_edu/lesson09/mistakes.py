"""What more known mistakes of the lesson 09 exercises give on a case, so that the checks can recognise them
(``exercises`` names a mistake when the answer's value is the one computed here, in every case)."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from lmtie_edu.kit.feedback import LearnerCrash


def _share(suspects, flagged) -> float:
    return sum(1 for i in suspects if i in set(flagged.tolist())) / len(suspects)


def recall_slips(scores: torch.Tensor, suspects: list[int], k: int) -> dict[str, float]:
    """What more slips of flagging return: the k largest scores by size, the top score dropped (a slice one place
    off), a threshold at the k-th smallest score, k − 1 ids flagged, the first k ids, a percentage, 1 − recall."""
    order = torch.argsort(scores)
    threshold = torch.kthvalue(scores, k).values
    found = _share(suspects, torch.topk(scores, k).indices)
    return {"by_size": _share(suspects, torch.topk(scores.abs(), k).indices),
            "top_score_dropped": _share(suspects, order[-k - 1:-1]),
            "kth_smallest_threshold": _share(suspects, torch.nonzero(scores >= threshold).flatten()),
            "one_too_few": _share(suspects, torch.topk(scores, k - 1).indices),
            "first_k_ids": sum(1 for i in suspects if i < k) / len(suspects),
            "percent": 100 * found, "miss_rate": 1 - found}


def centring_slips(matrix: torch.Tensor, known: list[int]) -> dict[str, torch.Tensor]:
    """What five more slips of the centred score return: the first known row as the reference, centring on the
    median row or on the one-number mean, the mean of the cosines with each known row, columns standardised."""
    centred = matrix - matrix.mean(0)
    by_median = matrix - matrix.median(dim=0).values
    by_number = matrix - matrix.mean()
    standard = (matrix - matrix.mean(0)) / matrix.std(0)
    return {"first_known_row": F.cosine_similarity(centred, centred[known[0]][None, :], dim=1),
            "median_centred": F.cosine_similarity(by_median, by_median[known].mean(0)[None, :], dim=1),
            "scalar_mean": F.cosine_similarity(by_number, by_number[known].mean(0)[None, :], dim=1),
            "mean_of_cosines": F.cosine_similarity(centred[:, None, :], centred[None, known, :], dim=2).mean(1),
            "standardised_columns": F.cosine_similarity(standard, standard[known].mean(0)[None, :], dim=1)}


def close(got, value, atol: float) -> bool:
    try:
        got = torch.as_tensor(got).detach().double()
    except (TypeError, ValueError, RuntimeError):
        return False
    return got.shape == value.shape and bool(torch.allclose(got, value.double(), atol=atol))


def always_gives(answer, cases, key: str, atol: float) -> bool:
    """Does the answer return centring_slips(*case)[key] on every (matrix, known) case? A crash: no."""
    try:
        return all(close(answer(matrix.clone(), list(known)), centring_slips(matrix, known)[key], atol)
                   for matrix, known in cases)
    except LearnerCrash:
        return False
