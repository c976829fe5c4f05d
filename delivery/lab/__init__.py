"""Driving JupyterLab in Chromium: the page scripts the browser test and the hub's students share."""
