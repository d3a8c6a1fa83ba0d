"""The audit's files: the screenplay it reads, the folder it writes, the verdicts it tallies.

The files are named in `kgbuild.folders.AuditFolder`.

An audit folder holds sheet.md (for a person; with relations and entities also in two parts,
sheet-relations.md and sheet-entities.md, each with the whole judge text), facts.jsonl (the
sample), requests.jsonl (for an LLM judge through a Batch API), and after a tally verdicts.jsonl
(when judged by an LLM), audit.md and audit.json.
"""

from __future__ import annotations

from pathlib import Path

from kgbuild.atomic import write_text_atomic
from kgbuild.errors import InputError
from kgbuild.evaluation.audit.requests import request_lines
from kgbuild.evaluation.audit.sheet import fact_section, facts_jsonl, read_sheet_verdicts, render_sheet
from kgbuild.evaluation.audit.tally import read_verdicts, report_markdown
from kgbuild.evaluation.audit.types import AuditFact, AuditReport, AuditSample, Verdict
from kgbuild.folders import AuditFolder, BuildFolder
from kgbuild.model import KnowledgeGraph, Screenplay
from kgbuild.readers import load_screenplay as read_any_screenplay
from kgbuild.schema import Schema


def load_screenplay(graph_path: Path, graph: KnowledgeGraph, screenplay: Path | None = None) -> Screenplay:
    """The screenplay a graph was built from: screenplay.json beside it, or the file given.

    Args:
        graph_path: The graph.json.
        graph: The graph (its source checksum is compared with the screenplay's).
        screenplay: A kgbuild screenplay.json, or a script file of any format kgbuild reads.

    Raises:
        InputError: no screenplay found, unreadable, or from another script than the graph.
    """
    candidate = screenplay or BuildFolder(graph_path.parent).screenplay
    if not candidate.is_file():
        raise InputError("no screenplay to show the cited scenes from; pass --screenplay with the "
                         "screenplay.json of the build (or the script file)", path=str(candidate))
    result = read_any_screenplay(candidate)
    built_from, read = graph.movie.source_sha256, result.source.sha256
    if built_from and read and built_from != read:
        raise InputError(f"this screenplay is not the one the graph was built from (sha256 {read[:12]}, "
                         f"the graph's {built_from[:12]}); pass the right one with --screenplay",
                         path=str(candidate))
    return result


def judge_sections(sample: AuditSample, screenplay: Screenplay, schema: Schema) -> dict[str, str]:
    """The judge's user message per fact id; facts citing no evidence need no judge and have none."""
    return {f.id: fact_section(f, screenplay, schema, verdict_lines=False)
            for f in sample.facts if f.evidence}


def write_audit(outdir: Path, sample: AuditSample, screenplay: Screenplay, schema: Schema, *,
                model: str) -> list[Path]:
    """Write sheet.md, facts.jsonl and requests.jsonl into `outdir` (created if missing); when the
    sample holds relations and entities, also sheet-relations.md and sheet-entities.md: the same
    sheet in two parts, each with the whole judge text, for two judges (their verdicts files are
    tallied together).

    Returns:
        The files written.
    """
    outdir.mkdir(parents=True, exist_ok=True)
    sections = judge_sections(sample, screenplay, schema)
    files = [(AuditFolder.SHEET, render_sheet(sample, screenplay, schema)), (AuditFolder.FACTS, facts_jsonl(sample)),
             (AuditFolder.REQUESTS, "".join(line + "\n" for line in request_lines(sections, model=model)))]
    kinds = {f.kind for f in sample.facts}
    if len(kinds) > 1:
        files += [(name, render_sheet(sample, screenplay, schema, kinds=(kind,)))
                  for kind, name in AuditFolder.PART_SHEETS.items()]
    return [write_text_atomic(outdir / name, text) for name, text in files]


def read_verdicts_file(path: Path) -> list[Verdict]:
    """Verdicts from a verdicts JSONL file, or from a marked sheet (a .md file).

    Raises:
        InputError: unreadable file, or a line with an unknown verdict or a malformed object.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"cannot read the verdicts: {e}", path=str(path)) from e
    if path.suffix.lower() in {".md", ".markdown"}:
        return read_sheet_verdicts(text, path=str(path))
    return read_verdicts(text, path=str(path))


def check_facts_file(path: Path, sample: AuditSample) -> None:
    """Refuse to tally when facts.jsonl in the audit folder holds another sample than `sample`.

    Raises:
        InputError: the file's fact ids or the facts they name differ from the sample's.
    """
    if not path.is_file():
        return
    try:
        written = [AuditFact.model_validate_json(line)
                   for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    except (OSError, ValueError) as e:
        raise InputError(f"not a facts.jsonl written by 'kgbuild audit' ({e.__class__.__name__})",
                         path=str(path)) from e
    if [(f.id, f.ref) for f in written] != [(f.id, f.ref) for f in sample.facts]:
        relations = sum(f.kind == "relation" for f in written)
        raise InputError(
            f"holds another sample ({relations} relations, {len(written) - relations} entities) than "
            f"this graph with seed {sample.seed}, --relations {sample.relations_requested} and "
            f"--entities {sample.entities_requested}: pass the options the sheet was made with",
            path=str(path))


def write_verdicts(path: Path, verdicts: list[Verdict]) -> Path:
    """Write verdicts as JSON Lines (the verdicts file format)."""
    return write_text_atomic(path, "".join(v.model_dump_json() + "\n" for v in verdicts))


def write_report(outdir: Path, report: AuditReport) -> list[Path]:
    """Write audit.md and audit.json into `outdir`."""
    outdir.mkdir(parents=True, exist_ok=True)
    return [write_text_atomic(outdir / AuditFolder.REPORT_MD, report_markdown(report)),
            write_text_atomic(outdir / AuditFolder.REPORT_JSON, report.model_dump_json(indent=1))]
