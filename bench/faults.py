"""Faults, end to end: what each hostile input, server or disk does to a run, timed as a whole process.

Every fault of issue 31 is set up in a fresh folder with a good build already in place (a small
screenplay written here, built offline), then the command runs as its own process
(`python -m kgbuild ...`). Each row says the exit status, the seconds to the end, whether the
previous build survived (graph.json byte for byte, or as `kgbuild query --db` sees it after a
crash), and the first line the command printed on stderr.

Example:
    >>> rows = bench_faults()
    >>> [(r.fault, r.exit_status, r.survived) for r in rows][:2]
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from bench.llm import invented_fact_responder
from kgbuild.llm.cache import CACHE_FILE
from kgbuild.testing import FakeOpenAIServer, Fault, FaultPlan

#: A screenplay written for this benchmark: three scenes, two characters, a thing handed over.
SCRIPT = """Title: The Keeper

INT. LIGHTHOUSE - LAMP ROOM - NIGHT

NORA HALE (70s) winds the clockwork of the great lamp. OWEN (10) watches from the stairs.

OWEN
Grandma, why do we still light it?

NORA
Because the boats still come.

EXT. HARBOUR - DAY

Captain IVERS coils a rope on the pier. Owen runs up.

IVERS
Storm's coming tonight, boy.

Ivers hands Owen a tin whistle.

INT. LIGHTHOUSE - KITCHEN - MORNING

Nora boils water. Owen hides the tin whistle under his pillow.

NORA
Where did you get that?
"""
#: Crashes the command right after its third rename touching a staging folder (no cleanup).
_CRASH = """
import os, sys
seen = [0]
def crashing(real):
    def call(src, dst, *args, **kwargs):
        result = real(src, dst, *args, **kwargs)
        if ".kgbuild-staging-" in f"{src} {dst}":
            seen[0] += 1
            if seen[0] == 3:
                os._exit(70)
        return result
    return call
