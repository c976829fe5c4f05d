"""The live-widget pattern: headless toggling, in-place redraws, impossible values rejected."""

import ipywidgets as widgets
import matplotlib
import pytest

from lmtie_edu.kit.panels import PanelResult, TiePanel, check_control_value, format_number
from lmtie_edu.kit.plotting import new_figure


def compute(tie, scale):
    fig, ax = new_figure()
    ax.plot([0, 1], [0, scale * (2 if tie else 1)])
    return PanelResult(fig, {"height": scale * (2 if tie else 1)})


def make_panel():
    return TiePanel(compute, controls={"scale": widgets.IntSlider(3, min=1, max=10)})


def test_toggle_recomputes_and_replaces_the_image():
    panel = make_panel()
    first_png, first_fig = panel.image.value, panel.result.figure
    assert panel.result.numbers == {"height": 6}
    panel.tie.value = False
    assert panel.result.numbers == {"height": 3}
    assert panel.result.figure is not first_fig
    assert panel.image.value != first_png and bytes(panel.image.value).startswith(b"\x89PNG")
    assert panel.redraws == 2


def test_set_changes_several_controls_with_one_redraw():
    panel = make_panel()
    panel.set(tie=False, scale=7)
    assert panel.redraws == 2 and panel.result.numbers == {"height": 7}


def test_redraws_leak_no_pyplot_figures():
    import matplotlib.pyplot as plt

    before = len(plt.get_fignums())
    panel = make_panel()
    for _ in range(5):
        panel.tie.value = not panel.tie.value
    assert len(plt.get_fignums()) == before
    assert matplotlib.get_backend()  # pyplot untouched by the panel


@pytest.mark.parametrize("values, error, text", [
    ({"scale": 11}, ValueError, r"scale must be a value in \[1, 10\]; got 11"),
    ({"scale": 2.5}, TypeError, "scale must be an integer"),
    ({"tie": "yes"}, TypeError, "tie must be True or False"),
    ({"size": 3}, ValueError, r"no control 'size'; its controls are \['tie', 'scale'\]"),
])
def test_impossible_values_are_rejected(values, error, text):
    panel = make_panel()
    with pytest.raises(error, match=text):
        panel.set(**values)
    assert panel.result.numbers == {"height": 6}  # unchanged


def test_bad_value_typed_in_browser_shows_in_panel():
    def strict(tie, text):
        if not text.isdigit():
            raise ValueError(f"expected digits; got {text!r}")
        return compute(tie, int(text))

    panel = TiePanel(strict, controls={"text": widgets.Text("3")})
    panel.controls["text"].value = "x"
    assert "expected digits" in panel.status.value
    assert panel.result.numbers == {"height": 6}  # the previous figure stays
    panel.controls["text"].value = "4"
    assert panel.status.value == "" and panel.result.numbers == {"height": 8}


def test_compute_must_return_panel_result():
    with pytest.raises(TypeError, match="PanelResult"):
        TiePanel(lambda tie: 42)


def test_dropdown_and_select_values():
    check_control_value("act", widgets.Dropdown(options=["relu", "tanh"]), "relu")
    with pytest.raises(ValueError, match=r"one of \['relu', 'tanh'\]; got 'gelu'"):
        check_control_value("act", widgets.Dropdown(options=["relu", "tanh"]), "gelu")
    with pytest.raises(ValueError, match="chosen from"):
        check_control_value("ids", widgets.SelectMultiple(options=[1, 2]), (3,))
    with pytest.raises(ValueError, match=r"\[0.001, 1\]"):
        check_control_value("lr", widgets.FloatLogSlider(value=0.01, min=-3, max=0), 5.0)


def test_report_prints_controls_and_rounded_numbers(capsys):
    panel = make_panel()
    panel.report()
    assert capsys.readouterr().out == "controls: tie=True, scale=3\nheight: 6\n"


