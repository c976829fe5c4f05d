"""setup_lesson(course=...) says, in one line, when the installed package is not the lessons' version."""

import pytest

from lmtie_edu import __version__
from lmtie_edu.shared.notebook import course_mismatch, setup_lesson


def test_the_lessons_version_installed_says_nothing(capsys):
    setup_lesson(seed=0, course=__version__)
    assert capsys.readouterr().out == ""
    assert course_mismatch(None) is None


def test_another_version_is_named_with_both_numbers(capsys):
    setup_lesson(seed=0, course="9.9.9")
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "lmtie_edu 9.9.9" in out and f"lmtie_edu {__version__} is installed" in out


@pytest.mark.parametrize("course", [1, "", "  ", 0.1])
def test_a_course_that_is_not_a_version_string_is_refused(course):
    with pytest.raises(TypeError, match="course must be the lesson's lmtie_edu version as a str"):
        course_mismatch(course)
