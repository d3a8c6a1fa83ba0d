"""Benchmarks behind `kgbuild bench`, one module per `--only` choice, and the local LLM server.

- `parsing`, `scoring`, `build`: screenplay parsing per format, STAGE-KG scoring, an offline build;
- `store`: the embedded store's load time and query latency;
- `llm`: an LLM build against `fake_server`, with 1 and 32 requests in flight;
- `merge`: merge clustering at scale and embedding throughput;
- `fake_server`: the local OpenAI-compatible server with injectable faults, also used by the tests.

This package sits on top: it may import any other part of kgbuild, and nothing in the library
imports it (only the `bench` command of the CLI, lazily).
"""
