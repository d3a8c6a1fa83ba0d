"""`ask`'s results as text for a reader: the answer with its citations, then the ranked evidence;
or the Cypher query, the attempts refused, and its rows.

Example:
    >>> print("\\n".join(result_lines(session.ask("Where does Owen hide the whistle?"))))  # doctest: +SKIP
    Question: Where does Owen hide the whistle?
    Answer (gpt-4o-mini): Under his pillow (scene 3).
      scene 3, line 31: "Owen hides the tin whistle under his pillow."
    ...
"""

from __future__ import annotations

import json
from typing import Any

from kgbuild.ask.types import AskResult, Citation, CypherAnswer


def _lines(citation: Citation) -> str:
    if not citation.lines:
        return ""
    first, last = citation.lines[0], citation.lines[-1]
    return f", line {first}" if first == last else f", lines {first}-{last}"


def answer_lines(result: AskResult) -> list[str]:
    """The answer, its citations and the ones dropped (with why); or why there is none."""
    if result.answer_error is not None:
        return [f"No answer: {result.answer_error}"]
    answer = result.answer
    if answer is None:
        return []
    out = [f"Answer ({answer.model}): {answer.text}"]
    out += [f'  scene {c.scene}{_lines(c)}: "{c.quote}"' for c in answer.citations]
    out += [f'  dropped: scene {c.scene}{_lines(c)}: "{c.quote}" ({c.problem})' for c in answer.flagged]
    if answer.cited_unretrieved:
        out.append("  cites scenes that were not retrieved: " + ", ".join(map(str, answer.cited_unretrieved)))
    return out


def evidence_lines(result: AskResult) -> list[str]:
    """The linked entities, the ranked scenes with their matched lines, and the facts with evidence."""
    names = ", ".join(f"{e.name} ({e.type})" for e in result.entities) or "none"
    out = [f"Named in the graph: {names}"]
    for rank, scene in enumerate(result.scenes, start=1):
        out += ["", f"{rank}. Scene {scene.scene}: {scene.heading}  (score {scene.score:.2f})"]
        out += [f"   line {line.lines[0]}: {line.speaker + ': ' if line.speaker else ''}{line.text}"
                for line in scene.lines]
    if result.facts:
        out += ["", "Facts:"]
        for fact in result.facts:
            ev = fact.evidence[0]
            where = f"scene {ev.scene}" + (f", line {ev.lines[0]}" if ev.lines else "")
            out.append(f'  {fact.statement}  [{where}: "{ev.quote}"]')
    return out


def result_lines(result: AskResult) -> list[str]:
    """The whole result for a reader: the question, the answer (with an LLM), then the evidence."""
    bound = f" (scenes 1-{result.as_of_scene})" if result.as_of_scene else ""
    answer = answer_lines(result)
    return [f"Question{bound}: {result.question}", *answer, *([""] if answer else []), *evidence_lines(result)]


def cell_text(value: Any) -> str:
    """A query result's value as one table cell: nothing for null, JSON for a list or a map."""
    if value is None:
        return ""
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def cypher_lines(answer: CypherAnswer) -> list[str]:
    """The question, each query the model wrote (the refused ones with why), and the rows, one per
    line with its cells joined by ' | '."""
    out = [f"Question: {answer.question}"]
    for number, attempt in enumerate(answer.attempts, start=1):
        state = "ran" if attempt.problem is None else f"refused: {attempt.problem}"
        out += [f"Query {number} ({answer.model}, {state}):", *(f"  {line}" for line in attempt.cypher.splitlines())]
    if answer.error is not None:
        return out
    out += ["", " | ".join(answer.columns)]
    out += [" | ".join(cell_text(v) for v in row) for row in answer.rows]
    count = len(answer.rows)
    out.append(f"{count} row{'' if count == 1 else 's'}" + (" (more were cut)" if answer.truncated else ""))
    return out
