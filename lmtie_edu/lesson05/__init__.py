"""Lesson 05 — tied autoencoders: an encoder W and a decoder Wᵀ on scikit-learn's digits.

Everything of this lesson that is not in its notebook: helpers, figures, its panel, the exercise checks
(``exercises``), the predict-first questions (``questions``) and the reference solutions (``solutions``).
"""
