"""Interactive panels as static HTML: each widget output replaced by its stored state.

nbconvert would otherwise load @jupyter-widgets/html-manager (embed-amd.js from unpkg, require.js from
cdnjs: see ``HTMLExporter.jupyter_widgets_base_url``/``require_js_url``); no installed Python package
ships that bundle. Instead each widget output is rebuilt from the notebook's saved widget state
(``metadata.widgets``): an ImageModel becomes an ``<img>`` with its stored PNG (and the text
alternative of its cell, delivery/site/alt_text.py), an HTML widget its HTML, a checkbox/slider/dropdown
a disabled control showing its value.
"""

from __future__ import annotations

import html
import re

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


STATIC_NOTE = {"en": "Stored state of an interactive panel; open the lesson in JupyterLab, Colab or Binder "
                      "to change its controls.",
               "zh-CN": "交互面板保存时的状态；在 JupyterLab、Colab 或 Binder 中打开本课即可改变它的控件。"}


def _label(state: dict) -> str:
    return html.escape(state.get("description") or "")


def _name(state: dict, hint: str) -> str:
    """An aria-label for a control with no description: the text shown before it in its box."""
    return "" if state.get("description") or not hint else f" aria-label=\"{html.escape(hint, quote=True)}\""


def render_widget(model_id: str, models: dict, alt: str = "", hint: str = "") -> str:
    """Static HTML for one widget of the saved state (recursively for boxes); ``alt`` for its images,
    ``hint`` the text before it (the accessible name of an unlabelled control)."""
    model = models.get(model_id.removeprefix("IPY_MODEL_"))
    if model is None:
        return "<span class='lmtie-w-missing'>(widget state not saved)</span>"
    name, state = model["model_name"], model["state"]
    buffers = {tuple(b["path"]): b["data"] for b in model.get("buffers", [])}
    classes = " ".join(state.get("_dom_classes", []))
    if name in ("VBoxModel", "HBoxModel", "BoxModel", "GridBoxModel"):
        direction = "column" if name == "VBoxModel" else "row"
        parts, hint = [], ""
        for child in state.get("children", []):
            parts.append(render_widget(child, models, alt, hint))
            shown = models.get(child.removeprefix("IPY_MODEL_"), {})
            if shown.get("model_name") in ("HTMLModel", "HTMLMathModel", "LabelModel"):
                hint = " ".join(re.sub(r"<[^>]+>", " ", str(shown["state"].get("value", ""))).split()) or hint
        children = "".join(parts)
        return (f"<div class='lmtie-w-box {classes}' style='flex-direction:{direction};"
                f"flex-wrap:{'nowrap' if direction == 'column' else 'wrap'}'>{children}</div>")
    if name == "ImageModel":
        data = buffers.get(("value",)) or state.get("value") or ""
        if not data:
            return ""
        text = html.escape(alt, quote=True) or _label(state) or "figure"
        return (f"<img class='lmtie-w-image' alt=\"{text}\" style='max-width:100%' "
                f"src='data:image/{html.escape(state.get('format', 'png'))};base64,{data}'>")
    if name in ("HTMLModel", "HTMLMathModel"):
        return f"<div class='lmtie-w-html'>{state.get('value', '')}</div>"  # our own package's HTML, from the notebook
    if name == "LabelModel":
        return f"<span class='lmtie-w-label'>{html.escape(str(state.get('value', '')))}</span>"
    if name in ("CheckboxModel", "ToggleButtonModel"):
        checked = " checked" if state.get("value") else ""
        return (f"<label class='lmtie-w-control'><input type='checkbox' disabled{checked}{_name(state, hint)}> "
                f"{_label(state)}</label>")
    if name == "ButtonModel":
        return f"<button class='lmtie-w-button' type='button' disabled>{_label(state)}</button>"
    if "options" in str(state.get("_options_labels", "")) or "_options_labels" in state:
        labels, index = state.get("_options_labels", []), state.get("index")
        chosen = set(index if isinstance(index, list) else [index])
        options = "".join(f"<option{' selected' if i in chosen else ''}>{html.escape(str(label))}</option>"
                          for i, label in enumerate(labels))
        return f"<label class='lmtie-w-control'>{_label(state)} <select disabled{_name(state, hint)}>{options}</select></label>"
    if name.endswith("SliderModel") or name.endswith(("TextModel", "ProgressModel")):
        value = state.get("value")
        shown = html.escape(", ".join(map(str, value)) if isinstance(value, list) else str(value))
        if name.endswith("ProgressModel"):
            return (f"<progress value='{value}' max='{state.get('max', 100)}'"
                    f"{_name(state, hint or 'progress')}></progress>")
        return f"<label class='lmtie-w-control'>{_label(state)} <output>{shown}</output></label>"
    return f"<span class='lmtie-w-unknown'>({html.escape(name)})</span>"


def static_widgets(nb, lang: str = "en", alt_of=lambda index: "") -> int:
    """Replace every widget output by its stored state as static HTML; return how many.

    ``alt_of(cell_index)`` gives the text alternative for the figures of that cell's panel.
    """
    models = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    count = 0
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            view = output.get("data", {}).get(WIDGET_VIEW)
            if not view:
                continue
            body = render_widget(view["model_id"], models, alt_of(index))
            output["data"] = {"text/html": f"<div class='lmtie-static-widget'><div class='lmtie-note'>"
                                           f"{STATIC_NOTE[lang]}</div>{body}</div>"}
            count += 1
    nb.metadata.pop("widgets", None)
    return count
