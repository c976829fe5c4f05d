"""A real JupyterHub on 127.0.0.1 and simulated students: used by the hub test and the class benchmark."""
