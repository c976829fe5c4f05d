"""Lesson 08 — the capstone: a tied decoder-only Transformer built, trained, saved and reloaded.

Everything of this lesson that is not in its notebook: the data windows (``data``), the package copy of the
model the lesson writes in its cells (``model``), figures and the panel (``figures``), the exercise checks
(``exercises``), the predict-first questions (``questions``) and the reference solutions (``solutions``).
"""
