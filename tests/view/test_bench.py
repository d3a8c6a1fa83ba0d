"""`scripts/dev bench --only view` runs and reports numbers (speed is reported, not asserted)."""

from __future__ import annotations

import pytest

from bench.view import bench_view, format_view_bench

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.mark.shared_data
def test_the_view_benchmark_times_the_example_and_the_largest_reference(chromium_ready, cache_env, shared_data,
                                                                         tmp_path):
    result = bench_view(shared_data / "screenplays" / "lizard-people.fountain", shared_data / "stage", repeat=1,
                        workdir=tmp_path)
    example, reference = result.pages
    assert example.name == "example lizard-people" and reference.name.startswith("STAGE reference en")
    assert reference.nodes > 1500 and reference.relations > 4000 and example.nodes > 100
    for page in result.pages:
        assert page.page_bytes > 400_000  # the bundled library alone is 435 kB
        assert page.first_render_ms > 0 and page.runs_ms == [page.first_render_ms]
        assert page.console_errors == 0
    lines = format_view_bench(result)
    assert len(lines) == 3 and "first render" in lines[1] and f"{reference.nodes} nodes" in lines[2]
    assert list(tmp_path.iterdir()) == []  # the pages were temporary
