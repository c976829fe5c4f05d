"""The predict-then-run questions of each lesson (``lessonNN.py``), asked with ``question.ask()``."""
