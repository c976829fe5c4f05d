"""Lesson 09 §5: a cycle of 12 tokens, 0 → 1 → … → 11 → 0, learned by a bigram score without any layer.

The score of token ``j`` following token ``i`` is ``e_i · o_j`` (untied), ``e_i · e_j`` (tied: E Eᵀ, the same
for i→j and j→i), or ``e_i M o_j`` with a learned d × d matrix M between (``between=True``; tied, E M Eᵀ is
not symmetric). Each run trains the chosen score with Adam on the n pairs (i, i+1) in float64, from seeded
draws that never touch the caller's random state.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from lmtie_edu.shared.seeding import seeded
from lmtie_edu.shared.validation import check_bool, check_seed

N_TOKENS, WIDTH, STEPS, LR = 12, 8, 400, 0.05
INIT_STD = 0.3   # E and O are drawn with this std
M_NOISE = 0.1    # M starts at the identity plus noise of this std


def scores(E: torch.Tensor, head: torch.Tensor | None, M: torch.Tensor | None) -> torch.Tensor:
    """S[i, j]: the score of token j following token i. ``head=None`` ties the head to E (O = E); ``M=None``: no
    matrix between."""
    return (E if M is None else E @ M) @ (E if head is None else head).T


def train_cycle(tie: bool = True, between: bool = False, seed: int = 0) -> dict:
    """Train one bigram score on the cycle; return its matrices, scores S and probabilities P (softmax of each row),
    and the mean probability of the next, the previous and the same token."""
    tie, between = check_bool(tie, "tie"), check_bool(between, "between")
    seed = check_seed(seed)
    n = N_TOKENS
    with seeded(seed):
        E = (INIT_STD * torch.randn(n, WIDTH, dtype=torch.float64)).requires_grad_()
        head = None if tie else (INIT_STD * torch.randn(n, WIDTH, dtype=torch.float64)).requires_grad_()
        M = (torch.eye(WIDTH, dtype=torch.float64) + M_NOISE * torch.randn(WIDTH, WIDTH, dtype=torch.float64)
             ).requires_grad_() if between else None
    current = torch.arange(n)
    following = (current + 1) % n
    optimiser = torch.optim.Adam([p for p in (E, head, M) if p is not None], lr=LR)
    with torch.enable_grad():
        for _ in range(STEPS):
            loss = F.cross_entropy(scores(E, head, M)[current], following)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
    with torch.no_grad():
        S = scores(E, head, M)
        P = F.softmax(S, dim=1)
    return {"E": E.detach(), "O": None if head is None else head.detach(), "M": None if M is None else M.detach(),
            "S": S, "P": P, "next": P[current, following].mean().item(),
            "previous": P[current, (current - 1) % n].mean().item(), "same": P[current, current].mean().item()}
