"""STAGE-QA answers: `ask`'s answer to every question, judged right or wrong against the gold answer.

Each question (pointer to its scene removed, `kgbuild.evaluation.qa_eval.strip_pointer`) is
retrieved as `kgbuild ask` retrieves it (k scenes, the facts) and answered by the LLM from that
evidence only (`kgbuild.ask.answer`). Then a judge request (the fixed text `qa_judge.md` as system
message; the question, the gold answer, the gold evidence and the answer as user message) says
whether the answer is right. Both go through the project's LLM client, in two rounds (answers,
then judges), so a batch export writes the answers first and, once they are imported, the judge's
requests.

A question ends **right**, **wrong**, or **unresolved** (no valid answer or verdict came back; a
rerun asks again). An answer that cites a scene the request did not show is wrong, whatever the
judge would say (it is not asked). Each wrong answer is a **retrieval miss** (no gold scene among
the k retrieved scenes) or a **reading miss** (a gold scene was there). Accuracy is right /
(right + wrong), per language and per 'language / qa_type'.

Example:
    >>> prepared = prepare_movie(index, read_questions("question_pairs.csv"), titles=titles, movie="en0499")
    >>> rows = answer_and_judge(prepared, LLMSettings(model="gpt-4o-mini"), judge_model="gpt-4o")  # doctest: +SKIP
    >>> answer_tables(rows)["English"].accuracy  # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.ask.answer import request_answer
from kgbuild.ask.retrieve import retrieve
from kgbuild.ask.story_index import StoryIndex
from kgbuild.ask.types import Answer, AskResult
from kgbuild.embeddings import Embedder
from kgbuild.evaluation.qa_eval import QAItem, gold_scenes, scene_contents, strip_pointer
from kgbuild.llm.client import LLMClient
from kgbuild.llm.factory import open_llm_client, raise_pending
from kgbuild.llm.settings import LLMSettings
from kgbuild.llm.types import ANSWER_ERRORS, ChatBackend, ChatMessage

#: The judge's instructions, a file of this package.
JUDGE_FILE = "qa_judge.md"
#: Accounting label of the judge's requests.
JUDGE_TASK = "qa-judge"

Outcome = Literal["right", "wrong", "unresolved"]
Miss = Literal["retrieval", "reading", "no gold scene"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class JudgeReply(_Model):
    """The judge's reply."""

    verdict: Literal["right", "wrong"]
    reason: str = Field(description="One short sentence.")


class AnsweredQuestion(_Model):
    """One STAGE-QA question: what was retrieved, the answer, the verdict, and for a wrong answer
    where it went wrong."""

    movie: str
    language: str
    id: str
    qa_type: str
    question: str = Field(description="The question as asked (pointer removed).")
    gold_answer: str
    gold: list[int] = Field(description="Gold scenes (1-based), copies of a gold scene's content included.")
    retrieved: list[int] = Field(description="The scenes retrieved, best first.")
    answer: Answer | None = None
    answer_error: str | None = None
    verdict: Literal["right", "wrong"] | None = Field(default=None, description="The judge's, or 'wrong' for an "
                                                      "answer citing a scene that was not retrieved.")
    reason: str = Field(default="", description="The judge's reason, or why the question has no verdict.")
    outcome: Outcome = "unresolved"
    miss: Miss | None = Field(default=None, description="For a wrong answer: was a gold scene retrieved "
                              "('reading') or not ('retrieval')?")


class AnswerTally(_Model):
    """Judged answers over a set of questions."""

    questions: int
    right: int
    wrong: int
    unresolved: int = Field(description="No valid answer or verdict (a rerun asks again).")
    accuracy: float | None = Field(description="right / (right + wrong); None when nothing was judged.")
    retrieval_misses: int = Field(description="Wrong answers with no gold scene among the retrieved ones.")
    reading_misses: int = Field(description="Wrong answers with a gold scene among the retrieved ones.")
    cited_unretrieved: int = Field(description="Answers counted wrong for citing a scene not retrieved.")


@dataclass(frozen=True)
class PreparedQuestion:
    """A question retrieved and ready to be answered: its build's index and its evidence."""

    item: QAItem
    movie: str
    language: str
    gold: list[int]
    index: StoryIndex
    retrieved: AskResult


@cache
def judge_text() -> str:
    """The judge's instructions: one fixed text in the package (`qa_judge.md`)."""
    return resources.files("kgbuild.evaluation").joinpath(JUDGE_FILE).read_text(encoding="utf-8")


def judge_messages(item: QAItem, question: str, answer: str) -> list[ChatMessage]:
    """The chat messages asking the judge whether `answer` answers `question` as the gold answer does."""
    user = (f"Question: {question}\nReference answer: {item.answer}\n"
            f"Reference evidence: {' '.join(item.evidence.split()) or '(none)'}\nAnswer to judge: {answer}")
    return [ChatMessage(role="system", content=judge_text()), ChatMessage(role="user", content=user)]


def prepare_movie(index: StoryIndex, items: Iterable[QAItem], *, titles: list[str], movie: str, k: int = 5,
                  facts: int = 10, embedder: Embedder | None = None) -> list[PreparedQuestion]:
    """Retrieve the evidence of every question of one build, as `kgbuild ask` does.

    Raises:
        InputError: the titles do not match the build's scenes one for one.
    """
    contents = scene_contents(index, titles)
    language = "Chinese" if index.chinese else "English"
    return [PreparedQuestion(item=item, movie=movie, language=language, gold=gold_scenes(item, titles, contents),
                             index=index,
                             retrieved=retrieve(strip_pointer(item.question), index, k=k, facts=facts,
                                                embedder=embedder))
            for item in items]


