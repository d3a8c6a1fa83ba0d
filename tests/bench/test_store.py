"""The embedded-store benchmark runs and reports numbers (speed is reported, not asserted)."""

from __future__ import annotations

import pytest

from bench.store import bench_embedded_store, biggest_movie, format_store_bench
from kgbuild.loaders.errors import StoreError
from kgbuild.loaders.examples import EXAMPLES


@pytest.mark.shared_data
@pytest.mark.slow
def test_benchmark_loads_the_biggest_english_movie_and_times_every_example(shared_data, tmp_path):
    stage = shared_data / "stage"
    movie = biggest_movie(stage)
    sizes = [p.stat().st_size for p in (stage / "English").glob("*/extraction_results.json")]
    assert (movie / "extraction_results.json").stat().st_size == max(sizes)
    result = bench_embedded_store(stage, repeat=2, workdir=tmp_path)
    assert result.movie == movie.name and result.nodes > 1500 and result.relations > 4000
    assert [q.name for q in result.queries] == [q.name for q in EXAMPLES if not q.needs_scene_layer]
    assert all(q.rows > 0 and q.median_ms > 0 for q in result.queries)
    lines = format_store_bench(result)
    assert lines[0].startswith(f"Embedded store load of STAGE {movie.name}: {result.nodes} nodes")
    assert len(lines) == 2 + len(result.queries)
    assert list(tmp_path.iterdir()) == []  # the store was temporary


def test_benchmark_needs_stage_data(tmp_path):
    with pytest.raises(StoreError, match="no STAGE movies under"):
        biggest_movie(tmp_path)
