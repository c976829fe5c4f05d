"""Maintainer tools: build, check and benchmark the course (not installed with the package).

Run from the repository root as modules, e.g. ``python -m tools.make_solutions``."""
