"""What several lessons use: the small language model, training, tying, the toy corpus, seeding, checks.

Imports no lesson subpackage and nothing of the teaching kit.
"""
