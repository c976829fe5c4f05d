"""Tests of the course as a whole: every exercise, the notebooks' hygiene and frame, set-up, translations.

Each lesson's known wrong answers live in its own folder, ``tests/lessonNN/wrong_answers.py``:

- ``WRONG``: exercise name -> {mistake key: a function making exactly that mistake}. Every mistake a checker
  declares has an entry there, and the check must print ❌ with that mistake's diagnosis.
- ``SHORTCUTS``: exercise name -> [functions that get the right numbers by a forbidden route, or return the
  wrong type]. The check must print ❌ for each.
- ``CAUGHT`` (optional): exercise name -> [plausible wrong answers that have no named mistake]. The check must
  print ❌ and at least one line saying what differs.
"""
