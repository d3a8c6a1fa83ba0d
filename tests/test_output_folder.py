"""A build's output folder under faults: symlinks planted in it, two builds at once, a full disk,
a crash in the middle of the final write, staging left by a killed build. Real files, real
subprocesses where a crash or a second process is the point."""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kgbuild.errors import OutputError
from kgbuild.folders import BuildFolder
from kgbuild.graph import load_graph
from kgbuild.journal import settle
from kgbuild.output import build_folder, write_build
from kgbuild.pipeline import BuildOptions, run_build
from tests.test_failures import ACADEMY, HARBOUR, one_line_error, run

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cache(embedding_cache: Path) -> Path:
    return embedding_cache


@pytest.fixture(scope="module")
def harbour_build(tmp_path_factory: pytest.TempPathFactory, cache: Path) -> Path:
    """The Harbour Job built once by the CLI; tests copy it."""
    out = tmp_path_factory.mktemp("harbour") / "out"
    result = run("build", str(HARBOUR), "-o", str(out), "-q", cache=cache)
    assert result.returncode == 0, result.stderr
    return out


def snapshot(folder: Path) -> dict[str, bytes | str]:
    """Every entry below `folder`: a file's bytes, a symlink's target, a folder as 'dir'."""
    found: dict[str, bytes | str] = {}
    for path in sorted(folder.rglob("*")):
        name = str(path.relative_to(folder))
        if path.is_symlink():
            found[name] = f"-> {os.readlink(path)}"
        elif path.is_dir():
            found[name] = "dir"
        else:
            found[name] = path.read_bytes()
    return found


def kgbuild_with(prelude: str, *args: str, cache: Path) -> subprocess.CompletedProcess[str]:
    """Run the CLI in a Python that first runs `prelude` (which patches the os module)."""
    code = f"{prelude}\nimport sys\nfrom kgbuild.cli import main\nsys.argv = ['kgbuild', *sys.argv[1:]]\nmain()\n"
    env = {**os.environ, "KGBUILD_CACHE_DIR": str(cache)}
    return subprocess.run([sys.executable, "-c", code, *args], check=False, capture_output=True, text=True,
                          timeout=300, env=env)


def test_symlinks_planted_in_the_output_folder_are_replaced_never_followed(tmp_path, cache, harbour_build):
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    shutil.copytree(harbour_build, out)
    (elsewhere / "folder").mkdir(parents=True)
    (elsewhere / "folder" / "keep.txt").write_text("precious")
    planted = [*BuildFolder.BUILD_FILES, BuildFolder.REVIEW, BuildFolder.LOCK, "schema.json"]
    for name in planted:
        (elsewhere / name).write_text("precious")
        (out / name).unlink(missing_ok=True)
        (out / name).symlink_to(elsewhere / name)
    (out / "graph.lbdb").unlink()
    (out / "graph.lbdb").symlink_to(elsewhere / "folder", target_is_directory=True)
    (out / ".kgbuild-staging-planted").symlink_to(elsewhere / "folder", target_is_directory=True)

    result = run("build", str(HARBOUR), "-o", str(out), "-q", cache=cache)
    assert result.returncode == 0, result.stderr
    for name in planted:
        assert (elsewhere / name).read_text() == "precious", name
    assert [p.name for p in (elsewhere / "folder").iterdir()] == ["keep.txt"]
    assert (elsewhere / "folder" / "keep.txt").read_text() == "precious"
    assert not os.path.lexists(out / ".kgbuild-staging-planted")
    for name in BuildFolder.BUILD_FILES:
        assert (out / name).is_file() and not (out / name).is_symlink(), name
    assert not any(os.path.lexists(out / name) for name in (BuildFolder.REVIEW, BuildFolder.LOCK, "schema.json"))
    assert load_graph(out / "graph.json").movie.title == "The Harbour Job"