def test_format_number():
    assert format_number(1 / 3) == "0.3333"
    assert format_number(7.138449) == "7.138"  # 4 significant digits: what a float32 result keeps across CPUs
    assert format_number(221.50421) == "221.5"
    assert format_number(0.0251999) == "0.02520"
    assert format_number(-36.76004) == "-36.76"
    assert format_number(9999.6) == "1.000e+04"  # rounding up into the next decade keeps 4 digits
    assert format_number(123456.0) == "1.235e+05"
    assert format_number(0.00012345) == "1.234e-04" or format_number(0.00012345) == "1.235e-04"
    assert format_number(7) == "7" and format_number(True) == "True"
    assert format_number(float("nan")) == "nan" and format_number(0.0) == "0.0"


def test_unexpected_failure_in_a_redraw_is_shown_not_lost():
    calls = []

    def flaky(tie):
        calls.append(tie)
        if not tie:
            raise RuntimeError("out of memory")
        return compute(tie, 1)

    panel = TiePanel(flaky)
    panel.tie.value = False
    assert "redraw failed: RuntimeError: out of memory" in panel.status.value
    assert panel.result.numbers == {"height": 2}


# -- one rule for panels: the constructor and set() accept and refuse the same values -------------------------
def test_constructors_refuse_what_set_refuses_instead_of_clamping():
    import pytest

    from lmtie_edu.lesson01.lookup import lookup_panel
    from lmtie_edu.lesson02.figures import logits_panel

    for call, error, message in [
        (lambda: logits_panel(angle=400), ValueError, r"angle must be a value in \[0, 355\]; got 400"),
        (lambda: logits_panel(length=-1), ValueError, r"length must be a value in \[0.0, 3.0\]; got -1"),
        (lambda: lookup_panel(tie=None), TypeError, "tie must be True or False; got None"),
        (lambda: lookup_panel(ids_text=5), TypeError, "ids must be text; got 5"),
    ]:
        with pytest.raises(error, match=message):
            call()
    panel = logits_panel()
    for name, value in (("angle", 400), ("length", -1)):
        with pytest.raises(ValueError, match=f"{name} must be a value in"):
            panel.set(**{name: value})


def test_a_refused_set_leaves_the_panel_exactly_as_it_was():
    import pytest

    from lmtie_edu.lesson01.lookup import lookup_panel

    panel = lookup_panel("2, 5, 5, 9")
    before = (panel.values(), dict(panel.result.numbers), bytes(panel.image.value), panel.redraws)
    with pytest.raises(ValueError, match="got 99"):
        panel.set(ids="1, 99", tie=True)  # refused by the lesson's compute, after the controls were set
    assert (panel.values(), dict(panel.result.numbers), bytes(panel.image.value), panel.redraws) == before


def test_numpy_numbers_are_taken_by_the_constructor_and_set_alike():
    import numpy as np

    from lmtie_edu.lesson02.figures import logits_panel

    panel = logits_panel(angle=np.int64(40), length=np.float32(1.5))
    assert panel.values()["angle"] == 40 and type(panel.values()["angle"]) is int
    panel.set(angle=np.int64(50))
    assert panel.values()["angle"] == 50 and type(panel.values()["angle"]) is int


# -- a pure panel shows a state it has drawn before from its cache ------------------------------------------
def test_redraw_holds_the_garbage_collector_and_gives_it_back():
    import gc

    seen = []

    def watching(tie):
        seen.append(gc.isenabled())
        return compute(tie, 1)

    assert gc.isenabled()
    TiePanel(watching)
    assert seen == [False] and gc.isenabled()


def test_fast_png_has_the_same_pixels():
    import io

    from PIL import Image

    from lmtie_edu.kit.plotting import figure_to_png

    fig = compute(True, 3).figure
    slow, fast = (Image.open(io.BytesIO(figure_to_png(fig, fast=flag))) for flag in (False, True))
    assert slow.size == fast.size and slow.tobytes() == fast.tobytes()
