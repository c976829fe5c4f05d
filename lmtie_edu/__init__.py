"""lmtie_edu — what a learner of the weight-tying lessons would skip: data, figures, panels, checks.

One subpackage per lesson (``lmtie_edu.lesson01`` … ``lesson09``) holds that lesson's helpers, figures,
panel, exercise checks (``exercises``), predict-first questions (``questions``) and reference solutions
(``solutions``). Beneath them, ``lmtie_edu.shared`` holds what several lessons use (the small language
model, training, tying, the toy corpus, seeding, validation, progress) and ``lmtie_edu.kit`` the teaching
kit (the panel pattern, plotting, the exercise and predict-first machinery). No lesson's package imports another
lesson's, and neither layer imports a lesson (a notebook may: lesson 09 trains lesson 08's model).

Importing the package is cheap on purpose: it pulls in no submodule; heavy optional libraries
(transformers, scikit-learn, scipy) are imported only inside the functions that need them; the data files
the lessons read ship in ``lmtie_edu/shared/data/``.
"""

__version__ = "0.1.0"