def wait_for_lock(out: Path, process: subprocess.Popen[str]) -> dict:
    """What the process wrote into the lock of `out` once it holds it."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and process.poll() is None:
        try:
            holder = json.loads((out / BuildFolder.LOCK).read_text())
        except (OSError, ValueError):
            holder = {}
        if holder.get("pid") == process.pid:
            return holder
        time.sleep(0.02)
    raise AssertionError(f"the build never held {out / BuildFolder.LOCK} (exit status {process.poll()})")


def test_a_second_build_into_a_held_folder_exits_2_naming_the_first_and_a_dead_ones_lock_is_taken(
        tmp_path, cache):
    out = tmp_path / "out"
    env = {**os.environ, "KGBUILD_CACHE_DIR": str(cache)}
    first = subprocess.Popen([sys.executable, "-m", "kgbuild", "build", str(HARBOUR), "-o", str(out), "-q"],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        holder = wait_for_lock(out, first)
        first.send_signal(signal.SIGSTOP)  # the first build holds the folder for as long as the test needs
        second = run("build", str(ACADEMY), "-o", str(out), "-q", cache=cache)
        one_line_error(second, f"process {first.pid}", f"started {holder['started']}", "another folder")
    finally:
        first.send_signal(signal.SIGCONT)
    _, stderr = first.communicate(timeout=300)
    assert first.returncode == 0, stderr
    assert load_graph(out / "graph.json").movie.title == "The Harbour Job"  # the second build wrote nothing

    # A build killed while it holds the folder leaves its lock file (and maybe its staging): the next
    # build takes the lock over and removes the staging.
    killed = subprocess.Popen([sys.executable, "-m", "kgbuild", "build", str(ACADEMY), "-o", str(out), "-q",
                               "--force"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for_lock(out, killed)
    killed.kill()
    killed.wait()
    assert (out / BuildFolder.LOCK).exists()
    stale = out / ".kgbuild-staging-k1lled"
    (stale / ".old").mkdir(parents=True)
    (stale / "graph.lbdb").write_bytes(b"\0" * (1 << 20))
    third = run("build", str(ACADEMY), "-o", str(out), "-q", "--force", cache=cache)
    assert third.returncode == 0, third.stderr
    assert load_graph(out / "graph.json").movie.title == "The Academy"
    assert sorted(p.name for p in out.iterdir() if p.name.startswith(".")) == []


@pytest.fixture(scope="module")
def states() -> dict:
    """Two builds made in this process (without merging: no embedder needed)."""
    return {"old": run_build(HARBOUR, BuildOptions(merge=False)), "new": run_build(ACADEMY, BuildOptions(merge=False))}


#: The calls of staging and of the final write a full disk can fail.
WRITE_CALLS = ("write", "fsync", "rename", "replace", "mkdir")


def test_a_full_disk_at_any_write_of_staging_or_of_the_final_write_keeps_the_old_build(
        tmp_path, states, monkeypatch):
    template, out = tmp_path / "template", tmp_path / "out"
    write_build(states["old"], template)
    (template / "audit").mkdir()
    (template / "audit" / "verdicts.jsonl").write_text("{}\n")
    before = snapshot(template)
    faults = 0
    for failing_at in range(1, 500):
        shutil.rmtree(out, ignore_errors=True)
        shutil.copytree(template, out)
        seen = [0]

        def full(real, seen=seen, at=failing_at):
            def call(*args, **kwargs):
                seen[0] += 1
                if seen[0] == at:
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                return real(*args, **kwargs)
            return call

        with monkeypatch.context() as patch:
            for name in WRITE_CALLS:
                patch.setattr(os, name, full(getattr(os, name)))
            try:
                write_build(states["new"], out)
            except OutputError as e:
                message = str(e)
            else:
                message = ""
        if seen[0] < failing_at:
            break  # the build made fewer calls: each one has failed once
        if message:
            faults += 1
            assert f"no space left on the device of {out}" in message and "free some space" in message, message
            assert "-o" in message and "\n" not in message
            assert snapshot(out) == before, f"a full disk at call {failing_at} changed the folder"
        else:  # a call whose failure means nothing (making a folder that is there already)
            assert load_graph(out / "graph.json").movie.title == "The Academy"
    assert not message and faults > 30  # every write, flush and rename of staging and of the final write
    assert load_graph(out / "graph.json").movie.title == "The Academy"
    assert (out / "audit" / "verdicts.jsonl").read_text() == "{}\n"


def test_a_full_disk_is_one_line_with_the_old_build_kept(tmp_path, cache, harbour_build):
    """The whole CLI on a small file system (tmpfs in a user namespace): the embedded store's
    library cannot report a full disk itself, so the build checks the room first."""
    if shutil.which("unshare") is None:
        pytest.skip("unshare is not installed")
    probe = subprocess.run(["unshare", "-Urm", "true"], check=False, capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"user namespaces are not available here: {probe.stderr.decode().strip()}")
    mount = tmp_path / "small"
    mount.mkdir()
    script = f"""
