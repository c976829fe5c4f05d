"""Reference solutions to the exercises, one module per lesson.

Learners: try first — the checks give hints. Instructors: ``make solutions`` builds notebooks
with these solutions filled in.
"""
