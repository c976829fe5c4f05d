"""delivery/install_check.py judges a resolution right: the CPU build chosen and kept, nothing from CUDA.

The resolutions themselves need PyPI and run in `make test-install`; here, what the check makes of them."""

from delivery.install_check import problems

CPU_TORCH = [("torch", "2.13.0+cpu")]
REST = [("numpy", "2.4.6"), ("torch", "2.13.0+cpu"), ("sympy", "1.14.0")]


def test_the_cpu_build_chosen_and_kept_is_right():
    assert problems(CPU_TORCH, REST, [], linux=True) == []


def test_pypi_torch_in_step_one_is_named():
    assert problems([("torch", "2.13.0")], REST, [], linux=True) == [
        "step 1 takes torch 2.13.0, not a +cpu build: the CPU index is not used"]


def test_macos_takes_pypi_torch():
    assert problems([("torch", "2.13.0")], REST, [], linux=False) == []


def test_cuda_packages_in_step_two_are_named():
    found = problems(CPU_TORCH, REST + [("nvidia-cublas", "13.1.1.3"), ("triton", "3.7.1")], [], linux=True)
    assert found == ["step 2 pulls CUDA packages: nvidia-cublas==13.1.1.3, triton==3.7.1"]


def test_a_replaced_torch_is_named():
    assert problems(CPU_TORCH, REST, [("torch", "2.13.0")], linux=True) == [
        "step 2 replaces the installed torch with torch==2.13.0"]


def test_step_one_must_install_torch_alone():
    assert problems(CPU_TORCH + [("sympy", "1.14.0")], REST, [], linux=True) == [
        "step 1 must install torch alone (--no-deps); it installs [('torch', '2.13.0+cpu'), ('sympy', '1.14.0')]"]