set -e
mount -t tmpfs -o size=12m tmpfs {mount}
cp -r {harbour_build} {mount}/out
sha256sum {mount}/out/* > {tmp_path}/before.txt
head -c 3M /dev/zero > {mount}/filler
set +e
{sys.executable} -m kgbuild build {ACADEMY} -o {mount}/out -q --force 2> {tmp_path}/stderr.txt
echo $? > {tmp_path}/status.txt
sha256sum {mount}/out/* > {tmp_path}/after.txt
ls -A {mount}/out > {tmp_path}/names.txt
"""
    env = {**os.environ, "KGBUILD_CACHE_DIR": str(cache)}
    done = subprocess.run(["unshare", "-Urm", "sh", "-c", script], check=False, capture_output=True, text=True,
                          timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    stderr = (tmp_path / "stderr.txt").read_text()
    assert (tmp_path / "status.txt").read_text().strip() == "2", stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    assert f"no space left on the device of {mount}/out" in lines[0] and "free some space" in lines[0]
    assert (tmp_path / "after.txt").read_text() == (tmp_path / "before.txt").read_text()
    assert not any(name.startswith(".kgbuild") for name in (tmp_path / "names.txt").read_text().split())


OLD = {"screenplay.json": "old screenplay", "report.md": "old report", "graph.lbdb": "old store",
       "graph.json": "old graph", BuildFolder.REVIEW: "old review"}
NEW = {"screenplay.json": "new screenplay", "report.md": "new report", "graph.lbdb": "new store",
       "graph.json": "new graph", BuildFolder.REVIEW: None}
INSTALL = ["screenplay.json", "report.md", "graph.lbdb", "graph.json"]
#: Replaces the files, crashing (os._exit: no cleanup, no finally) after the N-th file operation.
CRASH_IN_REPLACE = """
import json, os, shutil, sys
from pathlib import Path
from kgbuild.journal import replace_files
folder, limit, install = Path(sys.argv[1]), int(sys.argv[2]), json.loads(sys.argv[3])
count = [0]
def crashing(real):
    def call(*args, **kwargs):
        result = real(*args, **kwargs)
        count[0] += 1
        if count[0] == limit:
            os._exit(70)
        return result
    return call
for name in ("open", "write", "fsync", "rename", "replace", "mkdir", "unlink", "rmdir"):
    setattr(os, name, crashing(getattr(os, name)))
staging = folder / ".kgbuild-staging-test"
replace_files(folder, staging, install=install, remove=["review.jsonl"])
shutil.rmtree(staging)
"""


def _old_folder(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "audit").mkdir(parents=True)
    (folder / "audit" / "verdicts.jsonl").write_text("mine")
    (folder / "script.corrections.jsonl").write_text("mine")
    for name, text in OLD.items():
        (folder / name).write_text(text)
    staging = folder / ".kgbuild-staging-test"
    staging.mkdir()
    for name in INSTALL:
        (staging / name).write_text(NEW[name] or "")


def _files(folder: Path) -> dict[str, str | None]:
    return {name: (folder / name).read_text() if (folder / name).exists() else None for name in OLD}


def test_a_crash_after_any_file_operation_of_the_final_write_leaves_the_whole_old_or_new_build(tmp_path):
    folder = tmp_path / "out"
    outcomes = []
    for limit in range(1, 200):
        _old_folder(folder)
        crashed = subprocess.run([sys.executable, "-c", CRASH_IN_REPLACE, str(folder), str(limit),
                                  json.dumps(INSTALL)], check=False, capture_output=True, text=True, timeout=60)
        assert crashed.returncode in (0, 70), crashed.stderr
        settle(folder)  # what every kgbuild command does first with a folder it is given
        files = _files(folder)
        assert files in (OLD, NEW), f"a crash after operation {limit} left {files}"
        assert (folder / "audit" / "verdicts.jsonl").read_text() == "mine"
        assert (folder / "script.corrections.jsonl").read_text() == "mine"
        assert not (folder / BuildFolder.JOURNAL).exists()
        with build_folder(folder):  # the next build removes what a crash after the switch left
            pass
        assert not (folder / ".kgbuild-staging-test").exists()
        outcomes.append("new" if files == NEW else "old")
        if crashed.returncode == 0:
            break
    assert crashed.returncode == 0, "the replacement never ran to its end"
    # Old until the journal is removed, then new: one switch, in one file operation.
    switch = outcomes.index("new")
    assert switch > 2 * len(INSTALL) and outcomes == ["old"] * switch + ["new"] * (len(outcomes) - switch)


#: The CLI, crashing right after the N-th rename that touches a staging folder.
CRASH_IN_BUILD = """
import os, sys
limit = int(sys.argv.pop(1))
seen = [0]
def crashing(real):
    def call(src, dst, *args, **kwargs):
        result = real(src, dst, *args, **kwargs)
        if ".kgbuild-staging-" in f"{src} {dst}":
            seen[0] += 1
            if seen[0] == limit:
                os._exit(70)
        return result
    return call
os.rename, os.replace = crashing(os.rename), crashing(os.replace)
"""


def test_after_a_build_crashed_in_its_final_write_a_reader_sees_the_whole_old_build(tmp_path, cache, harbour_build):
    out = tmp_path / "out"
    shutil.copytree(harbour_build, out)
    query = ("query", "--db", str(out), "--format", "json", "MATCH (c:Character) RETURN c.name AS name ORDER BY name")
    before = run(*query, cache=cache)
    assert before.returncode == 0, before.stderr
    crashed = kgbuild_with(CRASH_IN_BUILD, "3", "build", str(ACADEMY), "-o", str(out), "-q", "--force", cache=cache)
    assert crashed.returncode == 70, crashed.stderr

    after = run(*query, cache=cache)
    assert after.returncode == 0, after.stderr
    assert json.loads(after.stdout) == json.loads(before.stdout)
    assert "the build before it is back in place" in after.stderr
    assert load_graph(out / "graph.json").movie.title == "The Harbour Job"
    assert json.loads((out / "screenplay.json").read_text())["title"] == "The Harbour Job"
    assert "The Harbour Job" in (out / "report.md").read_text()
