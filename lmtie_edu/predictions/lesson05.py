"""Lesson 05: predict, then run (asked in the lesson before the cell that shows the answer)."""

from ..predict import Choice

listed_parameters = Choice(
    "listed_parameters",
    "The tied model uses W as its encoder matrix and Wᵀ as its decoder matrix, and has two biases. What does "
    "model.named_parameters() list?",
    ["W and Wᵀ as two matrices, plus the two biases", "W once, plus the two biases", "W only: the biases are tied too"],
    "W once, plus the two biases",
    "Wᵀ is not a tensor of its own: the decoder calls W.t() in every forward pass, a view that reads W's memory "
    "with the strides swapped, so there is nothing to register. The biases live in different spaces (h numbers "
    "for the code, d for the pixels), so each side keeps its own.",
)

gradient_norm = Choice(
    "gradient_norm",
    "The next cell computes the gradient W receives through the encoder path alone, through the decoder path "
    "alone, and the tied gradient (their sum). How does the tied gradient's norm compare with the norms of the "
    "two parts?",
    ["it is the sum of the two norms", "it is larger than each part's norm",
     "it can be smaller than the larger part's norm"],
    "it can be smaller than the larger part's norm",
    "The gradients add as matrices, not as norms: the norm of a sum reaches the sum of the norms only when both "
    "parts point the same way. Here the two paths partly pull W in opposite directions, so the sum is shorter "
    "than the decoder-path part alone.",
)

tied_share = Choice(
    "tied_share",
    "For d = 64 pixels and a code of h = 16, what is the tied model's parameter count divided by the untied "
    "model's?",
    ["exactly 0.5", "a little above 0.5", "a little below 0.5"],
    "a little above 0.5",
    "Tying removes the d×h decoder matrix and nothing else: the tied model has dh + h + d parameters, the untied "
    "one 2dh + h + d. Both keep the h + d bias numbers, so the ratio is above one half, and approaches it only "
    "when d·h dwarfs h + d.",
)

linear_tie_wins = Choice(
    "linear_tie_wins",
    "With a linear code (no activation), h = 16 and the same 300-step budget for each, which ends with the lower "
    "held-out error over the five seeds: the tied or the untied autoencoder?",
    ["tied, clearly (beyond seed noise)", "untied, clearly (beyond seed noise)", "no difference beyond seed noise"],
    "tied, clearly (beyond seed noise)",
    "Both have the same best possible error (PCA's, section 5 shows why), so the difference is speed: the tied "
    "W is pulled by both paths at once and has half the matrix weights to fit, while the untied model is still "
    "descending when the budget runs out.",
)
