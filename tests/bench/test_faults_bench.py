"""The fault benchmark's harness: a good build to break, faults run as whole processes, one row each."""

from __future__ import annotations

import pytest

from bench.faults import FaultRow, _Bench, _deep_parameter, _symlink, format_faults

pytestmark = pytest.mark.slow


def test_fault_rows_of_a_planted_symlink_and_a_deep_parameter(tmp_path):
    bench = _Bench(tmp_path)
    assert (bench.good / "graph.json").is_file()
    symlink = _symlink(bench)
    assert symlink.exit_status == 0 and symlink.message == "file outside the folder untouched: yes"
    deep = _deep_parameter(bench)
    assert deep.exit_status == 2 and "100 levels" in deep.message and "Traceback" not in deep.message
    table = format_faults([symlink, deep, FaultRow(fault="x | y", exit_status=None, seconds=0, survived=True,
                                                    message="skipped: no tmpfs")])
    assert table[2].startswith("| fault | exit status") and "| symlink planted at report.md | 0 |" in table[4]
    assert table[-1] == "| x / y | skipped | 0.0 | yes | skipped: no tmpfs |"
