"""Lesson 01 — an embedding is a row lookup; its gradient touches only the rows looked up.

Everything of this lesson that is not in its notebook: helpers, figures, its panel, the exercise checks
(``exercises``), the predict-first questions (``questions``) and the reference solutions (``solutions``).
"""
