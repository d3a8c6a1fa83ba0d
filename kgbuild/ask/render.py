"""`ask`'s results as text for a reader: the answer with its citations, then the ranked evidence.

Example:
    >>> print("\\n".join(result_lines(session.ask("Where does Owen hide the whistle?"))))  # doctest: +SKIP
    Question: Where does Owen hide the whistle?
    Answer (gpt-4o-mini): Under his pillow (scene 3).
      scene 3, line 31: "Owen hides the tin whistle under his pillow."
    ...
"""

from __future__ import annotations

from kgbuild.ask.types import AskResult, Citation


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
