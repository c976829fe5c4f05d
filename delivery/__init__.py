"""The delivery platform: where the lessons run and how a class gets them, apart from the course itself.

JupyterHub and the class benchmark (``hub``, ``hub_bench``), Binder (``binder_check``, ``binder_branch``), Colab
(``colab``, ``colab_env_check``), the students' branch, the static site and its PDFs (``make_site``, ``site``),
graded labs with nbgrader (``graded_labs``, ``graded_package``, ``graded_term``, ``grade_submissions``), the
release and install checks, the learners' JupyterLab settings and server (``lab``, ``quiet_lab``,
``lean_server``), venv layering, and their make rules (``*.mk``, included by the Makefile). Their tests are in
tests/platform/. Writing or changing a lesson needs nothing here: the course's own tools are in tools/.
"""
