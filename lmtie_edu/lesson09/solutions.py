"""Reference solutions of the lesson 09 exercises (used by the checks, the tests and ``make solutions``)."""

import torch
import torch.nn.functional as F


def recall_at_k(scores, suspects, k):
    flagged = torch.topk(scores, k).indices                       # the k highest scores: the ids a person inspects
    found = torch.isin(torch.as_tensor(suspects), flagged)
    return found.double().mean().item()                           # the share of the suspects among them


def centred_unused_scores(matrix, known_unused):
    centred = matrix - matrix.mean(dim=0)                         # every row minus the mean row
    reference = centred[known_unused].mean(dim=0)                 # the known unused rows' direction, centred too
    return F.cosine_similarity(centred, reference[None, :], dim=1)


def bilinear_scores(E, M):
    return E @ M @ E.T                                            # S[i, j] = e_i M e_j: the score of j after i
