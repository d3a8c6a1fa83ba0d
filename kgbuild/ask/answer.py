"""An answer written by an LLM from the retrieved evidence only, its citations checked.

The request (prompt `kgbuild/llm/prompts/answer.md`) shows the ranked scenes in story order,
every line numbered as in the script file, and the ranked facts with their evidence. The model
replies `{answer, citations: [{scene, lines, quote}], says_script_does_not_say}`
(`ModelAnswer`). Each citation is then checked against the evidence (`check_citation`):

- its scene must be one the request showed: a ranked scene (any of its lines), or the scene of
  a shown fact's evidence (the evidence's lines only); otherwise it is flagged 'not retrieved';
- its quote must stand in the cited lines of that scene (up to case, spacing and typographic
  quotes; a long quote may differ slightly, `kgbuild.evidence.QUOTE_MATCH`); a citation without
  line numbers is looked for in the whole scene and gets the lines where it stands.

A citation that fails is dropped from `Answer.citations` and kept in `Answer.flagged` with its
problem; scenes the answer cites (in a citation or as '(scene N)' in its text) that were not
shown are listed in `Answer.cited_unretrieved`.

The request goes through the client every LLM caller uses (`kgbuild.llm.factory.open_llm_client`):
the same response cache, retries, timeout, deadline, budget and batch export as builds.

Example:
    >>> run = answer_all([session.ask("Why does Nadia hide the ring?")], session.index,
    ...                  LLMSettings(model="gpt-4o-mini"))  # doctest: +SKIP
    >>> run.results[0].answer.text  # doctest: +SKIP
    'She fears John will find it (scene 14).'
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Collection, Mapping

from pydantic import BaseModel, ConfigDict

from kgbuild.ask.story_index import SceneLine, StoryIndex
from kgbuild.ask.types import Answer, AskResult, Citation, CitedLines, ModelAnswer, RankedFact
from kgbuild.evidence import QUOTE_MATCH, quote_score
from kgbuild.llm.client import LLMClient
from kgbuild.llm.costs import LLMUsage
from kgbuild.llm.factory import open_llm_client, raise_pending
from kgbuild.llm.prompts import load_prompt
from kgbuild.llm.settings import LLMSettings
from kgbuild.llm.types import ANSWER_ERRORS, ChatBackend, ChatMessage
from kgbuild.model import Evidence

PROMPT = "answer"
#: Accounting label of answer requests in the client's usage.
TASK = "answer"
#: Characters of one scene's lines a request shows at most; a longer scene shows its matched
#: lines with their neighbours first, then its other lines in order while they fit.
SCENE_CHARS = 4000
#: Lines kept on each side of a matched line in a scene cut to `SCENE_CHARS`.
NEIGHBOURS = 2
#: A quote shorter than this (characters) must stand in the lines as written (up to case and
#: spacing); a longer one may differ slightly.
FUZZY_QUOTE_FROM = 12
#: Evidence items shown per fact at most.
FACT_EVIDENCE = 3
#: Problems of a citation that does not hold.
NOT_RETRIEVED = "not retrieved"
NO_SUCH_LINE = "no such line in the scene"
QUOTE_NOT_IN_LINES = "quote not in the cited lines"
QUOTE_NOT_IN_SCENE = "quote not in the scene"
NO_QUOTE = "no quote"
_SCENE_REF = re.compile(r"(?:\bscenes?|场景)\s*((?:\d+\s*(?:(?:,|and|&|、|和|-|–)\s*)?)+)", re.IGNORECASE)
_PARENTHESES = re.compile(r"[(（]([^()（）]*)[)）]")
_TYPOGRAPHY = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"', "—": "-", "–": "-"})
_ELLIPSIS = re.compile(r"\.\.\.|…")


def line_label(line: SceneLine) -> str:
    """'[12]', or '[12-14]' for an element over several source lines."""
    first, last = line.lines
    return f"[{first}]" if first == last else f"[{first}-{last}]"


def line_text(line: SceneLine) -> str:
    """The line as the request shows it: 'SPEAKER: words' for dialogue, else its text."""
    return f"{line.speaker}: {line.text}" if line.speaker else line.text


def _shown_lines(lines: list[SceneLine], matched: Collection[tuple[int, int]], limit: int) -> list[int]:
    """Positions of the lines a scene block shows: all when they fit in `limit` characters, else
    the matched ones, then their neighbours (nearest first), then the others in order, while they fit."""
    sizes = [len(line_text(line)) + 10 for line in lines]
    if sum(sizes) <= limit:
        return list(range(len(lines)))
    hits = [i for i, line in enumerate(lines) if line.lines in matched]
    order = hits + [j for d in range(1, NEIGHBOURS + 1) for i in hits for j in (i - d, i + d) if 0 <= j < len(lines)]
    order += range(len(lines))
    kept: set[int] = set()
    used = 0
    for i in order:
        if i not in kept and used + sizes[i] <= limit:
            kept.add(i)
            used += sizes[i]
    return sorted(kept)


def scene_block(index: StoryIndex, scene: int, matched: Collection[tuple[int, int]] = (), *,
                limit: int = SCENE_CHARS) -> str:
    """One scene as the request shows it: 'Scene N', then its heading and lines, each with its
    source line numbers ('[...]' where lines of a long scene were left out)."""
    lines = [line for line in index.scene_lines[scene - 1] if not line.cue]
    heading = _heading_line(index, scene)
    out = [f"Scene {scene}", f"{line_label(heading)} {heading.text}"]
    previous = -1
    for i in _shown_lines(lines, matched, limit):
        if i != previous + 1:
            out.append("[...]")
        out.append(f"{line_label(lines[i])} {line_text(lines[i])}")
        previous = i
    if lines and previous != len(lines) - 1:
        out.append("[...]")
    return "\n".join(out)


def shown_evidence(fact: RankedFact) -> list[Evidence]:
    """The evidence items of a fact the request shows (the first `FACT_EVIDENCE`)."""
    return fact.evidence[:FACT_EVIDENCE]


def fact_line(fact: RankedFact) -> str:
    """A fact as the request shows it: the statement, then each evidence item's scene, lines and quote."""
    shown = []
    for ev in shown_evidence(fact):
        where = f"scene {ev.scene}" + (f", line {ev.lines[0]}" if ev.lines and ev.lines[0] == ev.lines[1]
                                       else f", lines {ev.lines[0]}-{ev.lines[1]}" if ev.lines else "")
        shown.append(f'{where}: "{" ".join(ev.quote.split())}"')
    return f"- {fact.statement} ({'; '.join(shown)})"


