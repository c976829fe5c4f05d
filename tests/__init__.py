"""The course's tests, one folder per lesson (its unit tests and known wrong answers), one for the shared
layers (shared/ and kit/), one for the whole course (every exercise, the notebooks' hygiene, translations),
and platform/ (browser, hub, site, nbgrader). Test-only code; the harness shared with tools is in tools/."""
