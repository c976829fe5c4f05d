"""Lesson 06 — does tying help? Tied vs untied word-level language models on the Lee corpus.

Everything of this lesson that is not in its notebook: helpers, figures, its panel, the exercise checks
(``exercises``), the predict-first questions (``questions``) and the reference solutions (``solutions``).
"""
