"""Test helpers: a local OpenAI-compatible server that answers what you script and fails as you plan.

For testing code that talks to an LLM through the `openai` client (a kgbuild build, or your own
code): `FakeOpenAIServer` serves `POST /v1/chat/completions` on 127.0.0.1 from a background
thread, so the client runs its real path (HTTP, JSON, status codes, Retry-After, timeouts,
dropped connections) with no network and no key. A *responder* (request body -> assistant
content) says what the model answers; a `FaultPlan` says what goes wrong, request by request
(`queue`) or at seeded random rates: 429, 500, timeouts, silence, dropped connections, truncated
or malformed JSON, values of the wrong type, empty answers, an HTML page. Every request is
recorded (`server.requests`), with the fault it got and the status sent.

kgbuild's own tests and benchmarks use it; nothing else in the package imports it.

Example:
    >>> from openai import OpenAI
    >>> from kgbuild.testing import FakeOpenAIServer, Fault, FaultPlan
    >>> plan = FaultPlan(queue=[Fault.RATE_LIMIT], retry_after=0)
    >>> with FakeOpenAIServer(responder=lambda body: '{"answer": 42}', faults=plan) as server:
    ...     client = OpenAI(base_url=server.base_url, api_key="test")
    ...     reply = client.chat.completions.create(model="any", messages=[{"role": "user", "content": "?"}])
    ...     print(reply.choices[0].message.content, [r.status for r in server.requests])
    {"answer": 42} [429, 200]
"""

from kgbuild.testing.openai_server import FakeOpenAIServer, Fault, FaultPlan, RecordedRequest, Responder, wrong_types

__all__ = ["FakeOpenAIServer", "Fault", "FaultPlan", "RecordedRequest", "Responder", "wrong_types"]
