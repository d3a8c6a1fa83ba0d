"""`scripts/dev falkordb [PORT]`: a local FalkorDB for `kgbuild load`, in the foreground, on loopback."""

from __future__ import annotations

import hashlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kgbuild.loaders.store import open_store
from tests.conftest import REPO
from tests.loaders.bolt_server import free_port
from tests.loaders.conftest import make_small_graph


def _venv_is_scripts_devs() -> bool:
    """scripts/dev would set the venv up again unless its stamp matches (as under 'scripts/dev test')."""
    stamp = Path(sys.prefix) / ".kgbuild-deps"
    want = hashlib.sha256((REPO / "pyproject.toml").read_bytes() + (REPO / "scripts" / "dev").read_bytes())
    return Path(sys.prefix) == REPO / ".venv" and stamp.is_file() and stamp.read_text().strip() == want.hexdigest()


pytestmark = pytest.mark.skipif(not _venv_is_scripts_devs(),
                                reason="runs under the venv scripts/dev keeps (scripts/dev test)")


def test_scripts_dev_falkordb_serves_bolt_until_interrupted(tmp_path):
    port = free_port()
    server = subprocess.Popen([str(REPO / "scripts" / "dev"), "falkordb", str(port)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, start_new_session=True,
                              env={**os.environ, "TMPDIR": str(tmp_path)})
    try:
        assert server.stdout is not None
        uri = server.stdout.readline().strip()
        assert uri == f"bolt://127.0.0.1:{port}"
        deadline = time.monotonic() + 15
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline and server.poll() is None, "FalkorDB did not start"
                time.sleep(0.1)
        with open_store(uri) as store:
            counts = store.load(make_small_graph())
            assert (counts.nodes, counts.relations) == (10, 15)
            assert store.query("MATCH (c:Character) RETURN count(c) AS n").rows == [[3]]
    finally:
        os.killpg(server.pid, signal.SIGINT)  # Ctrl-C
        assert server.wait(timeout=15) == 0
    assert not list(tmp_path.iterdir())  # its data folder is gone


def test_scripts_dev_falkordb_refuses_a_port_it_cannot_serve():
    result = subprocess.run([str(REPO / "scripts" / "dev"), "falkordb", "40000"], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 2
    assert "PORT must be a number from 1 to 32767" in result.stderr
