"""The teaching kit: the tie-toggle panel pattern, figures without pyplot, exercise checks, predict first.

Imports no lesson subpackage (it may use :mod:`lmtie_edu.shared`).
"""
