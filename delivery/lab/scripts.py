"""The JavaScript the browser tests run inside JupyterLab's page (the lesson test and the hub's students).

The notebook model is read through ``window.jupyterapp`` (the server runs with ``expose_app_in_browser``);
every function takes the notebook's path relative to the server root.
"""

WIDGET_ERROR_TEXT = "Error displaying widget"

# JavaScript run in the page. `path` is the notebook's path relative to the server root.
FIND_PANEL = """
    const findPanel = (path) => {
        const app = window.jupyterapp;
        if (!app) return null;
        for (const widget of app.shell.widgets('main')) {
            if (widget.context && widget.context.path === path) return widget;
        }
        return null;
    };
"""

NOTEBOOK_STATE_JS = "(path) => {" + FIND_PANEL + """
    const panel = findPanel(path);
    if (!panel || !panel.context.isReady || !panel.sessionContext.session) return null;
    const kernel = panel.sessionContext.session.kernel;
    const cells = [];
    const model = panel.content.model;
    for (let i = 0; i < model.cells.length; i++) {
        const cell = model.cells.get(i);
        if (cell.type !== 'code') continue;
        const outputs = cell.outputs.toJSON().map(o => ({
            type: o.output_type,
            stream: o.name || null,
            text: o.output_type === 'stream' ? String(o.text).slice(0, 2000)
                : o.output_type === 'error' ? `${o.ename}: ${o.evalue}` : null,
            widget: !!(o.data && o.data['application/vnd.jupyter.widget-view+json']),
        }));
        cells.push({index: i, count: cell.executionCount, state: cell.executionState || null, outputs});
    }
    return {kernel: kernel ? kernel.status : null, kernelId: kernel ? kernel.id : null, cells,
            run: (window.__lmtieRuns || {})[path] || null};
}"""

# Open the notebook in a background tab (or find it, if it is open already), wait for an idle kernel,
# clear all outputs, run all cells: commands aimed at this notebook's tab by id, so the tab the learner
# (or the test) is looking at keeps the focus. Returns at once: progress and errors are left in
# window.__lmtieRuns[path] for Python to poll.
START_RUN_JS = "(path) => {" + FIND_PANEL + """
    const runs = window.__lmtieRuns = window.__lmtieRuns || {};
    const run = runs[path] = {status: 'starting', error: null};
    const until = async (condition, what, ms) => {
        const start = Date.now();
        while (!condition()) {
            if (Date.now() - start > ms) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
            await new Promise(resolve => setTimeout(resolve, 50));
        }
    };
    (async () => {
        await until(() => window.jupyterapp, 'the JupyterLab application', 90000);
        const app = window.jupyterapp;
        await app.restored;
        if (!findPanel(path)) {
            await app.commands.execute('docmanager:open', {path, options: {mode: 'tab-after', activate: false}});
        }
        await until(() => findPanel(path), `the notebook tab of ${path}`, 90000);
        const panel = findPanel(path);
        await panel.context.ready;
        await panel.sessionContext.ready;
        await until(() => panel.sessionContext.session && panel.sessionContext.session.kernel
                    && panel.sessionContext.session.kernel.status === 'idle', 'an idle kernel', 90000);
        const target = {widgetId: panel.id, activate: false};
        await app.commands.execute('notebook:clear-all-cell-outputs', target);
        const cleared = () => { for (let i = 0; i < panel.content.model.cells.length; i++) {
            const cell = panel.content.model.cells.get(i);
            if (cell.type === 'code' && (cell.executionCount !== null || cell.outputs.length)) return false;
        } return true; };
        await until(cleared, 'all outputs to be cleared', 10000);
        run.status = 'running';
        await app.commands.execute('notebook:run-all-cells', target);
    })().catch(error => { run.error = String((error && error.stack) || error); });
}"""

# Bring a lesson's tab to the front (the left sidebar folded away: more room for the lesson and its
# screenshot); returns the tab's DOM id, which scopes every locator to this lesson.
ACTIVATE_JS = "(path) => {" + FIND_PANEL + """
    const app = window.jupyterapp;
    const panel = findPanel(path);
    app.shell.collapseLeft();
    app.shell.activateById(panel.id);
    return panel.node.id;
}"""

# Close a lesson's tab without the "save your changes?" dialog (the run made it dirty; the copy is scratch).
CLOSE_TAB_JS = "(path) => {" + FIND_PANEL + """
    const panel = findPanel(path);
    if (panel) { panel.context.model.dirty = false; panel.dispose(); }
}"""

# Done: the run was started, no cell is queued or running, the kernel is idle, and every code cell
# has run (or one failed, which stops Run All; the caller reports the error output).
RUN_DONE_JS = f"""(path) => {{
    const s = ({NOTEBOOK_STATE_JS})(path);
    if (s === null) return !!((window.__lmtieRuns || {{}})[path] || {{}}).error;
    if (s.run && s.run.error) return true;
    if (!s.run || s.run.status !== 'running' || s.kernel !== 'idle') return false;
    if (s.cells.some(c => c.state === 'running')) return false;
    return s.cells.every(c => c.count !== null) || s.cells.some(c => c.outputs.some(o => o.type === 'error'));
}}"""

IMAGE_DIGEST_JS = """async (img) => {
    const bytes = new Uint8Array(await (await fetch(img.src)).arrayBuffer());
    const digest = await crypto.subtle.digest('SHA-256', bytes);
    return Array.from(new Uint8Array(digest)).map(b => b.toString(16).padStart(2, '0')).join('');
}"""

# After a click: the box flipped, a new figure arrived and is decoded, and the kernel is idle again
# (iopub keeps order: busy, the widget updates, idle — so the whole redraw has been received).
REDRAWN_JS = "([path, img, box, oldSrc, wasChecked]) => {" + FIND_PANEL + """
    const panel = findPanel(path);
    const kernel = panel && panel.sessionContext.session && panel.sessionContext.session.kernel;
    return box.checked !== wasChecked && img.src !== oldSrc && img.complete && img.naturalWidth > 0
        && !!kernel && kernel.status === 'idle';
}"""

WIDGET_VIEWS_SHOWN_JS = f"""([tabId, expected]) => [...document.getElementById(tabId).querySelectorAll('.jp-OutputArea-output')].filter(
    o => o.querySelector(':scope > .jupyter-widgets') || o.textContent.includes('{WIDGET_ERROR_TEXT}')
).length >= expected"""
