"""Known wrong answers and shortcuts for every exercise, one module per lesson (``lessonNN.py``).

Each module defines:

- ``WRONG``: exercise name -> {mistake key: a function making exactly that mistake}. Every mistake a checker
  declares has an entry here, and the check must print ❌ with that mistake's diagnosis.
- ``SHORTCUTS``: exercise name -> [functions that get the right numbers by a forbidden route, or return the
  wrong type]. The check must print ❌ for each.
"""