def shown_scenes(result: AskResult) -> dict[int, set[int] | None]:
    """What an answer request shows, by scene: None for a ranked scene (all its lines), else the
    source lines of the facts' evidence items in that scene."""
    shown: dict[int, set[int] | None] = {s.scene: None for s in result.scenes}
    for fact in result.facts:
        for ev in shown_evidence(fact):
            lines = shown.setdefault(ev.scene, set())
            if lines is not None and ev.lines:
                lines.update(range(ev.lines[0], ev.lines[1] + 1))
    return shown


def answer_messages(result: AskResult, index: StoryIndex) -> list[ChatMessage]:
    """The chat messages asking for the answer to `result.question` from its evidence."""
    prompt = load_prompt(PROMPT)
    blocks = [scene_block(index, s.scene, {line.lines for line in s.lines})
              for s in sorted(result.scenes, key=lambda s: s.scene)]
    bound = (f"(The story so far: scenes 1 to {result.as_of_scene}. Nothing after scene {result.as_of_scene} "
             "counts.)\n" if result.as_of_scene is not None else "")
    return [ChatMessage(role="system", content=prompt.render("system")),
            ChatMessage(role="user", content=prompt.render(
                "user", question=result.question, bound=bound, scenes="\n\n".join(blocks) or "(none)",
                facts="\n".join(fact_line(f) for f in result.facts) or "(none)"))]


def quote_holds(quote: str, text: str) -> bool:
    """Whether `text` holds `quote`: each part of it (parts joined by '...') as written, up to
    case, spacing and typographic quotes; a part of `FUZZY_QUOTE_FROM` characters or more may
    differ slightly (`kgbuild.evidence.quote_score` >= `QUOTE_MATCH`)."""
    within = text.translate(_TYPOGRAPHY)
    parts = [p.strip() for p in _ELLIPSIS.split(quote.translate(_TYPOGRAPHY)) if p.strip(" .,;")]
    if not parts:
        return False
    for part in parts:
        score = quote_score(part, within)
        if score < 100.0 and (len(part) < FUZZY_QUOTE_FROM or score < QUOTE_MATCH):
            return False
    return True


def _heading_line(index: StoryIndex, scene: int) -> SceneLine:
    """The scene's heading as a line of it (the index keeps headings apart from the lines)."""
    record = index.screenplay.scenes[scene - 1]
    first = record.line_span[0]
    return SceneLine(scene=scene, lines=(first, first), speaker=None, text=record.heading)


def citable_lines(index: StoryIndex, scene: int, allowed: set[int] | None) -> list[SceneLine]:
    """The lines of a scene a citation may quote: its heading and lines (no cues), or only those
    among `allowed` source lines (a scene shown by a fact's evidence alone)."""
    lines = [_heading_line(index, scene), *(line for line in index.scene_lines[scene - 1] if not line.cue)]
    if allowed is None:
        return lines
    return [line for line in lines if any(line.lines[0] <= n <= line.lines[1] for n in allowed)]