async def _answers(client: LLMClient, prepared: list[PreparedQuestion]) -> list[Answer | BaseException]:
    async with client:
        return await asyncio.gather(*(request_answer(client, p.retrieved, p.index) for p in prepared),
                                    return_exceptions=True)


async def _verdicts(client: LLMClient, asks: list[list[ChatMessage]]) -> list[JudgeReply | BaseException]:
    async with client:
        return await asyncio.gather(*(client.structured(task=JUDGE_TASK, messages=m, response_model=JudgeReply)
                                      for m in asks), return_exceptions=True)


def _outcome(row: AnsweredQuestion) -> AnsweredQuestion:
    """The row with its outcome and, when wrong, its miss."""
    if row.verdict is None:
        return row.model_copy(update={"outcome": "unresolved", "miss": None})
    miss: Miss | None = None
    if row.verdict == "wrong":
        miss = "no gold scene" if not row.gold else "reading" if set(row.gold) & set(row.retrieved) else "retrieval"
    return row.model_copy(update={"outcome": row.verdict, "miss": miss})


def _raise_unless_answer_error(outcome: BaseException) -> str:
    if isinstance(outcome, ANSWER_ERRORS):
        return str(outcome)
    raise outcome


def answer_and_judge(prepared: list[PreparedQuestion], settings: LLMSettings, *, judge_model: str | None = None,
                     backend: ChatBackend | None = None) -> list[AnsweredQuestion]:
    """Answer every prepared question with the LLM, then have the judge tell right from wrong.

    Args:
        prepared: The questions with their evidence (`prepare_movie`), of one movie or many.
        settings: The answering model and the client's settings (cache, budget, batch export...).
        judge_model: The judge's model (the answering model when None); same client settings.
        backend: Send requests here instead of the endpoint (a scripted backend in tests).

    Returns:
        One row per question, in order.

    Raises:
        BatchPendingError: batch-export mode wrote the answer requests not answered yet or, once
            every answer is in the cache, the judge's.
        LLMRequestError, BudgetExceededError, LLMStallError: from the client; they stop the run
            (answers so far are cached).
    """
    with open_llm_client(settings, backend=backend) as client:
        answers = asyncio.run(_answers(client, prepared))
        done = sum(isinstance(a, Answer) for a in answers)
        raise_pending(client, settings, f"{done} of {len(prepared)} answers are done; the judge's requests "
                      "follow once every answer is in")
    rows = []
    for p, outcome in zip(prepared, answers, strict=True):
        row = AnsweredQuestion(movie=p.movie, language=p.language, id=p.item.id, qa_type=p.item.qa_type,
                               question=p.retrieved.question, gold_answer=p.item.answer, gold=p.gold,
                               retrieved=[s.scene for s in p.retrieved.scenes])
        if isinstance(outcome, Answer):
            row = row.model_copy(update={"answer": outcome})
            if outcome.cited_unretrieved:
                row = row.model_copy(update={"verdict": "wrong", "reason": "cites scenes that were not retrieved: "
                                             + ", ".join(map(str, outcome.cited_unretrieved))})
        else:
            error = _raise_unless_answer_error(outcome)
            row = row.model_copy(update={"answer_error": error, "reason": f"no answer: {error}"})
        rows.append(row)
    to_judge = [(i, row.answer) for i, row in enumerate(rows) if row.answer is not None and row.verdict is None]
    judge = settings.model_copy(update={"model": judge_model or settings.model})
    with open_llm_client(judge, backend=backend) as client:
        asks = [judge_messages(prepared[i].item, rows[i].question, answer.text) for i, answer in to_judge]
        verdicts = asyncio.run(_verdicts(client, asks))
        done = sum(isinstance(v, JudgeReply) for v in verdicts)
        raise_pending(client, judge, f"every answer is in; {done} of {len(to_judge)} verdicts are done")
    for (i, _), verdict in zip(to_judge, verdicts, strict=True):
        if isinstance(verdict, JudgeReply):
            rows[i] = rows[i].model_copy(update={"verdict": verdict.verdict, "reason": verdict.reason})
        else:
            rows[i] = rows[i].model_copy(update={"reason": f"no verdict: {_raise_unless_answer_error(verdict)}"})
    return [_outcome(row) for row in rows]


def answer_tally(rows: list[AnsweredQuestion]) -> AnswerTally:
    """Right, wrong, unresolved, accuracy and the misses of a set of questions."""
    right = sum(r.outcome == "right" for r in rows)
    wrong = sum(r.outcome == "wrong" for r in rows)
    return AnswerTally(questions=len(rows), right=right, wrong=wrong, unresolved=len(rows) - right - wrong,
                       accuracy=round(right / (right + wrong), 4) if right + wrong else None,
                       retrieval_misses=sum(r.miss == "retrieval" for r in rows),
                       reading_misses=sum(r.miss == "reading" for r in rows),
                       cited_unretrieved=sum(bool(r.answer and r.answer.cited_unretrieved) for r in rows))


def answer_tables(rows: list[AnsweredQuestion]) -> dict[str, AnswerTally]:
    """{group: tally} per language ('English', 'Chinese') and per 'language / qa_type'."""
    groups: dict[str, list[AnsweredQuestion]] = defaultdict(list)
    for row in rows:
        groups[row.language].append(row)
        groups[f"{row.language} / {row.qa_type}"].append(row)
    return {name: answer_tally(groups[name]) for name in sorted(groups, key=lambda g: (" / " in g, g))}
