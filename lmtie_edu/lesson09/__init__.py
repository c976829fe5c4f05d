"""Lesson 09 — what a tie costs: the narrow cone, glitch tokens, a symmetric score, and why large models untie.

The lesson trains lesson 08's model with lesson 08's loop (it imports them from ``lmtie_edu.lesson08``) and
measures it in its own cells. What is here: the cycle of tokens that a tied score cannot follow (``cycle``),
the figures and the panel (``figures``), the exercise checks (``exercises``), the predict-first questions
(``questions``) and the reference solutions (``solutions``).
"""

from lmtie_edu.shared.language import N_

# Keys the lesson's cells compare and print through label() (lmtie_edu.shared.language): marked here for the
# catalogue, so that a Chinese lesson prints them in Chinese.
BANDS = (N_("frequent"), N_("rare"), N_("never seen"))  # the bands of words the tables of §3 print
