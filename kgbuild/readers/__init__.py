"""Screenplay readers: every supported format in, one `Screenplay` model out.

Use `read_screenplay(path)`; it detects the format from the content, decodes the text,
dispatches to the format's reader and checks that the result looks like a screenplay.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import re
from dataclasses import replace
from pathlib import Path

from kgbuild.errors import InputError, NotAScreenplayError
from kgbuild.model import ElementKind, ParseWarning, Screenplay, Source, SourceFormat
from kgbuild.readers.assemble import ReadResult
from kgbuild.readers.broken_cues import mend_broken_cues
from kgbuild.readers.decode import decode_text
from kgbuild.readers.detect import detect_text_format, sniff_binary
from kgbuild.readers.slugs import demote_slug_cues

#: Files larger than this are refused: a feature screenplay is well under 1 MB as text and a
#: few MB as PDF. Override with `max_bytes` (CLI: --max-bytes).
DEFAULT_MAX_BYTES = 32 * 1024 * 1024

# format -> (module, function, takes bytes?)
_READERS: dict[SourceFormat, tuple[str, str, bool]] = {
    SourceFormat.FOUNTAIN: ("kgbuild.readers.fountain", "read_fountain", False),
    SourceFormat.FDX: ("kgbuild.readers.fdx", "read_fdx", True),
    SourceFormat.PDF: ("kgbuild.readers.pdf", "read_pdf", True),
    SourceFormat.PLAIN: ("kgbuild.readers.plaintext", "read_plain", False),
    SourceFormat.STAGE_JSON: ("kgbuild.readers.stage_json", "read_stage_json", False),
}
_CJK = re.compile(r"[\u3400-\u9fff]")
_LETTER = re.compile(r"[A-Za-z\u3400-\u9fff]")


def detect_language(text: str) -> str:
    """'zh' when CJK characters make up more than a fifth of the letters, else 'en'."""
    sample = text[:100_000]
    letters = len(_LETTER.findall(sample))
    return "zh" if letters and len(_CJK.findall(sample)) > 0.2 * letters else "en"


def _check_looks_like_screenplay(result: ReadResult, path: str) -> None:
    headings = sum(1 for s in result.scenes if s.heading)
    cues = sum(
        1 for s in result.scenes for e in s.elements if e.kind is ElementKind.CHARACTER
    )
    words = sum(len(e.text.split()) for s in result.scenes for e in s.elements)
    if headings == 0 and cues < 3:
        raise NotAScreenplayError(
            "no scene headings (INT./EXT. ...) and no character cues were found: this does not "
            "look like a screenplay. If it is one, check that headings start with INT. or EXT.",
            path=path,
        )
    if words > 5000 and (headings + cues) * 1000 < words:
        raise NotAScreenplayError(
            f"only {headings} scene headings and {cues} cues in {words} words: this reads like "
            "prose (a novel or an essay), not a screenplay",
            path=path,
        )


def movie_id(path: Path, fmt: SourceFormat, title: str | None) -> str:
    """The one rule for a movie's id: a STAGE script.json is named by its folder, anything else
    by its title page's title, else by its file stem (`kgbuild build --movie` overrides it).

    Example:
        >>> movie_id(Path("stage/en0499/script.json"), SourceFormat.STAGE_JSON, None)
        'en0499'
    """
    if fmt is SourceFormat.STAGE_JSON and path.name == "script.json" and path.parent.name:
        return path.resolve().parent.name
    return title or path.stem


def _release_title(path: Path, fmt: SourceFormat, warnings: list[ParseWarning]) -> str | None:
    """The title a STAGE release's `*_movie_info.csv` gives the folder of a `script.json`, if any.

    A csv that cannot be read costs the title, not the build: it adds a warning.
    """
    if fmt is not SourceFormat.STAGE_JSON or path.name != "script.json":
        return None
    from kgbuild.readers.stage_json import stage_title

    try:
        return stage_title(path.parent) or None
    except InputError as e:
        warnings.append(ParseWarning(message=f"{e}; the movie is titled by its id"))
        return None


def read_screenplay(
    path: str | os.PathLike[str],
    *,
    format: SourceFormat | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> Screenplay:
    """Read a screenplay file of any supported format.

    Args:
        path: The file.
        format: Force a format instead of detecting it from the content.
        max_bytes: Refuse larger files (bounded memory).

    Returns:
        The parsed screenplay.

    Raises:
        InputError: missing, empty, binary, too large, undecodable or malformed input;
            NotAScreenplayError and OcrNeededError are its narrower kinds.

    Example:
        >>> sp = read_screenplay("examples/lizard-people.fountain")
        >>> sp.scenes[0].heading
    """
    file = Path(path)
    name = str(path)
    if not file.is_file():
        raise InputError("no such file", path=name)
    size = file.stat().st_size
    if size == 0:
        raise InputError("the file is empty", path=name)
    if size > max_bytes:
        raise InputError(
            f"the file is {size / 2**20:.1f} MiB, above the {max_bytes / 2**20:.0f} MiB limit; "
            "a screenplay is far smaller, so check the file, or raise the limit with --max-bytes",
            path=name,
        )
    data = file.read_bytes()
    fmt = format or sniff_binary(data[:8192], file.suffix)
    encoding = None
    text = None
    if fmt not in (SourceFormat.PDF, SourceFormat.FDX):
        text, encoding = decode_text(data, name)
        if not text.strip():
            raise InputError("the file holds only white space", path=name)
        fmt = fmt or detect_text_format(text, file.suffix)
    module_name, function_name, takes_bytes = _READERS[fmt]
    reader = getattr(importlib.import_module(module_name), function_name)
    result: ReadResult = reader(data if takes_bytes else text, path=name)
    # A slug line or an editing note taken for a cue is no speaker, whatever the format.
    result = replace(result, scenes=demote_slug_cues(result.scenes))
    # A cue a PDF export broke ('TOB Y', 'ILEY' for RILEY) is the name the script uses elsewhere.
    result = replace(result, scenes=mend_broken_cues(result.scenes))
    _check_looks_like_screenplay(result, name)
    body = "\n".join(e.text for s in result.scenes for e in s.elements)
    given = next(
        (" ".join(v.split()) for k, v in result.title_page.items() if k.strip().lower() == "title" and v.strip()),
        None,
    )
    movie = movie_id(file, fmt, given)
    warnings = list(result.warnings)
    return Screenplay(
        id=movie,
        title=given or _release_title(file, fmt, warnings) or movie,
        language=detect_language(body),
        source=Source(
            path=name,
            format=fmt,
            sha256=hashlib.sha256(data).hexdigest(),
            encoding=encoding,
            size_bytes=size,
        ),
        title_page=result.title_page,
        scenes=result.scenes,
        warnings=warnings,
    )


def load_screenplay(path: str | os.PathLike[str]) -> Screenplay:
    """A screenplay.json written by kgbuild (`kgbuild parse -o`, a build folder), or any script
    file `read_screenplay` reads.

    Raises:
        InputError: a kgbuild screenplay.json that does not validate, or an unreadable script.
    """
    file = Path(path)
    if file.suffix.lower() == ".json" and file.is_file():
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError):
            data = None
        if isinstance(data, dict) and isinstance(data.get("source"), dict) and "scenes" in data:
            try:
                return Screenplay.model_validate(data)
            except ValueError as e:
                raise InputError(f"not a valid kgbuild screenplay.json ({e.__class__.__name__}); rerun "
                                 "'kgbuild parse -o' or read the script file itself", path=str(path)) from e
    return read_screenplay(file)
