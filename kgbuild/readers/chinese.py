"""Chinese screenplays: lines to elements (headings, cues, speech, △ action, transitions).

Chinese scripts come in two layouts, often mixed in one file:

- colon dialogue: `张父：（喝酒）……` is the cue, a colon, then the speech on the same line;
- a cue on its own line, often padded (`夫 人`), with the speech on the following lines.

Text extracted from PDFs is hard-wrapped mid-sentence (even mid-name: `叶\\n问`), so physical
lines are first joined into paragraphs; cues that follow a sentence end inside a paragraph
(`叶问在祠堂里练棍。叶问旁白：我是……`) are then split out.

Whether the text before a colon names a speaker is decided from the whole document: speaker
names are short and recur. A recurring name followed by a description (`程勇一脸颓势：谢了。`)
is that speaker; a recurring name followed by a kinship or role word (`程勇爸爸`) is a
different person; a recurring name after a modifier and 的 (`旁边的魏红`, 'Wei Hong, beside
her') is that speaker.

A cue that says how a line is said is no one's name (`manner_note`, read in jieba's words and
their parts of speech): one that opens with a degree adverb (`很激动`, `非常生气`, a closed
class; not `比较瘦的同事`, 'the thinner colleague', a person), ends in the adverbial 地
(`严肃地`), or is two or more adjectives, adverbs or state words, with or without a closing 的
(`尴尬的`, `满脸通红`). Its speaker is the last speaker named before it in the paragraph
(`老三放下自行车，很生气：` is 老三 speaking), else the speaker of the speech it follows; with
neither, the text is not a cue.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

import jieba
import jieba.posseg

from kgbuild.model import Element, ElementKind, ParseWarning
from kgbuild.readers.cues import normalize_extension, normalize_name
from kgbuild.readers.headings import (
    chinese_heading_number,
    is_english_heading,
    looks_like_chinese_heading,
    strip_scene_numbers,
)

logger = logging.getLogger(__name__)
jieba.setLogLevel(logging.WARNING)

_CJK = r"\u3400-\u9fff\uf900-\ufaff"
_HAS_CJK = re.compile(f"[{_CJK}]")
_WIDE = re.compile(f"[{_CJK}\u3000-\u303f\uff00-\uffef“”‘’…—]")
_NAME = re.compile(rf"^[{_CJK}A-Za-z0-9·•．.'’\- ]+$")
_MAX_NAME = 8
# OCR debris and articles before a name: '49军统的人', '-人', '一个老人', '一年轻人'.
_NAME_NOISE = re.compile(r"^(?:[0-9\-—*•·]+|一(?:个|位|名)|一(?=[\u3400-\u9fff]{2,}[人子者的]$))")
_MAX_MODIFIER = 20
_COLON = re.compile(r"[：:]")
_QUOTES = re.compile(r"[“”\"‘’「」『』《》]")
_ACTION_MARK = re.compile(r"^[△▲▽◎●■□◆]\s*")
_PAREN_ONLY = re.compile(r"^[（(][^（）()]*[）)]$")
_LEADING_PAREN = re.compile(r"^\s*[（(]([^（）()]*)[）)]\s*")
_CUE_PAREN = re.compile(r"[（(]([^（）()]*)[）)]")
_PAGE_NUMBER = re.compile(
    r"^(?:[-—–]\s*)?\d{1,4}(?:\s*[-—–])?$|^第\s*\d{1,4}\s*页$|^\d{1,4}\s*/\s*\d{1,4}$"
)
_BARE_NUMBER_HEADING = re.compile(r"^[0-9０-９]{1,4}[A-Za-z]?\s*、$")
_TRANSITION_WORDS = (
    r"淡入|淡出|切换|切至|切到|切入|切出|切回|叠化|化入|化出|渐显|渐隐|黑场|转场|"
    r"CUT TO|FADE IN|FADE OUT|FADE TO BLACK|DISSOLVE TO|SMASH CUT TO|MATCH CUT TO"
)
_TRANSITION_LINE = re.compile(rf"^(?:{_TRANSITION_WORDS})[\s：:。.！!…]*$", re.IGNORECASE)
_TRANSITION_LEAD = re.compile(rf"^(?:{_TRANSITION_WORDS})[：:。.！!]+\s*(?=\S)", re.IGNORECASE)
# Text before a colon that is never a speaker: captions, shot notes, script metadata.
_NOT_SPEAKERS = (
    "字幕", "画面", "镜头", "特写", "标题", "片名", "片头", "片尾", "时间", "地点", "人物",
    "场景", "备注", "注释", "说明", "插入", "内容", "黑屏", "闪回", "音乐", "音效", "广告",
)
_NOT_SPEAKER_EXACT = {"注", "人", "电话", "广播", "报道", "医院"}
# Voice markers after a name or in the cue's parentheses: 叶问旁白, 张父（画外音）, 吕受益OS.
_VOICE = {
    "内心独白": "V.O.", "独白": "V.O.", "旁白": "V.O.", "画外音": "V.O.", "心声": "V.O.",
    "画外": "O.S.",
}
_VOICE_SUFFIX = re.compile(
    r"(?P<mark>内心独白|独白|旁白|画外音|画外|心声|O\.?S\.?|V\.?O\.?)$", re.IGNORECASE
)
# A name followed by one of these is another person (程勇爸爸, 吕受益妻子, 宫家人, 刘波的舅舅).
_PERSON_WORDS = (
    "的", "家", "们", "爸", "妈", "父", "母", "妻", "夫", "老婆", "老公", "前妻", "前夫", "儿",
    "女儿", "女友", "男友", "哥", "姐", "弟", "妹", "爷", "奶", "外公", "外婆", "孩子", "徒弟",
    "弟子", "师父", "师傅", "师兄", "师妹", "朋友", "同事", "助理", "秘书", "手下", "小弟",
    "老板", "司机", "律师", "太太", "先生", "小姐", "大哥", "叔", "婶", "舅", "姨", "侄", "孙",
    "员", "长", "人", "者", "子", "官", "工", "友",
)
# Words joining two names: a cue for several people is not one speaker.
_CONJUNCTIONS = ("和", "与", "跟", "及", "、", "同")
# Verbs and particles that mark narration, not a name, in a once-seen line-start candidate.
_NARRATION = re.compile(
    r"[着了过地说道喊问答叫唱哭笑将把被从向往让起来去到走跑坐拿递想听望看喝吃站转]|继续|突然|非常|有些|十分|似乎|(?<=.)对"
)
_PRONOUN = re.compile(r"^[他她它我你您这那此其该]")
# '许东对男子', '七哥冲着刘波': the speaker, then whom they address.
_ADDRESSEE = re.compile(r"(?:对|冲|朝|向)着?[^对冲朝向]{1,6}$")
# How a line is said, written after the name: '医药代表冷静', '护士走进来', '局长严肃地'.
_MANNER = re.compile(
    r"(?:冷静|冷漠|冷冷|不耐烦|严肃|惊讶|大笑|低声|小声|大声|激动|生气|微笑|愤怒|无奈|坚定|疑惑|"
    r"狐疑|肯定|嫌弃|胆怯|暴怒|发怒|哽咽|不屑|紧张|犹豫|着急|焦急|平静|轻声|得意|苦笑|冷笑|"
    r"走进来|走过来|走上前|进来|过来|站起来|站起身|转过身|回头)地?$"
)
_SPEECH_VERB = re.compile(r"(?:说|道|问|喊|答|骂|嚷|叫|喊道|说道|问道|笑道|回答)$")
_SENTENCE_BOUNDARY = re.compile(r"[。！？!?…；;）)\s]")
_CANDIDATE_BOUNDARY = re.compile(r"[。！？!?…；;）)\s：:]")
_TERMINAL = tuple("。！？!?…”」』）)")
_CONTINUING = tuple("，,、；;：:—～（(“「")


# Degree adverbs ('very', 'rather', 'a little'): a closed class; no name opens with one.
_DEGREE = ("很", "非常", "十分", "特别", "有点", "有些", "太", "挺", "更加", "更", "最", "极其", "极为",
           "格外", "分外", "越发", "异常", "相当", "比较", "稍微", "略微", "颇为", "好不")
# jieba's flags of adjectives, adverbs and state words ('尴尬' a, '默默' d, '通红' z).
_MANNER_FLAGS = frozenset({"a", "ad", "an", "ag", "d", "dg", "z", "zg"})


@lru_cache(maxsize=4096)
def _pos(text: str) -> tuple[tuple[str, str], ...]:
    return tuple((p.word, p.flag) for p in jieba.posseg.cut(text))


def manner_note(name: str) -> bool:
    """Whether a cue-shaped text says how a line is said rather than who says it.

    Example:
        >>> manner_note("很激动"), manner_note("尴尬的"), manner_note("严肃地"), manner_note("老三")
        (True, True, True, False)
    """
    compact = name.replace(" ", "")
    if len(compact) < 2 or not _HAS_CJK.search(compact):
        return False
    if compact.endswith("地") or compact.startswith(_DEGREE) and len(compact) > 2 and "的" not in compact[:-1]:
        return True  # '比较瘦的同事' is a person: what comes after 的 is who
    if len(compact) == 2 and compact[0] == compact[1]:
        return False  # '秀秀', '乐乐': a pet name, whatever jieba flags it
    words = list(_pos(compact[:-1] if compact.endswith("的") else compact))
    if compact.endswith("的"):
        return bool(words) and all(flag in _MANNER_FLAGS for _, flag in words)
    return len(words) >= 2 and all(flag in _MANNER_FLAGS for _, flag in words)


# jieba's flags of what may stand before 的 to say where or how someone is ('旁边' f, '门口' s).
_MODIFIER_FLAGS = _MANNER_FLAGS | {"f", "s", "b", "m", "q", "r", "uj"}


def _modifier(text: str) -> bool:
    """Whether `text` (before 的 and a name) only says where or how someone is: '旁边', not
    '病人对病房里' ('a patient, to ... in the ward')."""
    return all(flag in _MODIFIER_FLAGS for _, flag in _pos(text))


def _clean(line: str) -> str:
    text = line.replace("\f", "").replace("\u3000", " ").replace("\xa0", " ").rstrip()
    stripped = text.lstrip()
    if stripped.startswith("、"):
        # An OCR remnant of a scene number ("1、" split from its text).
        text = text[: len(text) - len(stripped)] + stripped.lstrip("、")
    return text


def _width(text: str) -> int:
    """Display width: CJK characters and full-width punctuation count two columns."""
    return sum(2 if _WIDE.match(ch) else 1 for ch in text)


def _wrap_width(lines: list[str]) -> int | None:
    """The width a hard-wrapped text was broken at, or None when its lines are paragraphs.

    In wrapped text no line is much wider than the wrap width, and the lines that end
    mid-sentence are (nearly) that wide; in unwrapped text they are of any width.
    """
    widths = sorted(_width(t) for t in lines)
    if len(widths) < 2:
        return None
    top = widths[int(0.9 * (len(widths) - 1))]
    open_ended = [_width(t) for t in lines if not t.endswith(_TERMINAL)]
    near = sum(1 for w in open_ended if w >= 0.85 * top)
    over = sum(1 for w in widths if w > 1.1 * top)
    if top >= 30 and open_ended and near >= 0.6 * len(open_ended) and over <= 0.02 * len(widths):
        return top
    return None


def _join(left: str, right: str) -> str:
    """Join wrapped pieces: no space between CJK, one between two Latin words."""
    if re.search(r"[A-Za-z0-9]$", left) and re.match(r"[A-Za-z0-9]", right):
        return f"{left} {right}"
    return left + right


def _is_heading(text: str) -> bool:
    return (
        looks_like_chinese_heading(text)
        or bool(_BARE_NUMBER_HEADING.match(text))
        or (not _HAS_CJK.search(text) and is_english_heading(text))
    )


def _strip_voice(name: str) -> tuple[str, list[str]]:
    """Split voice markers off a cue name: '叶问旁白' -> ('叶问', ['V.O.'])."""
    extensions: list[str] = []
    m = _VOICE_SUFFIX.search(name)
    if m and m.start() > 0:
        mark = m.group("mark")
        extensions.append(_VOICE.get(mark) or normalize_extension(mark))
        name = name[: m.start()].strip()
    return name, extensions


def _cue_parts(raw: str) -> tuple[str, list[str], list[str]]:
    """A cue as written -> (bare name, extensions, other parentheticals)."""
    extensions: list[str] = []
    notes: list[str] = []
    for inner in _CUE_PAREN.findall(raw):
        inner = inner.strip()
        if inner in _VOICE:
            extensions.append(_VOICE[inner])
        elif inner.upper().replace(".", "") in {"OS", "VO", "OC", "CONTD", "CONT'D"}:
            extensions.append(normalize_extension(inner))
        elif inner and not inner.endswith("饰"):  # '（小沈阳饰）' is an actor credit
            notes.append(f"（{inner}）")
    name = _QUOTES.sub("", _CUE_PAREN.sub("", raw))
    name = _ACTION_MARK.sub("", name).strip()
    name = _NAME_NOISE.sub("", name)
    name, voice = _strip_voice(name)
    return name, extensions + voice, notes


def _name_like(name: str) -> bool:
    compact = name.replace(" ", "")
    if not compact or len(compact) > _MAX_NAME or not _NAME.match(name) or compact.isdigit():
        return False
    if compact in _NOT_SPEAKER_EXACT or any(word in compact for word in _NOT_SPEAKERS):
        return False
    return not manner_note(compact)


@dataclass(frozen=True)
class _Inventory:
    """Who speaks in this document, learned from every colon and every own-line cue."""

    counts: Counter[str]
    known: frozenset[str]
    seen: frozenset[str]

    @classmethod
    def learn(cls, lines: list[str]) -> _Inventory:
        """Count the name-like texts before colons and on short lines of their own.

        `known` names recur (two or more times); `seen` adds names that stand alone before a
        colon at the start of a line once, so that a longer cue can be recognised as one of
        them plus a description.
        """
        counts: Counter[str] = Counter()
        seen: set[str] = set()
        for line, nxt in zip(lines, [*lines[1:], ""], strict=True):
            text = _ACTION_MARK.sub("", line.strip())
            if text and nxt.strip() and not _COLON.search(text[:-1]):
                name, _, _ = _cue_parts(text.rstrip("：:"))
                if _name_like(name) and not _is_heading(text) and not _NARRATION.search(name):
                    counts[normalize_name(name)] += 1
                continue
            for k, candidate in enumerate(_colon_candidates(text)):
                name, _, _ = _cue_parts(candidate)
                if _name_like(name):
                    counts[normalize_name(name)] += 1
                    if k == 0 and text.startswith(candidate) and not _NARRATION.search(name):
                        seen.add(normalize_name(name))
        known = frozenset(n for n, c in counts.items() if c >= 2)
        return cls(counts=counts, known=known, seen=frozenset(seen) | known)

    def canonical(self, name: str) -> str | None:
        """The speaker a cue name denotes, dropping a descriptive tail ('老三很激动') or a
        modifier before 的 ('旁边的魏红'); None if none."""
        name = normalize_name(name)
        if "的" in name[1:-1] and (named := name[name.rindex("的") + 1:]) in self.known and len(named) >= 2 \
                and _modifier(name[: name.rindex("的")]):
            return named
        for size in range(min(len(name) - 1, _MAX_NAME), 1, -1):
            head, tail = name[:size], name[size:]
            if head not in self.seen or len(tail) > _MAX_MODIFIER:
                continue
            if tail.startswith(_PERSON_WORDS):
                break  # another person, named after a known one
            if tail.startswith(_CONJUNCTIONS) or re.search(r"[，,。！？!?：:]", tail):
                return None
            return self.canonical(head) or head
        return name if name in self.known else None

    def last_named(self, text: str) -> str | None:
        """The known speaker named last in `text` (the longest where names end together)."""
        best: tuple[int, int, str] | None = None
        for name in self.known:
            at = text.rfind(name)
            if at >= 0 and (best is None or (at + len(name), len(name)) > best[:2]):
                best = (at + len(name), len(name), name)
        return best[2] if best else None

    def resolve(self, raw: str, *, line_start: bool) -> str | None:
        """The speaker named by the text before a colon, or None when it is not a cue.

        A known speaker, or a known speaker plus a description, is a cue anywhere. An unknown
        name is accepted when it is short and reads as a name (no narration verbs, no pronoun):
        up to 6 characters at the start of a line, up to 4 after a sentence inside a paragraph.
        """
        name, _, _ = _cue_parts(raw)
        if not name or not _NAME.match(name):
            return None
        if name in _NOT_SPEAKER_EXACT or any(word in name for word in _NOT_SPEAKERS):
            return None
        found = self.canonical(name)
        if found is not None:
            return found
        name = _strip_description(name)
        found = self.canonical(name)
        if found is not None:
            return found
        limit = 6 if line_start else 4
        if not _name_like(name) or not 2 <= len(name.replace(" ", "")) <= limit:
            return None
        if _HAS_CJK.search(name) and (_NARRATION.search(name) or _PRONOUN.match(name)):
            return None
        return normalize_name(name)


def _strip_description(name: str) -> str:
    """Drop what a cue says about the speaker: '医药代表冷静' -> '医药代表', 'A对B' -> 'A'."""
    for pattern in (_ADDRESSEE, _MANNER):
        m = pattern.search(name)
        if m and m.start() >= 2:
            name = name[: m.start()]
    return name


def _acted_before_speaking(written: str, speaker: str) -> str | None:
    """The action a cue tells before the speech ('警察将驾驶证递给了司机', '吕受益拿着锦旗走进来'), or None.

    A cue is the speaker's name, sometimes with how the line is said ('局长严肃地', '张父一脸不耐烦',
    '许东对男子') or a speech verb; what else is written after the name and reads as narration
    (`_NARRATION`: '将', '了', '走', ...) is something the speaker does, an action of the scene
    in its own right.
    """
    name, _, _ = _cue_parts(written)
    if name == speaker or not name.startswith(speaker):
        return None
    tail = _strip_description(name)[len(speaker):]
    if _SPEECH_VERB.fullmatch(tail) or tail.endswith("地") or not _NARRATION.search(tail):
        return None
    return _CUE_PAREN.sub("", written).strip()


def _colon_candidates(text: str) -> list[str]:
    """Texts before colons that could be cues: the line start, or after a sentence end."""
    out: list[str] = []
    for m in _COLON.finditer(text):
        before = text[: m.start()]
        if not before.strip():
            continue
        cut = max((b.end() for b in _CANDIDATE_BOUNDARY.finditer(before.rstrip())), default=0)
        piece = before[cut:].strip()
        if piece and len(piece) <= _MAX_NAME + _MAX_MODIFIER:
            out.append(piece)
    return out


@dataclass(frozen=True)
class _Para:
    """Physical lines joined into one paragraph."""

    start: int
    end: int
    text: str


@dataclass
class _Cue:
    """A cue found in a paragraph: its text as written, speaker and where its speech starts."""

    written: str
    speaker: str
    extensions: list[str]
    notes: list[str]
    cue_start: int
    speech_start: int


class _Reader:
    """Single pass over paragraphs; keeps whether an own-line cue's speech is still open."""

    def __init__(
        self, inventory: _Inventory, physical: list[str], feeds: frozenset[int], first_line: int
    ):
        self.inventory = inventory
        self.physical = physical
        self.feeds = feeds
        self.first_line = first_line
        self.elements: list[Element] = []
        self.warnings: list[ParseWarning] = []
        self.open_speaker: str | None = None
        self.warned: set[str] = set()

    # -- paragraphs -----------------------------------------------------------------------

    def _structural(self, text: str) -> bool:
        body = _ACTION_MARK.sub("", text)
        return (
            body != text
            or _is_heading(text)
            or bool(_TRANSITION_LINE.match(text) or _TRANSITION_LEAD.match(text))
            or bool(_PAREN_ONLY.match(text))
            or bool(_PAGE_NUMBER.match(text))
            or self._line_start_cue(text) is not None
        )

    def _line_start_cue(self, text: str) -> str | None:
        m = _COLON.search(text)
        if not m or m.start() == 0 or m.start() > _MAX_NAME + _MAX_MODIFIER:
            return None
        return self.inventory.resolve(text[: m.start()], line_start=True)

    def _own_line_cue(self, index: int) -> str | None:
        """The speaker when physical line `index` is a cue standing on its own line."""
        raw = self.physical[index]
        text = raw.strip()
        if index + 1 >= len(self.physical) or not self.physical[index + 1].strip():
            return None
        if _COLON.search(text[:-1]) or _is_heading(text) or _TRANSITION_LINE.match(text):
            return None
        name, _, _ = _cue_parts(text.rstrip("：:"))
        if not _name_like(name):
            return None
        padded = bool(re.search(rf"[{_CJK}] +[{_CJK}]", name)) or len(raw) - len(raw.lstrip()) >= 4
        speaker = normalize_name(name)
        if padded or text.endswith(("：", ":")) or speaker in self.inventory.known:
            nxt = self.physical[index + 1].strip()
            if _is_heading(nxt) or _ACTION_MARK.match(nxt) or _TRANSITION_LINE.match(nxt):
                return None
            return speaker
        return None

    def _closed(self, text: str) -> bool:
        """A line that never continues on the next one: heading, lone transition, (...)."""
        return (
            _is_heading(text)
            or bool(_TRANSITION_LINE.match(_ACTION_MARK.sub("", text)))
            or bool(_PAREN_ONLY.match(text))
        )

    def paragraphs(self) -> list[_Para | None]:
        """Join hard-wrapped lines; None marks a blank line, page numbers are their own.

        A line continues on the next when it ends with a comma-like mark, or, in text that is
        hard-wrapped (most long lines end mid-sentence), when it fills the line width.
        """
        lines = self.physical
        wrap = _wrap_width([t.strip() for t in lines if t.strip()])
        out: list[_Para | None] = []
        current: _Para | None = None
        current_at = 0
        last_text = ""
        for i, raw in enumerate(lines):
            text = raw.strip()
            n = self.first_line + i
            if not text:
                if i in self.feeds:
                    continue  # a form feed: a page ends, the paragraph may go on
                current = None
                out.append(None)
                continue
            if _PAGE_NUMBER.match(text):
                out.append(_Para(n, n, text))
                continue
            own_cue = self._own_line_cue(i) is not None
            joins = (
                current is not None
                and not own_cue
                and not self._structural(text)
                and not self._closed(last_text)
                and (
                    last_text.endswith(_CONTINUING)
                    or (wrap is not None and _width(last_text) >= wrap * (
                        0.9 if last_text.endswith(_TERMINAL) else 0.75))
                )
            )
            if joins and current is not None:
                current = _Para(current.start, n, _join(current.text, text))
                out[current_at] = current
            else:
                current = _Para(n, n, text)
                current_at = len(out)
                out.append(current)
                if own_cue:
                    current = None
            last_text = text
        return out

    # -- elements -------------------------------------------------------------------------

    def _add(self, kind: ElementKind, text: str, para: _Para, **extra) -> None:
        self.elements.append(
            Element(kind=kind, text=text, line_start=para.start, line_end=para.end, **extra)
        )

    def read(self) -> tuple[list[Element], list[ParseWarning]]:
        for para in self.paragraphs():
            if para is None:
                self.open_speaker = None
                continue
            self._paragraph(para, para.text)
        return self.elements, self.warnings

    def _paragraph(self, para: _Para, text: str) -> None:
        if _PAGE_NUMBER.match(text):
            self._add(ElementKind.PAGE_BREAK, text, para)
            return
        if _is_heading(text):
            self.open_speaker = None
            self._heading(para, text)
            return
        lead = _TRANSITION_LEAD.match(text)
        if _TRANSITION_LINE.match(text) or lead:
            self.open_speaker = None
            word = lead.group(0).strip() if lead else text
            self._add(ElementKind.TRANSITION, word, para)
            if lead:
                self._paragraph(para, text[lead.end():])
            return
        mark = _ACTION_MARK.match(text)
        if mark:
            self.open_speaker = None
            rest = text[mark.end():]
            if not rest:
                return
            if _TRANSITION_LINE.match(rest) or _TRANSITION_LEAD.match(rest) or self._line_start_cue(rest):
                self._paragraph(para, rest)
            else:
                self._add(ElementKind.ACTION, rest, para)
            return
        index = para.start - self.first_line
        if para.start == para.end and (speaker := self._own_line_cue(index)) is not None:
            _, extensions, notes = _cue_parts(text.rstrip("：:"))
            self._add(ElementKind.CHARACTER, text.rstrip("：:").strip(), para,
                      speaker=speaker, extensions=extensions)
            for note in notes:
                self._add(ElementKind.PARENTHETICAL, note, para, speaker=speaker)
            self.open_speaker = speaker
            return
        if self.open_speaker is not None and not self._line_start_cue(text):
            self._speech(para, text, self.open_speaker, merge=True)
            return
        if _PAREN_ONLY.match(text) and self._last_speaker() is not None:
            self._add(ElementKind.PARENTHETICAL, text, para, speaker=self._last_speaker())
            return
        self._segments(para, text)

    def _heading(self, para: _Para, text: str) -> None:
        if _HAS_CJK.search(text):
            number, _ = chinese_heading_number(text)
            self._add(ElementKind.SCENE_HEADING, text, para, number=number)
        else:
            heading, number = strip_scene_numbers(text)
            self._add(ElementKind.SCENE_HEADING, heading or text, para, number=number)

    def _last_speaker(self) -> str | None:
        if self.elements and self.elements[-1].kind in (
            ElementKind.CHARACTER, ElementKind.DIALOGUE, ElementKind.PARENTHETICAL
        ):
            return self.elements[-1].speaker
        return None

    def _find_cues(self, text: str) -> list[_Cue]:
        cues: list[_Cue] = []
        body_start = 0
        for m in _COLON.finditer(text):
            before = text[body_start: m.start()]
            if not before.strip():
                continue
            found = self._cue_before(before, at_line_start=body_start == 0 and not cues)
            if found is None:
                continue
            offset, written, speaker = found
            _, extensions, notes = _cue_parts(written)
            cues.append(_Cue(written, speaker, extensions, notes, body_start + offset, m.end()))
            body_start = m.end()
        return cues

    def _manner_speaker(self, note: str, earlier: str) -> str | None:
        """Who says a line whose cue is a manner note ('很生气'): the last speaker named in the
        paragraph before it, else the speaker of the speech it follows; None if neither."""
        name, _, _ = _cue_parts(note)
        if not manner_note(_strip_description(name) or name):
            return None
        return self.inventory.last_named(earlier) or (self._last_speaker() if not earlier.strip() else None)

    def _cue_before(self, before: str, *, at_line_start: bool) -> tuple[int, str, str] | None:
        """Where a cue starts in `before` (the text up to a colon), as written, and who."""
        if at_line_start and len(before.strip()) <= _MAX_NAME + _MAX_MODIFIER:
            whole = before.strip()
            speaker = self.inventory.resolve(whole, line_start=True) or self._manner_speaker(whole, "")
            if speaker is None and ("，" in whole or "," in whole):
                head = re.split(r"[，,]", whole)[0]
                tail = re.split(r"[，,]", whole)[-1]
                if _SPEECH_VERB.search(tail) and len(tail) <= 4:
                    speaker = self.inventory.resolve(head, line_start=False)
            if speaker is not None:
                return before.index(whole), whole, speaker
        cuts = [b.end() for b in _SENTENCE_BOUNDARY.finditer(before)]
        if at_line_start:
            cuts += [b.end() for b in re.finditer(r"[，,]", before)]
        if not cuts and at_line_start:
            return None
        cut = max(cuts, default=0)  # 0: right after another cue, as in '一年轻人：三姐：'
        piece = before[cut:].strip()
        if not piece or len(piece) > _MAX_NAME + _MAX_MODIFIER:
            return None
        speaker = self.inventory.resolve(piece, line_start=False)
        if speaker is None and cut > 0:
            speaker = self._manner_speaker(piece, before[:cut])
        if speaker is None:
            return None
        return before.index(piece, cut), piece, speaker

    def _segments(self, para: _Para, text: str) -> None:
        cues = self._find_cues(text)
        if not cues:
            self._add(ElementKind.ACTION, text, para)
            return
        action = text[: cues[0].cue_start].strip()
        if action:
            self._add(ElementKind.ACTION, action, para)
        for k, cue in enumerate(cues):
            end = cues[k + 1].cue_start if k + 1 < len(cues) else len(text)
            speech = text[cue.speech_start: end].strip()
            self._cue(para, cue)
            if speech:
                self._speech(para, speech, cue.speaker, merge=False)
            elif k + 1 == len(cues):
                self.open_speaker = cue.speaker  # "张父：" ends the line: speech follows

    def _cue(self, para: _Para, cue: _Cue) -> None:
        written = cue.written
        acted = _acted_before_speaking(written, cue.speaker)
        if acted is not None:
            # '警察将驾驶证递给了司机：这儿不能停车' is an action, then the police officer's line.
            self._add(ElementKind.ACTION, acted, para)
            written = cue.speaker
        self._add(ElementKind.CHARACTER, written, para, speaker=cue.speaker,
                  extensions=cue.extensions)
        for note in cue.notes:
            self._add(ElementKind.PARENTHETICAL, note, para, speaker=cue.speaker)
        if self.inventory.counts.get(cue.speaker, 0) < 2 and cue.speaker not in self.warned:
            self.warned.add(cue.speaker)
            self.warnings.append(ParseWarning(
                line=para.start,
                message=f"'{cue.speaker}' speaks only once; check that it is a character name",
            ))

    def _speech(self, para: _Para, speech: str, speaker: str, *, merge: bool) -> None:
        """Leading parentheticals, then the spoken text, all attributed to `speaker`."""
        while (m := _LEADING_PAREN.match(speech)) is not None:
            inner = m.group(1).strip()
            last = self.elements[-1] if self.elements else None
            if inner in _VOICE and last is not None and last.kind is ElementKind.CHARACTER:
                cue = last
                extensions = [*cue.extensions, _VOICE[inner]]
                self.elements[-1] = cue.model_copy(update={"extensions": extensions})
            else:
                self._add(ElementKind.PARENTHETICAL, m.group(0).strip(), para, speaker=speaker)
            speech = speech[m.end():]
        speech = speech.strip()
        if not speech:
            return
        last = self.elements[-1] if self.elements else None
        if merge and last and last.kind is ElementKind.DIALOGUE and last.speaker == speaker:
            self.elements[-1] = last.model_copy(
                update={"text": _join(last.text, speech), "line_end": para.end}
            )
            return
        self._add(ElementKind.DIALOGUE, speech, para, speaker=speaker)


