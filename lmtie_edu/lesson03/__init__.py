"""Lesson 03 — gradient flow through a tied matrix: the lookup part plus the head part.

Everything of this lesson that is not in its notebook: helpers, figures, its panel, the exercise checks
(``exercises``), the predict-first questions (``questions``) and the reference solutions (``solutions``).
"""
