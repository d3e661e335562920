"""Which backend ``backend=auto`` finds: a GPU counts only when numba can use a visible device."""

from __future__ import annotations

from numba import cuda

from checkers_agents.mcrd.agent import gpu_available, resolve_backend


def test_a_driver_without_a_visible_device_is_no_gpu(monkeypatch):
    # A machine with the CUDA driver and compiler but no device visible (CUDA_VISIBLE_DEVICES=""):
    # numba's is_available() says yes, yet there is nothing to launch on.
    monkeypatch.setattr(cuda, "is_available", lambda: True)
    monkeypatch.setattr(cuda, "gpus", [])
    assert gpu_available() is False
    assert resolve_backend("auto") == "cpu"
