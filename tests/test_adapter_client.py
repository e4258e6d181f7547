import time

import pytest

from gaia2_runner.adapter_client import AdapterClient, ContainerExited, HealthFailed, HealthTimeout
from gaia2_runner.podman_backend import free_port

from conftest import FakeAdapter


def test_wait_healthy_after_starting():
    t0 = time.monotonic()

    def health():
        return (200, {"status": "ok", "runtime": "oracle"}) if time.monotonic() - t0 > 0.5 else (503, {"status": "starting"})

    fake = FakeAdapter(health, lambda: {"status": "running"})
    try:
        with AdapterClient(fake.base_url) as client:
            assert client.wait_healthy(5)["runtime"] == "oracle"
            assert client.get_status()["status"] == "running"
    finally:
        fake.close()


def test_health_500_is_final():
    fake = FakeAdapter(lambda: (500, {"status": "error", "error": "bad scenario"}), dict)
    try:
        with AdapterClient(fake.base_url) as client, pytest.raises(HealthFailed, match="bad scenario"):
            client.wait_healthy(5)
    finally:
        fake.close()


def test_connection_refused_until_timeout():
    with AdapterClient(f"http://127.0.0.1:{free_port()}") as client:
        t0 = time.monotonic()
        with pytest.raises(HealthTimeout, match="health timeout after 0.6s"):
            client.wait_healthy(0.6)
        assert time.monotonic() - t0 < 3


def test_container_exit_stops_waiting():
    with AdapterClient(f"http://127.0.0.1:{free_port()}") as client:
        with pytest.raises(ContainerExited):
            client.wait_healthy(30, container_alive=lambda: False)