def chinese_elements(
    lines: list[str], *, first_line: int = 1, document: list[str] | None = None
) -> tuple[list[Element], list[ParseWarning]]:
    """Turn the lines of a Chinese screenplay into elements.

    Recognises scene headings in their common forms (`1、重庆市，日，外`, `第一场`,
    `1.  王子神油店日内`), colon dialogue (`张父：（喝酒）……`) and cues on their own line
    (`夫 人`), parentheticals, `△` action, transitions (`切换。`, `淡入`), voice-over markers
    (`叶问旁白：`, `（画外音）` -> V.O.), and joins lines that a PDF export broke mid-sentence.

    Args:
        lines: The screenplay's lines, without line ends.
        first_line: The source line number of `lines[0]`.
        document: The whole screenplay's lines when `lines` is one part of it (a STAGE scene):
            who speaks is learned from all of them, so that a cue with a description glued on
            ('宾馆老板瞪眼：') is known by a name that stands alone in another scene.

    Returns:
        The elements in source order (speech carries its speaker) and warnings about guesses,
        such as a speaker who speaks only once.

    Example:
        >>> els, _ = chinese_elements(["1、客厅，夜，内", "张父：（喝酒）回来了？"])
        >>> [(e.kind.value, e.text) for e in els][1:]
        [('character', '张父'), ('parenthetical', '（喝酒）'), ('dialogue', '回来了？')]
    """
    physical = [_clean(line) for line in lines]
    feeds = frozenset(i for i, line in enumerate(lines) if "\f" in line and not line.strip())
    inventory = _Inventory.learn(physical if document is None else [_clean(line) for line in document])
    elements, warnings = _Reader(inventory, physical, feeds, first_line).read()
    logger.debug(
        "%d lines -> %d elements, %d known speakers",
        len(lines), len(elements), len(inventory.known),
    )
    return elements, warnings
