"""Lesson 02 — logits are inner products of the hidden state with every token's row.

Everything of this lesson that is not in its notebook: helpers, figures, its panel, the exercise checks
(``exercises``), the predict-first questions (``questions``) and the reference solutions (``solutions``).
"""

from lmtie_edu.shared.language import N_

# Keys the lesson's cells compare and print through label() (lmtie_edu.shared.language): marked here for the
# catalogue, so that a Chinese lesson prints them in Chinese.
ROLES = (N_("embedding"), N_("head"))  # the two matrices whose row lengths §6 correlates with frequency
