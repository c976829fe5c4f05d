"""Lesson 05: the predict-first questions' options, answers and explanations.

Each question itself is written once, in the lesson's "Predict first." markdown cell just above the cell
that asks it (``predict.<name>.ask()``); the widget shows only the choices, so nothing is read twice.
"""

from lmtie_edu.kit.predict import Choice
from lmtie_edu.shared.language import N_

listed_parameters = Choice(
    "listed_parameters",
    [N_("W and Wᵀ as two matrices, plus the two biases"), N_("W once, plus the two biases"), N_("W only: the biases are tied too")],
    N_("W once, plus the two biases"),
    N_("Wᵀ is not a tensor of its own: the decoder calls W.t() in every forward pass, a view that reads W's memory "
    "with the strides swapped, so there is nothing to register. The biases live in different spaces (h numbers "
    "for the code, d for the pixels), so each side keeps its own."),
)

gradient_norm = Choice(
    "gradient_norm",
    [N_("it is the sum of the two norms"), N_("it is larger than each part's norm"),
     N_("it can be smaller than the larger part's norm")],
    N_("it can be smaller than the larger part's norm"),
    N_("The gradients add as matrices, not as norms: the norm of a sum reaches the sum of the norms only when both "
    "parts point the same way. Here the two paths partly pull W in opposite directions, so the sum is shorter "
    "than the decoder-path part alone."),
)

tied_share = Choice(
    "tied_share",
    [N_("exactly 0.5"), N_("a little above 0.5"), N_("a little below 0.5")],
    N_("a little above 0.5"),
    N_("Tying removes the d×h decoder matrix and nothing else: the tied model has dh + h + d parameters, the untied "
    "one 2dh + h + d. Both keep the h + d bias numbers, so the ratio is above one half, and approaches it only "
    "when d·h dwarfs h + d."),
)

linear_floor = Choice(
    "linear_floor",
    [N_("the untied one below PCA: its second matrix gives it more freedom"),
     N_("both below PCA: 300 Adam steps fit better than one SVD"),
     N_("neither below PCA: on the training set no such model can beat it")],
    N_("neither below PCA: on the training set no such model can beat it"),
    N_("Whatever the encoder and however many weights the decoder has, every reconstruction x̂ = Dz + c lies in an "
    "affine subspace of dimension at most 16: a second matrix adds weights, not dimensions. On the training "
    "images no 16-dimensional affine subspace fits better than PCA's (section 5 proves it), so both end at or "
    "above PCA's training error — at this budget a little above it, the tied model closer."),
)