os.rename, os.replace = crashing(os.rename), crashing(os.replace)
from kgbuild.cli import main
sys.argv = ["kgbuild", *sys.argv[1:]]
main()
"""


class FaultRow(BaseModel):
    """What one fault did."""

    model_config = ConfigDict(extra="forbid")

    fault: str
    exit_status: int | None = Field(description="None when the fault could not be set up here (see message).")
    seconds: float
    survived: bool | None = Field(description="The previous build as it was (None: no previous build matters).")
    message: str = Field(description="The first line on stderr (or why the row was skipped).")


class _Run(BaseModel):
    model_config = ConfigDict(extra="forbid")

    status: int
    seconds: float
    stderr: str
    stdout: str


def _kgbuild(args: list[str], env: dict[str, str], *, preamble: str | None = None, timeout: float = 600) -> _Run:
    command = [sys.executable, "-c", preamble, *args] if preamble else [sys.executable, "-m", "kgbuild", *args]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=timeout, check=False)
    return _Run(status=done.returncode, seconds=round(time.perf_counter() - start, 2), stderr=done.stderr,
                stdout=done.stdout)


def _first_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip() and "━" not in line]
    return lines[0][:160] if lines else ""


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else ""


class _Bench:
    """A temp folder with the script, a cache and a good build of it to break things against."""

    def __init__(self, root: Path):
        self.root = root
        self.script = root / "keeper.fountain"
        self.script.write_text(SCRIPT, encoding="utf-8")
        self.cache = root / "cache"
        self.env = {**os.environ, "KGBUILD_CACHE_DIR": str(self.cache), "OPENAI_API_KEY": "bench"}
        self.good = root / "good"
        first = _kgbuild(["build", str(self.script), "-o", str(self.good), "-q"], self.env)
        if first.status != 0:
            raise RuntimeError(f"the benchmark's own build failed: {first.stderr[-400:]}")

    def fresh(self, name: str) -> Path:
        out = self.root / name
        shutil.copytree(self.good, out)
        return out

    def row(self, fault: str, run: _Run, out: Path | None, before: str | None) -> FaultRow:
        survived = None if out is None or before is None else _digest(out / "graph.json") == before
        return FaultRow(fault=fault, exit_status=run.status, seconds=run.seconds, survived=survived,
                        message=_first_line(run.stderr))


def _llm(bench: _Bench, name: str, server: FakeOpenAIServer, extra: list[str]) -> FaultRow:
    out = bench.fresh(name)
    before = _digest(out / "graph.json")
    run = _kgbuild(["build", str(bench.script), "-o", str(out), "-q", "--force", "--llm-model", "bench-model",
                    "--llm-base-url", server.base_url, "--llm-cache-dir", str(bench.root / f"llm-{name}"), *extra],
                   bench.env)
    return bench.row(name, run, out, before)


def _invented_event(bench: _Bench) -> FaultRow:
    with FakeOpenAIServer(responder=invented_fact_responder(scene=4242)) as server:
        row = _llm(bench, "invented event (valid JSON, scene 4242)", server, [])
    graph = json.loads((bench.root / row.fault / "graph.json").read_text(encoding="utf-8"))
    landed = any("4242" in json.dumps(e.get("scenes", [])) or "Alderaan" in e.get("name", "")
                 for e in graph.get("entities", []))
    # The build succeeds on the valid answers, so replacing the old build is right: no survival to check.
    note = f"invented event in graph.json: {'yes' if landed else 'no'}"
    return row.model_copy(update={"survived": None, "message": "; ".join(x for x in (note, row.message) if x)})


def _silent_server(bench: _Bench) -> FaultRow:
    with FakeOpenAIServer(faults=FaultPlan(rates={Fault.SILENT: 1.0})) as server:
        return _llm(bench, "server that never answers (--llm-timeout 3 --llm-deadline 30)", server,
                    ["--llm-timeout", "3", "--llm-deadline", "30"])


def _symlink(bench: _Bench) -> FaultRow:
    out = bench.fresh("symlink planted at report.md")
    outside = bench.root / "outside.txt"
    outside.write_text("not kgbuild's", encoding="utf-8")
    (out / "report.md").unlink()
    (out / "report.md").symlink_to(outside)
    run = _kgbuild(["build", str(bench.script), "-o", str(out), "-q", "--force"], bench.env)
    kept = outside.read_text(encoding="utf-8") == "not kgbuild's"
    return FaultRow(fault="symlink planted at report.md", exit_status=run.status, seconds=run.seconds,
                    survived=None, message=f"file outside the folder untouched: {'yes' if kept else 'no'}")


def _corrupt_cache(bench: _Bench, which: str) -> FaultRow:
    cache = bench.root / f"cache-{which}"
    shutil.copytree(bench.cache, cache)
    target = cache / "embeddings.sqlite" if which == "embedding" else bench.root / "llm-corrupt" / CACHE_FILE
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(os.urandom(4096))
    out = bench.fresh(f"corrupt {which} cache")
    before = _digest(out / "graph.json")
    env = {**bench.env, "KGBUILD_CACHE_DIR": str(cache)}
    args = ["build", str(bench.script), "-o", str(out), "-q", "--force"]
    if which == "llm":
        args += ["--llm-model", "bench-model", "--llm-base-url", "http://127.0.0.1:9", "--llm-cache-dir",
                 str(target.parent)]
    row = bench.row(f"corrupt {which} cache (garbage bytes)", _kgbuild(args, env), out, before)
    # A damaged embedding cache is set aside and the build goes on: its new graph replaces the old one.
    return row.model_copy(update={"survived": None}) if which == "embedding" else row


def _crash(bench: _Bench) -> FaultRow:
    out = bench.fresh("crash in the final write")
    query = ["query", "--db", str(out), "--format", "json", "MATCH (c:Character) RETURN c.name AS name ORDER BY name"]
    seen_before = _kgbuild(query, bench.env).stdout
    crashed = _kgbuild(["build", str(bench.script), "-o", str(out), "-q", "--force", "--no-merge"], bench.env,
                       preamble=_CRASH)
    after = _kgbuild(query, bench.env)
    return FaultRow(fault="crash after the 3rd rename of the final write", exit_status=crashed.status,
                    seconds=crashed.seconds, survived=after.status == 0 and after.stdout == seen_before,
                    message=_first_line(after.stderr) or "the next reader saw the old build")


def _concurrent(bench: _Bench) -> FaultRow:
    out = bench.fresh("two builds into one folder")
    before = _digest(out / "graph.json")
    first = subprocess.Popen([sys.executable, "-m", "kgbuild", "build", str(bench.script), "-o", str(out), "-q",
                              "--force"], env=bench.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while not _held(out / ".kgbuild.lock") and time.monotonic() < deadline and first.poll() is None:
            time.sleep(0.05)
        first.send_signal(signal.SIGSTOP)  # the first build holds the folder while the second tries
        second = _kgbuild(["build", str(bench.script), "-o", str(out), "-q", "--force"], bench.env)
    finally:
        first.send_signal(signal.SIGCONT)
        first.wait(timeout=600)
    row = bench.row("second build into a folder a build holds", second, out, before)
    return row.model_copy(update={"survived": None})


def _held(lock: Path) -> bool:
    """True while another process holds the build folder's lock."""
    try:
        with lock.open("a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            fcntl.flock(handle, fcntl.LOCK_UN)
    except BlockingIOError:
        return True
    except FileNotFoundError:
        return False
    return False


def _disk_full(bench: _Bench) -> FaultRow:
    """The build on a 12 MB tmpfs, 3 MB of it taken, mounted in a user namespace (no root needed)."""
    fault = "disk full on the output folder (12 MB tmpfs)"
    probe = subprocess.run(["unshare", "-Urm", "true"], check=False, capture_output=True, text=True) \
        if shutil.which("unshare") else None
    if probe is None or probe.returncode != 0:
        why = "unshare is not installed" if probe is None else probe.stderr.strip()
        return FaultRow(fault=fault, exit_status=None, seconds=0.0, survived=None,
                        message=f"skipped: no user namespace for a tmpfs here ({why})")
    mount, logs = bench.root / "small", bench.root / "small-logs"
    mount.mkdir()
    logs.mkdir()
    script = f"""
set -e
mount -t tmpfs -o size=12m tmpfs {mount}
cp -r {bench.good} {mount}/out
sha256sum {mount}/out/graph.json > {logs}/before.txt
head -c 3M /dev/zero > {mount}/filler
set +e
{sys.executable} -m kgbuild build {bench.script} -o {mount}/out -q --force 2> {logs}/stderr.txt
echo $? > {logs}/status.txt
sha256sum {mount}/out/graph.json > {logs}/after.txt
"""
    start = time.perf_counter()
    subprocess.run(["unshare", "-Urm", "sh", "-c", script], check=False, capture_output=True, text=True,
                   timeout=600, env=bench.env)
    status = (logs / "status.txt").read_text().strip() if (logs / "status.txt").exists() else ""
    before, after = ((logs / name).read_text().split()[0] for name in ("before.txt", "after.txt"))
    return FaultRow(fault=fault, exit_status=int(status) if status.isdigit() else None,
                    seconds=round(time.perf_counter() - start, 2), survived=before == after,
                    message=_first_line((logs / "stderr.txt").read_text(encoding="utf-8")))


def _corpus_ids(bench: _Bench) -> FaultRow:
    """A corpus of three scripts: a 90-character Chinese title (270 bytes), a movie titled like the corpus's
    own report, and a plain one."""
    folder = bench.root / "corpus-in"
    folder.mkdir()
    for name, title in (("long.fountain", "灯塔守护人的漫长夜晚" * 9), ("clash.fountain", "report.md"),
                        ("plain.fountain", "The Keeper")):
        (folder / name).write_text(SCRIPT.replace("Title: The Keeper", f"Title: {title}"), encoding="utf-8")
    out = bench.root / "corpus-out"
    run = _kgbuild(["build", str(folder), "-o", str(out), "-q"], bench.env)
    built = sorted(p.parent.name for p in out.glob("*/graph.json"))
    longest = max((len(name.encode()) for name in built), default=0)
    return FaultRow(fault="corpus: a 270-byte title and a movie titled report.md", exit_status=run.status,
                    seconds=run.seconds, survived=None,
                    message=f"{len(built)} of 3 movies built; longest folder name {longest} bytes; "
                            f"report.md is {'the report' if (out / 'report.md').is_file() else 'missing'}")


def _deep_parameter(bench: _Bench) -> FaultRow:
    run = _kgbuild(["query", "--db", str(bench.good), "-p", "x=" + "[" * 50_000, "RETURN $x AS x"], bench.env)
    return FaultRow(fault="query -p with 50,000 brackets", exit_status=run.status, seconds=run.seconds,
                    survived=None, message=_first_line(run.stderr))


def _long_name(bench: _Bench) -> FaultRow:
    out = bench.fresh("dossier of a 300-byte name")
    graph_path = out / "graph.json"
    data = json.loads(graph_path.read_text(encoding="utf-8"))
    for entity in data["entities"]:
        if entity["type"] == "Character":
            entity["name"] = "灯" * 100
            break
    graph_path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    run = _kgbuild(["dossier", str(out), "--top", "3", "-o", str(out / "dossiers")], bench.env)
    return FaultRow(fault="dossier --top 3 with a 300-byte name", exit_status=run.status, seconds=run.seconds,
                    survived=None, message=_first_line(run.stderr) or "written")


def _export_counts(bench: _Bench) -> FaultRow:
    run = _kgbuild(["export", str(bench.good / "graph.json"), "--format", "cypher", "-o", str(bench.root / "cy")],
                   bench.env)
    script = (bench.root / "cy" / "graph.cypher").read_text(encoding="utf-8") if run.status == 0 else ""
    scenes = script.count(":Scene")
    return FaultRow(fault="export --format cypher: the scene layer", exit_status=run.status, seconds=run.seconds,
                    survived=None, message=f"Scene nodes in the script: {'yes' if scenes else 'no'}")


#: The faults, in the order of the table.
FAULTS: tuple[Callable[[_Bench], FaultRow], ...] = (
    _invented_event, _silent_server, _symlink, lambda b: _corrupt_cache(b, "embedding"),
    lambda b: _corrupt_cache(b, "llm"), _disk_full, _corpus_ids, _crash, _concurrent, _export_counts,
    _deep_parameter, _long_name)


def bench_faults() -> list[FaultRow]:
    """Run every fault once in a temporary folder and return one row per fault."""
    with tempfile.TemporaryDirectory(prefix="kgbuild-faults-") as tmp:
        bench = _Bench(Path(tmp))
        return [fault(bench) for fault in FAULTS]


def format_faults(rows: list[FaultRow]) -> list[str]:
    """The rows as a Markdown table (the one the docs show)."""
    out = ["Faults (each in a fresh folder over a good build, as its own process):", "",
           "| fault | exit status | seconds | previous build survived | first line |", "|---|---|---|---|---|"]
    for r in rows:
        survived = "–" if r.survived is None else ("yes" if r.survived else "no")
        status = "skipped" if r.exit_status is None else str(r.exit_status)
        fault, message = (text.replace("|", "/") for text in (r.fault, r.message))
        out.append(f"| {fault} | {status} | {r.seconds:.1f} | {survived} | {message} |")
    return out
