"""kgbuild's benchmarks and research studies: development tools, not part of the installed package.

This folder sits beside `kgbuild/` in the repository and is not in the wheel; run it from the
repository root (the tests import it from there too).

- `scripts/dev bench [--only NAME]` (`python -m bench`): the benchmarks, one module per `--only` choice:
  `parsing`, `scoring`, `build` (screenplay parsing per format, STAGE-KG scoring, an offline build);
  `store` (the embedded store's load time and query latency); `llm` (an LLM build against
  `kgbuild.testing.FakeOpenAIServer`, with 1 and 32 requests in flight); `merge` (merge clustering
  at scale, embedding throughput); `view`, `corpus`, `faults` and `ask`.
- `bench.studies`: the research studies behind docs/results, each run as
  `python -m bench.studies.NAME`.
- `bench.paths`: the repository root and the shared research data beside it (`../shared/data`),
  the default `--data` of the benchmarks and studies.

This package sits on top: it may import any part of kgbuild, and nothing in kgbuild imports it.
"""
