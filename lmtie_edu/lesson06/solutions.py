"""Reference solutions, lesson 06 (does tying help?).

Each function imports what it needs, so that its source runs as it is when ``make solutions`` pastes it
into the notebook.
"""


def build_vocabulary(tokens, size):
    """Word list: '<unk>', '<eos>', then the most frequent words seen at least twice (ties: alphabetical)."""
    from collections import Counter

    counts = Counter(tokens)
    ranked = sorted((w for w in counts if counts[w] >= 2 and w not in ("<unk>", "<eos>")),
                    key=lambda w: (-counts[w], w))
    return ["<unk>", "<eos>"] + ranked[:size - 2]


def combined_perplexity(word_perplexity, unk_perplexity, unk_share):
    """Perplexity over all targets from the perplexity on real-word targets, on <unk> targets, and the share
    of targets that are <unk>: the mean cross-entropy is what averages, weighted by the number of targets."""
    import math

    mean_cross_entropy = (1 - unk_share) * math.log(word_perplexity) + unk_share * math.log(unk_perplexity)
    return math.exp(mean_cross_entropy)


def cosine_neighbours(W, row, k):
    """Ids of the k rows of W with the highest cosine similarity to W[row], W[row] itself excluded."""
    import torch
    import torch.nn.functional as F

    unit = F.normalize(W, dim=1)
    scores = unit @ unit[row]
    scores[row] = -float("inf")
    return torch.topk(scores, k).indices.tolist()