def check_citation(cited: CitedLines, shown: Mapping[int, set[int] | None], index: StoryIndex) -> Citation:
    """A model's citation checked against the evidence: its problem set when it does not hold.

    Args:
        cited: The citation as the model wrote it.
        shown: What the request showed, by scene (`shown_scenes`).
        index: The build's index (the scenes' lines).
    """
    citation = Citation(scene=cited.scene, lines=sorted(set(cited.lines)), quote=cited.quote.strip())
    if cited.scene not in shown or not 1 <= cited.scene <= index.scene_count:
        return citation.model_copy(update={"problem": NOT_RETRIEVED})
    if not citation.quote:
        return citation.model_copy(update={"problem": NO_QUOTE})
    lines = citable_lines(index, cited.scene, shown[cited.scene])
    if not citation.lines:
        found = next((line for line in lines if quote_holds(citation.quote, line_text(line))), None)
        if found is None:
            return citation.model_copy(update={"problem": QUOTE_NOT_IN_SCENE})
        return citation.model_copy(update={"lines": list(range(found.lines[0], found.lines[1] + 1))})
    cited_lines = [line for line in lines if any(line.lines[0] <= n <= line.lines[1] for n in citation.lines)]
    if not cited_lines:
        return citation.model_copy(update={"problem": NO_SUCH_LINE})
    if not quote_holds(citation.quote, " ".join(line_text(line) for line in cited_lines)):
        return citation.model_copy(update={"problem": QUOTE_NOT_IN_LINES})
    return citation


def scenes_named(text: str) -> set[int]:
    """The scene numbers a text names in parentheses, as the prompt asks: '(scene 4)', '(scenes 3, 7
    and 9)', '(scenes 3-5)', '（场景 4）' (a number elsewhere in the text may be anything)."""
    found: set[int] = set()
    for m in (ref for inside in _PARENTHESES.finditer(text) for ref in _SCENE_REF.finditer(inside.group(1))):
        numbers = [int(n) for n in re.findall(r"\d+", m.group(1))]
        spans = re.findall(r"(\d+)\s*[-–]\s*(\d+)", m.group(1))
        found |= set(numbers)
        for a, b in spans:
            if int(a) <= int(b) <= int(a) + 50:
                found |= set(range(int(a), int(b) + 1))
    return found


def checked_answer(reply: ModelAnswer, result: AskResult, index: StoryIndex, *, model: str) -> Answer:
    """The model's reply as an `Answer`: its citations checked (`check_citation`), the ones that
    fail moved to `flagged`, and every cited scene that was not shown listed."""
    shown = shown_scenes(result)
    checked = [check_citation(c, shown, index) for c in reply.citations]
    cited = {c.scene for c in reply.citations} | scenes_named(reply.answer)
    return Answer(text=reply.answer.strip(), supported=not reply.says_script_does_not_say,
                  citations=[c for c in checked if c.problem is None],
                  flagged=[c for c in checked if c.problem is not None],
                  cited_unretrieved=sorted(cited - shown.keys()), model=model, prompt=load_prompt(PROMPT).tag)


async def request_answer(client: LLMClient, result: AskResult, index: StoryIndex) -> Answer:
    """Ask `client` for the answer to one retrieved question and check it.

    Raises:
        LLMError: from the client (see `LLMClient.structured`).
    """
    reply = await client.structured(task=TASK, messages=answer_messages(result, index), response_model=ModelAnswer)
    return checked_answer(reply, result, index, model=client.model)


class AnswerRun(BaseModel):
    """Questions answered: each result with its answer (or the reason it has none), and the usage."""

    model_config = ConfigDict(extra="forbid")

    results: list[AskResult]
    usage: LLMUsage


async def _answer_all(client: LLMClient, results: list[AskResult],
                      index: StoryIndex) -> list[Answer | BaseException]:
    async with client:
        return await asyncio.gather(*(request_answer(client, r, index) for r in results), return_exceptions=True)


def answer_all(results: list[AskResult], index: StoryIndex, settings: LLMSettings, *,
               backend: ChatBackend | None = None) -> AnswerRun:
    """Answer retrieved questions with the LLM of `settings`, all through one client.

    Args:
        results: Retrieved questions (`retrieve`), not changed.
        index: The build's index they were retrieved from.
        settings: Model, endpoint, cache, concurrency, timeout, deadline, budget, batch export.
        backend: Send requests here instead of the endpoint (a scripted backend in tests).

    Returns:
        New results with `answer` set, or `answer_error` where no valid reply came (the model's
        replies never validated, or the server kept failing); a rerun asks only for those.

    Raises:
        BatchPendingError: batch-export mode wrote the requests not answered yet.
        LLMRequestError: the server refused the requests (key, model, URL).
        BudgetExceededError: the budget stopped the run (answers so far are cached).
        LLMStallError: the server never answered, or the deadline ran out.
    """
    with open_llm_client(settings, backend=backend) as client:
        outcomes = asyncio.run(_answer_all(client, results, index))
        done = sum(isinstance(o, Answer) for o in outcomes)
        raise_pending(client, settings, f"{done} of {len(results)} answers are done")
    out = []
    for result, outcome in zip(results, outcomes, strict=True):
        if isinstance(outcome, Answer):
            out.append(result.model_copy(update={"answer": outcome, "answer_error": None}))
        elif isinstance(outcome, ANSWER_ERRORS):
            out.append(result.model_copy(update={"answer": None, "answer_error": str(outcome)}))
        else:
            raise outcome
    return AnswerRun(results=out, usage=client.usage())
