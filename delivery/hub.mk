# A class on JupyterHub (issue 16). Included by the Makefile (`include delivery/hub.mk`, after TEST_STAMP and PY).
#   make hub-env     install JupyterHub + nbgitpuller (build/hub-venv) and configurable-http-proxy (build/hub-node)
#   make test-hub    a real hub on 127.0.0.1, 5 simulated students (tests/platform/hub); prints its elapsed seconds
#   make bench-hub   the class-scale benchmark, N = 1, 5, 10, 20 students -> build/hub-bench.json + .png
# build/hub-venv is layered over .venv (delivery/layered_venv.py: a .pth file adds the .venv's site-packages), so
# the students' servers run the course's own JupyterLab, ipywidgets and lmtie_edu, plus what the hub adds.

.PHONY: hub-env test-hub bench-hub

HUB_VENV    := build/hub-venv
HUB_NODE    := build/hub-node
HUB_PINS    := deploy/jupyterhub/requirements-hub.txt
CHP_VERSION := 5.3.0
HUB_STAMP   := $(HUB_VENV)/.hub-installed
CHP_STAMP   := $(HUB_NODE)/.chp-$(CHP_VERSION)
HUB_STUDENTS ?= 5
HUB_BENCH_STUDENTS ?= 1,5,10,20

# Uses `timed` from delivery/integration.mk (included first): run commands, print their elapsed seconds.

$(HUB_STAMP): $(HUB_PINS) constraints.txt $(TEST_STAMP)
	$(PY) -m delivery.layered_venv $(HUB_VENV)
	$(HUB_VENV)/bin/python -m pip install --quiet -c constraints.txt -r $(HUB_PINS)
	$(HUB_VENV)/bin/python -m delivery.lean_server --prefix $(HUB_VENV) >/dev/null  # as the hub image does
	$(HUB_VENV)/bin/python -c "import jupyterhub, nbgitpuller, jupyterlab, lmtie_edu; \
		print('hub-venv: jupyterhub', jupyterhub.__version__, 'nbgitpuller', nbgitpuller.__version__)"
	touch $@

$(CHP_STAMP):
	@command -v npm >/dev/null || { \
		echo "make hub-env needs Node.js and npm for the hub's proxy: apt-get install -y nodejs npm"; exit 1; }
	npm install --prefix $(HUB_NODE) --no-audit --no-fund --loglevel=error configurable-http-proxy@$(CHP_VERSION)
	$(HUB_NODE)/node_modules/.bin/configurable-http-proxy --version
	touch $@

hub-env: $(HUB_STAMP) $(CHP_STAMP)

test-hub: hub-env $(MPL_READY)
	$(call timed,make test-hub,LMTIE_HUB_STUDENTS=$(HUB_STUDENTS) \
		$(PY) -m pytest -q -rs -m hub -p no:cacheprovider tests/platform/hub)

bench-hub: hub-env $(MPL_READY)
	$(call timed,make bench-hub,$(PY) -m delivery.hub_bench --students $(HUB_BENCH_STUDENTS))
