"""LLM extraction: per chunk, events first, then entities, then relations; reflection and retries.

- `context`: what the parser already knows about each chunk (scenes, places, cues), for the
  prompts and for checking the answers.
- `responses`: what the model must answer (pydantic models made from the schema).
- `extract`: one chunk's requests, reflection and bounded retries; the chunks' graphs assembled.
- `chunk_graph`: a chunk's answer as graph pieces with stable ids.
- `reflect`: the deterministic checks and the model's 0-10 judgement.
- `grounding`: evidence for every fact, found in the screenplay text.
- `run`: the outer layer of an LLM build (the client from the settings, the clean stops).
- `estimate`: what an LLM build would ask, before it asks (`build --dry-run`).

The requests go through the transport in `kgbuild.llm` (client, cache, batch, limits, costs).
"""
