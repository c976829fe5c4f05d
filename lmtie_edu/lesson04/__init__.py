"""Lesson 04 — parameter savings of tying, counted on real architectures.

Everything of this lesson that is not in its notebook: helpers, figures, its panel, the exercise checks
(``exercises``), the predict-first questions (``questions``) and the reference solutions (``solutions``).
"""
