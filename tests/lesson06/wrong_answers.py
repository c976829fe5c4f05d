"""Lesson 06: one wrong answer per diagnosed mistake, and the shortcuts each check must refuse."""

import math
from collections import Counter

import torch
import torch.nn.functional as F

# -- build_vocabulary ------------------------------------------------------------------------------------------


def vocabulary_with_singletons(tokens, size):
    counts = Counter(tokens)
    ranked = sorted((w for w in counts if w not in ("<unk>", "<eos>")), key=lambda w: (-counts[w], w))
    return ["<unk>", "<eos>"] + ranked[:size - 2]


def vocabulary_most_common_order(tokens, size):  # Counter.most_common keeps first-seen order for equal counts
    ranked = [w for w, c in Counter(tokens).most_common() if c >= 2 and w not in ("<unk>", "<eos>")]
    return ["<unk>", "<eos>"] + ranked[:size - 2]


def vocabulary_size_plus_specials(tokens, size):
    counts = Counter(tokens)
    ranked = sorted((w for w in counts if counts[w] >= 2 and w not in ("<unk>", "<eos>")),
                    key=lambda w: (-counts[w], w))
    return ["<unk>", "<eos>"] + ranked[:size]


def vocabulary_by_the_lessons_helper(tokens, size):
    from lmtie_edu.lesson06.corpus import Vocabulary

    return Vocabulary.from_tokens(tokens, size).words


def vocabulary_as_tuple(tokens, size):
    counts = Counter(tokens)
    ranked = sorted((w for w in counts if counts[w] >= 2 and w not in ("<unk>", "<eos>")),
                    key=lambda w: (-counts[w], w))
    return ("<unk>", "<eos>", *ranked[:size - 2])


# -- combined_perplexity ---------------------------------------------------------------------------------------


def perplexity_arithmetic_mean(word_perplexity, unk_perplexity, unk_share):
    return (1 - unk_share) * word_perplexity + unk_share * unk_perplexity


def perplexity_swapped_shares(word_perplexity, unk_perplexity, unk_share):
    return math.exp(unk_share * math.log(word_perplexity) + (1 - unk_share) * math.log(unk_perplexity))


def perplexity_unweighted(word_perplexity, unk_perplexity, unk_share):
    return math.sqrt(word_perplexity * unk_perplexity)


def perplexity_as_tensor(word_perplexity, unk_perplexity, unk_share):
    logs = torch.log(torch.tensor([word_perplexity, unk_perplexity], dtype=torch.float64))
    return torch.exp((1 - unk_share) * logs[0] + unk_share * logs[1])


# -- cosine_neighbours -----------------------------------------------------------------------------------------


def neighbours_by_dot_product(W, row, k):
    scores = W @ W[row]
    scores[row] = -float("inf")
    return torch.topk(scores, k).indices.tolist()


def neighbours_including_itself(W, row, k):
    unit = F.normalize(W, dim=1)
    return torch.topk(unit @ unit[row], k).indices.tolist()


def neighbours_as_tensor(W, row, k):
    unit = F.normalize(W, dim=1)
    scores = unit @ unit[row]
    scores[row] = -float("inf")
    return torch.topk(scores, k).indices


def neighbours_as_list_of_tensors(W, row, k):
    return list(neighbours_as_tensor(W, row, k))


WRONG = {
    "build_vocabulary": {"keeps_singletons": vocabulary_with_singletons,
                         "ties_not_alphabetical": vocabulary_most_common_order,
                         "size_without_specials": vocabulary_size_plus_specials},
    "combined_perplexity": {"averaged_perplexities": perplexity_arithmetic_mean,
                            "swapped_shares": perplexity_swapped_shares,
                            "unweighted": perplexity_unweighted},
    "cosine_neighbours": {"dot_product": neighbours_by_dot_product,
                          "includes_itself": neighbours_including_itself},
}

SHORTCUTS = {
    "build_vocabulary": [vocabulary_by_the_lessons_helper, vocabulary_as_tuple],
    "combined_perplexity": [perplexity_as_tensor],
    "cosine_neighbours": [neighbours_as_tensor, neighbours_as_list_of_tensors],
}
