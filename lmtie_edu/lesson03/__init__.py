"""Lesson 03 — gradient flow through a tied matrix: the lookup part plus the head part.

Everything of this lesson that is not in its notebook: helpers, figures, its panel, the exercise checks
(``exercises``), the predict-first questions (``questions``) and the reference solutions (``solutions``).
"""

from lmtie_edu.shared.language import N_

# Keys the lesson's cells compare and print through label() (lmtie_edu.shared.language): marked here for the
# catalogue, so that a Chinese lesson prints them in Chinese.
PATHS = (N_("lookup"), N_("head"), N_("tied sum"))  # the routes of the gradient §1 counts rows of
