"""What known mistakes of the lesson 02 exercises give on a case, and whether an answer gives it on every case
(``exercises`` names a mistake only then: one case alone can fit another mistake too)."""

from collections.abc import Callable

import torch

from lmtie_edu.kit.feedback import LearnerCrash


def up_to_a_factor(rows: torch.Tensor) -> torch.Tensor:
    """Rows divided by their mean length: any common positive factor gives the same ranking, so it is ignored."""
    return rows / rows.norm(dim=1).mean()


def cosine_models(W) -> dict:
    """The rows each wrong normalisation gives (before the common factor is taken out)."""
    norms = W.norm(dim=1, keepdim=True)
    return {"sqrt_of_norm": W / norms.sqrt(), "squared_norm": W / norms ** 2,
            "l1_norm": W / W.abs().sum(dim=1, keepdim=True), "max_entry": W / W.abs().amax(dim=1, keepdim=True),
            "signed_sum": W / W.sum(dim=1, keepdim=True), "std_only": W / W.std(dim=1, keepdim=True),
            "norm_clamped_at_one": W / norms.clamp(min=1)}


def transposed_head(W) -> torch.Tensor:
    return (W / W.norm(dim=1, keepdim=True)).T


def token_cosines(W) -> torch.Tensor:
    unit = W / W.norm(dim=1, keepdim=True)
    return unit @ unit.T


def _close(got, value) -> bool:
    return (isinstance(got, torch.Tensor) and got.shape == value.shape and got.is_floating_point()
            and bool(torch.allclose(got.detach().double(), value.double(), atol=1e-5, rtol=1e-5)))


def always_rows(answer, matrices: list, model: Callable, *, factor: bool = True) -> bool:
    """Does the answer give ``model(W)`` (up to a common factor if ``factor``) for every matrix?"""
    for W in matrices:
        try:
            got = answer(W.clone())
        except LearnerCrash:
            return False
        if factor and isinstance(got, torch.Tensor) and got.shape == W.shape and got.is_floating_point():
            got = up_to_a_factor(got.detach())
        if not _close(got, up_to_a_factor(model(W)) if factor else model(W)):
            return False
    return True


def above_mean(W, i) -> list[int]:
    logits = W @ W[i]
    return [j for j in range(W.shape[0]) if j != i and logits[j] > logits.mean()]


def absolute_logits(W, i) -> list[int]:
    logits = (W @ W[i]).abs()
    return [j for j in range(W.shape[0]) if logits[j] > logits[i]]


def own_norm(W, i) -> list[int]:
    """Each token's logit compared with its own squared length, ‖e_j‖², not token i's."""
    logits, squared = W @ W[i], (W * W).sum(dim=1)
    return [j for j in range(W.shape[0]) if logits[j] > squared[j]]


def never_any(W, i) -> list[int]:
    return []


def positive_logits(W, i) -> list[int]:
    logits = W @ W[i]
    return [j for j in range(W.shape[0]) if j != i and logits[j] > 0]


def one_based(W, i) -> list[int]:
    logits = W @ W[i]
    return [j + 1 for j in range(W.shape[0]) if logits[j] > logits[i]]


def always_lists(answer, cases: list, model: Callable) -> bool:
    """Does the answer list ``model(W, i)`` on every (W, i) of ``cases``?"""
    try:
        return all(answer(W.clone(), i) == model(W, i) for W, i in cases)
    except LearnerCrash:
        return False
