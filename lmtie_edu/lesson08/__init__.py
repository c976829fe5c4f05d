"""Lesson 08 — the capstone: a tied decoder-only Transformer built, trained, saved and reloaded.

Everything of this lesson that is not in its notebook: the data windows (``data``), the package copy of the
model the lesson writes in its cells (``model``), figures and the panel (``figures``), the exercise checks
(``exercises``), the predict-first questions (``questions``), the reference solutions (``solutions``), and
§7's variants with the runs ``python -m tools.lesson08_runs`` made from them (``variants``, ``stored_runs.json``).
"""
