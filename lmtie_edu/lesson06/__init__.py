"""Lesson 06 — does tying help? Tied vs untied word-level language models on the Lee corpus.

Everything of this lesson that is not in its notebook: helpers, figures, its panel, the exercise checks
(``exercises``), the predict-first questions (``questions``) and the reference solutions (``solutions``).
"""

from lmtie_edu.shared.language import N_

# Keys the lesson's cells compare and print through label() (lmtie_edu.shared.language): marked here for the
# catalogue, so that a Chinese lesson prints them in Chinese.
MATRICES = (N_("untied input"), N_("untied output"), N_("tied"))  # the three matrices §6 compares as embeddings
