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
(`尴尬的`, `满脸通红`). Nor is a word of film grammar (`定格`, `升格`, `尸袋视角`) or a phrase of
place (`展厅一角`), closed classes in `kgbuild.zh_lexicon`.

Text before a colon is often a sentence rather than a cue: `谢小盟乐了，甩开反光板，抬头：…`.
A cue written as a clause inside a sentence tells what the sentence's subject does or how before
speaking, so its speaker is that subject (`_Inventory.subject`): a name the script establishes
that opens the clause, else the clause before it, and so back, never the clause's own first
words (a verb, an adverb, a body part: `抬头`, `然后`, `眼睛`); a clause with another subject
(a pronoun, someone else) ends the search, and with no established subject the line has no
speaker. The script establishes a name by writing it as a cue (alone, or with a description:
`交警忽然：` is 交警's) or by opening two or more sentences that lead to speech with it
(`老医生抬起头，眼睛瞄着他：`). A manner note that opens its sentence is said by the subject of
the sentence before it, or at the start of a line by the speaker of the speech it follows.
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
from kgbuild.readers.cues import is_non_person_cue, normalize_extension, normalize_name
from kgbuild.readers.headings import (
    chinese_heading_number,
    is_english_heading,
    looks_like_chinese_heading,
    strip_scene_numbers,
)
from kgbuild.timewords import ZH_CAMERA_WORDS, ZH_HEADING_NOTES
from kgbuild.zh_lexicon import BODY_PARTS, FILM_WORDS, LOCATIVE_WORDS, LOOKS, SPEECH_VERBS

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
# A speaker named by a broadcast medium ('电视节目主持人', '电台播音员') is heard through it.
_BROADCAST = re.compile(r"电视|广播|电台|收音机")
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
_SPEECH_VERB = re.compile("(?:" + "|".join(sorted(SPEECH_VERBS, key=len, reverse=True)) + ")$")
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


def _in_dictionary(word: str) -> bool:
    """Whether jieba's dictionary holds `word` (not a name its model guessed)."""
    jieba.dt.check_initialized()
    return jieba.dt.FREQ.get(word, 0) > 0


def manner_note(name: str) -> bool:
    """Whether a cue-shaped text says how a line is said rather than who says it.

    A text ending in the adverbial 地 is a manner ('严肃地') unless a noun stands before it: then
    地 is part of a name ('谷子地').

    Example:
        >>> manner_note("很激动"), manner_note("尴尬的"), manner_note("严肃地"), manner_note("老三")
        (True, True, True, False)
        >>> manner_note("谷子地")
        False
    """
    compact = name.replace(" ", "")
    if len(compact) < 2 or not _HAS_CJK.search(compact):
        return False
    if compact.endswith("地") and not any(flag.startswith("n") for _, flag in _pos(compact[:-1])):
        return True
    if compact.startswith(_DEGREE) and len(compact) > 2 and "的" not in compact[:-1]:
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
    medium = _BROADCAST.search(name)
    if medium and name[medium.end():]:
        voice.append("RADIO" if medium.group() in ("广播", "电台", "收音机") else "TV")
    return name, extensions + voice, notes


def _name_like(name: str) -> bool:
    compact = name.replace(" ", "")
    if not compact or len(compact) > _MAX_NAME or not _NAME.match(name) or compact.isdigit():
        return False
    if compact in _NOT_SPEAKER_EXACT or any(word in compact for word in _NOT_SPEAKERS):
        return False
    return not manner_note(compact) and not _direction(compact)


# Words of film grammar and of the script's own notes: what a line says about the picture.
_FILM = FILM_WORDS | ZH_HEADING_NOTES | frozenset(ZH_CAMERA_WORDS)


def _direction(name: str) -> bool:
    """Whether a cue-shaped text describes the picture or a place rather than naming someone:
    it opens or ends with a word of film grammar ('定格', '全景摇臂入', '尸袋视角'), or it is a
    phrase of place, a noun then a locative ('展厅一角', '大厅里人声鼎沸') or a place word
    then more ('车里广播').

    Example:
        >>> _direction("定格"), _direction("展厅一角"), _direction("小乞丐")
        (True, True, False)
    """
    ws = _pos(name)
    if not ws:
        return False
    if ws[0][0] in _FILM or ws[-1][0] in _FILM:
        return True
    if any(word in LOCATIVE_WORDS and len(ws[k - 1][0]) > 1 and ws[k - 1][1] in _PLACE_NOUNS
           for k, (word, _) in enumerate(ws) if k > 0):
        return True
    return len(ws) > 1 and ws[0][1] == "s"


# jieba's flags of the nouns a locative makes a place of ('大厅' '里'); not a person's name.
_PLACE_NOUNS = frozenset({"n", "ns", "nz", "nt", "ng", "s", "j"})


# jieba's flags of the words a name or a noun phrase is made of ('医生' n, '包世宏' nr, '交警' j),
# and of the words that may open one besides ('老' a, '四眼' m, '壮汉' t).
_NOMINAL = frozenset({"n", "nr", "nrt", "nrfg", "nz", "ng", "nt", "ns", "j", "NAME"})
_NAME_OPENERS = _NOMINAL | {"a", "b", "m", "t"}
# A count of people, no one's name: '三个人', '一人', '几个保安'.
_COUNT = re.compile(r"^[0-9一二两三四五六七八九十几数]+[个位名群伙些帮批人]")
# The heavenly stems that number people of one kind: '保安甲', '保安乙'.
_ORDINALS = frozenset("甲乙丙丁戊")
_PERSON_MORPHEMES = frozenset(w for w in _PERSON_WORDS if len(w) == 1 and w not in "的家们")


def _words(text: str, names: frozenset[str] = frozenset()) -> list[tuple[str, str]]:
    """jieba's words of `text` with their flags, each of `names` kept whole as one word flagged
    'NAME' (longest first), so that a name jieba does not know is not cut ('小龙聪' is 小 + 龙聪)."""
    spans: list[tuple[int, int]] = []
    for name in sorted((n for n in names if n in text and n != text), key=len, reverse=True):
        start = 0
        while (at := text.find(name, start)) >= 0:
            start = at + len(name)
            if all(at >= b or start <= a for a, b in spans):
                spans.append((at, start))
    out: list[tuple[str, str]] = []
    pos = 0
    for a, b in sorted(spans):
        out.extend(_pos(text[pos:a]) if a > pos else ())
        out.append((text[a:b], "NAME"))
        pos = b
    out.extend(_pos(text[pos:]) if pos < len(text) else ())
    return out


def _noun_phrase(text: str, names: frozenset[str] = frozenset(), *, verb_first: bool = False) -> str:
    """The noun phrase `text` opens with, as jieba reads it: a name or a noun, with a modifier
    before it ('老医生抬起头' -> '老医生', '交警忽然' -> '交警'); '' when a verb, an adverb or a
    pronoun opens it. With `verb_first` a word jieba flags a verb may open it, as its dictionary
    does to some nouns ('警察')."""
    ws = _words(text, names)
    if not ws:
        return ""
    first, flag = ws[0]
    if not (flag in _NAME_OPENERS or verb_first and flag[0] not in _NEVER_OPENS):
        return ""
    out = [first]
    for word, flag in ws[1:]:
        if flag in _NOMINAL or flag == "k" or word in _PERSON_MORPHEMES:  # '消防队' '长', '病友' '们'
            out.append(word)
        else:
            break
    return "".join(out)


# jieba's flags of the words that open what a cue says the speaker does or how: verbs, adverbs,
# idioms, state words, adjectives, prepositions, locatives ('摆手', '忽然', '见钱眼开', '怯生生',
# '对', '跟上').
_PREDICATE_FLAGS = frozenset({"v", "vd", "vn", "vi", "vg", "d", "dg", "ad", "i", "l", "z", "zg", "a", "ag", "an",
                              "p", "f"})
# The first letters of jieba's flags of words that never open a name: adverbs, conjunctions,
# prepositions, pronouns, particles, interjections, modal and state words, locatives, place
# words, idioms ('然后', '对着', '悄声', '怯生生', '门外', '恍然大悟').
_NEVER_OPENS = frozenset("dcpruyeozfsi")


def _named_part(name: str, names: frozenset[str]) -> str | None:
    """The name in an unknown cue without what it says the speaker does or how ('交警摆手' ->
    '交警', '大学生怯生生' -> '大学生', '小龙聪点头' -> '小龙聪'); the cue itself when it is all
    name; None when what opens it is no name ('一场追逐戏': a count, not a person)."""
    at = name.rfind("的", 1)
    if at > 0 and (at == len(name) - 1 or all(f in _NOMINAL for _, f in _words(name[at + 1:], names))):
        return name  # '比较瘦的同事', '军统的人', '踢馆的': one noun phrase, whatever comes before 的
    phrase = _noun_phrase(name, names, verb_first=True)
    if not phrase or _conjoined(name[len(phrase):]):
        return None  # '龙聪和六子': several people
    if phrase == name or len(phrase) < 2:
        return name  # '老警察': jieba's one-character modifier before a noun it takes for a verb
    word, flag = _words(name[len(phrase):], names)[0]
    if not (flag in _PREDICATE_FLAGS or flag == "m" and len(word) > 1):
        return name  # '张牧' '之': what follows is no predicate, jieba cut the name
    ws = _words(phrase, names)
    return None if len(ws) == 1 and ws[0][1] == "m" or _COUNT.match(phrase) else phrase


def _another_person(tail: str) -> bool:
    """Whether the text after a name makes it someone else's: '程勇爸爸', '宫家人', '刘波的舅舅'
    (a kin or role noun, 的, 家, 们); not '包世宏长叹' (a verb that starts like a role word)."""
    if not tail:
        return False
    if tail.startswith(("的", "家", "们")) or tail[0] in _ORDINALS:
        return True  # '保安甲' is one of the guards, not the guard named before
    word, flag = _pos(tail)[0]
    return word.startswith(_PERSON_WORDS) and (word in _PERSON_WORDS or flag in _NOMINAL)


def _conjoined(tail: str) -> bool:
    """Whether the text after a name joins another to it ('龙聪和六子'): a cue for several
    people is no one's; '男仙跟上' (follows) is not '男仙 and ...'."""
    return bool(tail) and (tail[0] == "、" or _pos(tail)[0][0] in _CONJUNCTIONS)


# Where a sentence ends, and where a clause inside one ends.
_SENTENCE_END = re.compile(r"[。！？!?…]")
_CLAUSE_END = re.compile(r"[，,、；;]")
_CLAUSES = re.compile(r"[，,、；;。！？!?…]")
# What may stand before a clause's first word: quote marks, brackets, dashes, spaces.
_CLAUSE_OPENING = re.compile(r"^[\s“”\"‘’「」『』《》（）()\[\]【】—…·]+")
# Nouns that stand for a person as pronouns do ('对方', the other one), and jieba's flags of
# person names.
_PRONOUN_NOUNS = frozenset({"对方", "大家", "众人", "别人", "旁人", "有人", "人家", "他人", "其他人", "所有人"})
_PERSON_FLAGS = frozenset({"nr", "nrt", "nrfg"})
# Pronouns of time ('这时', 'at this moment'): no subject.
_TIME_PRONOUN = re.compile(r"^[这那此][时会刻]")


@dataclass(frozen=True)
class _Inventory:
    """Who speaks in this document, learned from every colon and every own-line cue."""

    counts: Counter[str]
    known: frozenset[str]
    seen: frozenset[str]
    names: frozenset[str]
    subjects: frozenset[str] = frozenset()

    @classmethod
    def learn(cls, lines: list[str]) -> _Inventory:
        """Count the name-like texts before colons and on short lines of their own, and learn
        the names the script establishes.

        `known` names recur (two or more times); `seen` adds names that stand alone before a
        colon at the start of a line once, so that a longer cue can be recognised as one of
        them plus a description. `names` are the speakers these stand for ('交警忽然' is
        交警's line), together with the subjects that open two or more sentences leading to
        speech ('老医生抬起头，眼睛瞄着他：...'): the names a cue written as a sentence may
        stand for.
        """
        counts: Counter[str] = Counter()
        seen: set[str] = set()
        openings: list[str] = []
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
            openings += _speech_openings(text)
        known = frozenset(n for n, c in counts.items() if c >= 2)
        heads = frozenset(seen) | known
        draft = cls(counts=counts, known=known, seen=heads, names=heads)
        # A cue that recurs is a name as it is ('宫', '一线天'), less a verb of speaking glued on
        # ('一个工人抱怨' twice is 工人), unless it reads as a direction or
        # what opens it never opens a name (but '那哥们', 'that guy', alone at the start of lines);
        # a cue seen once must read as a name.
        names = {found for head in heads
                 if (found := draft.canonical(head, exact=False)
                     or (bare if head in known and _name_like(bare := _strip_speech_verb(head))
                         and (head in seen or _pos(bare)[0][1][0] not in _NEVER_OPENS) else None)
                     or draft.new_name(head, line_start=True))}
        subjects = Counter(_noun_phrase(opening, frozenset(names)) for opening in openings)
        names |= {normalize_name(s) for s, c in subjects.items()
                  if c >= 2 and len(s) >= 2 and _name_like(s) and not _PRONOUN.match(s)
                  and not _COUNT.match(s) and s not in BODY_PARTS and s not in LOOKS}
        return cls(counts=counts, known=known, seen=heads, names=frozenset(names),
                   subjects=frozenset(s for s in subjects if s))

    def canonical(self, name: str, *, exact: bool = True) -> str | None:
        """The speaker a cue name denotes, dropping a descriptive tail ('老三很激动') or a
        modifier before 的 ('旁边的魏红'); None if none. With `exact` False a name is found
        only inside a longer cue, never as the whole of it."""
        name = normalize_name(name)
        if "的" in name[1:-1] and (named := name[name.rindex("的") + 1:]) in self.names and len(named) >= 2 \
                and _modifier(name[: name.rindex("的")]):
            return named
        for size in range(min(len(name) - 1, _MAX_NAME), 1, -1):
            head, tail = name[:size], name[size:]
            if head not in self.names or len(tail) > _MAX_MODIFIER:
                continue
            if exact and name in self.names and self.counts[name] >= 3 and self.counts[name] > self.counts[head]:
                return name  # the script writes the whole, and more often: '谷子地' is not 谷子 + 地
            if _another_person(tail):
                break  # another person, named after a known one
            if _conjoined(tail) or re.search(r"[，,。！？!?：:]", tail):
                return None
            return self.canonical(head) or head
        return name if exact and name in self.names else None

    def resolve(self, raw: str, *, line_start: bool) -> str | None:
        """The speaker named by the text before a colon, or None when it is not a cue.

        A known speaker, or a known speaker plus a description, is a cue anywhere. An unknown
        name is accepted when it is short and reads as a name (no narration verbs, no pronoun,
        no word of film grammar, no phrase of place): up to 6 characters at the start of a
        line, up to 4 after a sentence inside a paragraph; what it says after the name the
        speaker does or how is not part of the name ('交警忽然' is 交警).
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
        return self.new_name(name, line_start=line_start)

    def new_name(self, name: str, *, line_start: bool) -> str | None:
        """The speaker an unknown cue names: a short text that reads as a name, up to
        `_MAX_NAME` characters at the start of a line and 4 after a sentence, without what it
        says the speaker does or how ('交警忽然' is 交警, '主编憋得脸通红' 主编); None when it
        reads as narration, opens with a pronoun or names no one."""
        name = _strip_speech_verb(name)
        compact = name.replace(" ", "")
        if not _name_like(name) or not 2 <= len(compact) <= (_MAX_NAME if line_start else 4):
            return None
        if is_non_person_cue(compact):
            return normalize_name(name)  # '一人应和': a voice of no one in particular, as it is
        if _HAS_CJK.search(name) and (_NARRATION.search(name) or _PRONOUN.match(name)):
            return None
        named = _named_part(compact, self.names) if _HAS_CJK.search(name) else name
        if named is None or not _name_like(named) or len(named.replace(" ", "")) > 6:
            return None
        return self.canonical(named) or normalize_name(named)

    def subject(self, text: str) -> str | None:
        """Who speaks a line whose cue is written at the end of `text` as a clause of a sentence
        ('谢小盟乐了，甩开反光板，抬头'): the name the script establishes that opens that clause,
        else the one that opens the clause before it, and so back; a clause with a subject of
        its own that is no established name (a pronoun, another noun, another person: '对方大叫',
        '一个交警走过来') ends the search with no one. What the subject's eyes or hands do
        ('眼睛瞄着包世宏') is the subject's.

        Example: with 谢小盟 established, `subject("谢小盟乐了，甩开反光板，抬头")` is '谢小盟'.
        """
        clauses = _CLAUSES.split(text)
        for k in range(len(clauses) - 1, -1, -1):
            clause = _CLAUSE_OPENING.sub("", clauses[k]).strip()
            if not clause:
                continue
            found, ends = self._clause_subject(clause, opens_sentence=k == 0)
            if ends:
                return found
        return None

    def _clause_subject(self, clause: str, *, opens_sentence: bool = False) -> tuple[str | None, bool]:
        """(subject, whether the clause has one of its own) of one clause. A sentence may open
        with its subject as a clause of its own, a name after what it did ('刚坐稳的道哥，...')."""
        head = max((n for n in self.names if clause.startswith(n)), key=len, default=None)
        if head is not None and len(word := _pos(clause)[0][0]) > len(head) and word.startswith(head) \
                and _in_dictionary(word) and jieba.posseg.dt.word_tag_tab.get(word) not in _PERSON_FLAGS:
            head = None  # '保安队': a word of its own (not a longer name jieba holds, '李明放')
        if head is not None:
            tail = clause[len(head):]
            return (None if _another_person(tail) or _conjoined(tail) else head), True
        modified = self._modified_name(clause, whole=opens_sentence)
        if modified is not None:
            return modified, True
        ws = _pos(clause)
        first, flag = ws[0]
        if _TIME_PRONOUN.match(first):
            return None, False  # '这时': the clause goes on the subject's
        if flag == "r" or _PRONOUN.match(first) or first in _PRONOUN_NOUNS or flag in _PERSON_FLAGS:
            return None, True  # a subject of its own: a pronoun, '对方', a person jieba knows
        if flag == "m" and len(ws) > 1 and ws[1][1] in _NOMINAL:
            return None, True  # '一个交警走过来'; not '一把拽住黑皮', a count of the action
        if flag in _NOMINAL and (first in self.counts or first in self.subjects):
            return None, True  # someone the script has speak, or lead a line to speech
        # a verb, an adverb, a manner ('深情地', '用力'), a body part ('眼睛向上瞄着'): the clause
        # goes on with the subject of the one before
        return None, False

    def _modified_name(self, clause: str, *, whole: bool = False) -> str | None:
        """The established name a clause opens with after a modifier and 的 that only says where
        or how the person is ('门口的包世宏', '旁边的魏红'); with `whole`, after any modifier when
        the clause ends with the name ('刚坐稳的道哥')."""
        at = clause.find("的")
        if at <= 0:
            return None
        rest = clause[at + 1:]
        named = max((n for n in self.names if rest.startswith(n)), key=len, default=None)
        before = clause[:at]
        if named is None or any(n in before for n in self.names) or not (
                _modifier(before) or whole and rest == named):
            return None  # '拉住身边的小军': the name is what the verb takes
        return None if _another_person(rest[len(named):]) or _conjoined(rest[len(named):]) else named


def _speech_openings(text: str) -> list[str]:
    """The first clause of each sentence of a line that leads to a colon: where the subject of
    a cue written as a sentence stands ('老医生抬起头，眼睛瞄着他：' -> '老医生抬起头')."""
    out: list[str] = []
    for m in _COLON.finditer(text):
        before = text[: m.start()]
        start = max((b.end() for b in _SENTENCE_END.finditer(before)), default=0)
        first = _CLAUSE_OPENING.sub("", _CLAUSE_END.split(before[start:])[0]).strip()
        if first:
            out.append(first)
    return out


def _strip_speech_verb(name: str) -> str:
    """Drop a verb of speaking glued after a name ('工人抱怨' -> '工人', '宋军大吼' -> '宋军'): the
    verb must leave two characters and jieba must read the cue's last word, starting inside the
    verb or at it, as a verb (or as a whole verb of speaking), so that a name that ends like
    one ('李明道', 道 a measure word to jieba) stays whole.

    Example:
        >>> _strip_speech_verb("工人抱怨"), _strip_speech_verb("宋军大吼"), _strip_speech_verb("老三")
        ('工人', '宋军', '老三')
    """
    m = _SPEECH_VERB.search(name)
    if m is None or m.start() < 2:
        return name
    last, flag = _pos(name)[-1]
    verb = flag.startswith("v") or len(last) > 1 and last in SPEECH_VERBS  # '嘀咕' is 'o' to jieba
    if not verb or len(name) - len(last) < m.start():
        return name
    bare = name[: m.start()]
    # A sentence before the verb ('刘牧师看着程勇认真地开口': he looks at him, then speaks; a
    # particle, 地 着 了, or more than three words) is no name with a verb glued on: its subject
    # speaks, and what he does stays action.
    words = _pos(bare)
    return name if len(words) > 3 or any(f.startswith("u") for _, f in words) else bare


def _strip_description(name: str) -> str:
    """Drop what a cue says about the speaker: '医药代表冷静' -> '医药代表', 'A对B' -> 'A',
    '工人低声抱怨' -> '工人'."""
    name = _strip_speech_verb(name)
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
    in its own right. So is a clause of a sentence whose subject speaks ('抬头' in '谢小盟乐了，
    甩开反光板，抬头：'), unless it only says how the line is said ('悄声').
    """
    name, _, _ = _cue_parts(written)
    name = normalize_name(name)
    if name == speaker:
        return None
    if speaker not in name:
        # a clause telling what the subject does ('抬头', '然后对着厂长'), unless it only says
        # how the line is said ('悄声', '深情地')
        return None if manner_note(_strip_description(name) or name) else _CUE_PAREN.sub("", written).strip()
    if not name.startswith(speaker):
        return None
    tail = _strip_description(name)[len(speaker):]
    if _SPEECH_VERB.fullmatch(tail) or tail.endswith("地") or not _NARRATION.search(tail):
        return None
    return _CUE_PAREN.sub("", written).strip()


def _quoted_speech(speech: str) -> list[tuple[ElementKind, str]]:
    """The speech after a cue as dialogue and action: speech in quotation marks ends at its
    closing mark, and a sentence written between quotes is action ('“关大门！”三宝紧随其后。',
    '“…”他翻人体画册。“我在…”': the speaker goes on after it); punctuation alone after a mark
    stays with the speech ('“对不起啊”。'), and so does everything from a bracket on."""
    if not speech.startswith("“"):
        return [(ElementKind.DIALOGUE, speech)]
    pieces: list[tuple[ElementKind, str]] = []
    rest = speech
    while rest.startswith("“"):
        close = rest.find("”")
        if close < 0 or "“" in rest[1:close]:
            break
        pieces.append((ElementKind.DIALOGUE, rest[: close + 1]))
        rest = rest[close + 1:].strip()
        between = rest[: rest.find("“")] if "“" in rest else rest
        if not _HAS_CJK.search(between) or between.startswith(("（", "(")):
            break
        pieces.append((ElementKind.ACTION, between.strip()))
        rest = rest[len(between):].strip()
    if rest:
        if pieces and pieces[-1][0] is ElementKind.DIALOGUE:
            pieces[-1] = (ElementKind.DIALOGUE, pieces[-1][1] + rest)
        else:
            pieces.append((ElementKind.DIALOGUE, rest))
    return pieces


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
        """The speaker when physical line `index` is a cue standing on its own line. A name the
        script does not use twice, followed at once by another speaker's cue, says nothing: it
        is a stage note written as a cue ('沉默：', 'silence'), no one's."""
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
        speaker = self.inventory.canonical(name) or self.inventory.new_name(name, line_start=True)
        if speaker is None and padded:
            speaker = normalize_name(name)  # the layout of a cue: '夫 人'
        if speaker is None:
            return None
        if padded or text.endswith(("：", ":")) or normalize_name(name) in self.inventory.known:
            nxt = self.physical[index + 1].strip()
            if _is_heading(nxt) or _ACTION_MARK.match(nxt) or _TRANSITION_LINE.match(nxt):
                return None
            return None if self._says_nothing(speaker, index + 1) else speaker
        return None

    def _says_nothing(self, speaker: str, following: int) -> bool:
        """Whether a cue of `speaker` that ends its line, with physical line `following` next,
        is a stage note written as a cue ('沉默：', 'silence', then '谷子地：...'): the name is not
        one the script uses twice and the next line is another speaker's cue, so nothing is said."""
        if speaker in self.inventory.known or following >= len(self.physical):
            return False
        nxt = self.physical[following].strip()
        return self._line_start_cue(nxt) is not None

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
        if text.endswith(("：", ":")) and (cue := self._line_start_cue(text)) is not None \
                and len(_COLON.findall(text)) == 1 and self._says_nothing(cue, para.end - self.first_line + 1):
            self._add(ElementKind.ACTION, text, para)  # '沉默：': a note, nothing said
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
        """Who says a line whose cue is a manner note ('很生气'): the subject of the sentence
        before it in the paragraph (`_Inventory.subject`), else the speaker of the speech it
        follows; None if neither."""
        name, _, _ = _cue_parts(note)
        if _CLAUSES.search(name) or not manner_note(_strip_description(name) or name):
            return None  # '六子赶上罗宾，讨好地' is a sentence, not a note
        return self.inventory.subject(earlier) if earlier.strip() else self._last_speaker()

    def _cue_before(self, before: str, *, at_line_start: bool) -> tuple[int, str, str] | None:
        """Where a cue starts in `before` (the text up to a colon), as written, and who.

        A cue that opens its sentence is a name, a name with a description or a manner note
        (`_Inventory.resolve`, `_manner_speaker`). A cue written as a clause inside a sentence
        ('谢小盟乐了，甩开反光板，抬头：') tells what the sentence's subject does or how before
        speaking: its speaker is that subject (`_Inventory.subject`), never the clause's first
        words, and with no subject the script establishes the line has no speaker.
        """
        if at_line_start and len(before.strip()) <= _MAX_NAME + _MAX_MODIFIER:
            whole = before.strip()
            speaker = self.inventory.resolve(whole, line_start=True) or self._manner_speaker(whole, "")
            if speaker is not None:
                return before.index(whole), whole, speaker
        stripped = before.rstrip()
        opening = max((b.end() for b in _SENTENCE_BOUNDARY.finditer(stripped)), default=0)
        clause = max((b.end() for b in _CLAUSE_END.finditer(stripped, opening)), default=opening)
        if clause == 0 and at_line_start:
            return None
        piece = before[clause:].strip()
        if not piece or len(piece) > _MAX_NAME + _MAX_MODIFIER:
            return None
        if clause > opening:
            while stripped[clause - 1] == "、" and manner_note(_cue_parts(piece)[0]):
                # '羞惭、谦卑地': a list of manners is one clause
                clause = max((b.end() for b in _CLAUSE_END.finditer(stripped, opening, clause - 1)),
                             default=opening)
                piece = before[clause:].strip()
            if clause > opening and stripped[clause - 1] == "、":
                return None  # '灯叔、三姐、勇哥、瑞先生：': a list of people speaks, no one alone
            sentence = max((b.end() for b in _SENTENCE_END.finditer(stripped)), default=0)
            speaker = self.inventory.canonical(_cue_parts(piece)[0]) or self.inventory.subject(stripped[sentence:])
        else:
            # 0: right after another cue, as in '一年轻人：三姐：'
            speaker = self.inventory.resolve(piece, line_start=False)
            if speaker is None and opening > 0:
                speaker = self._manner_speaker(piece, before[:opening])
        if speaker is None:
            return None
        return before.index(piece, clause), piece, speaker

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
            if not speech and k + 1 == len(cues):
                self.open_speaker = cue.speaker  # "张父：" ends the line: speech follows
            for kind, piece in _quoted_speech(speech) if speech else ():
                if kind is ElementKind.ACTION:
                    self._add(ElementKind.ACTION, piece, para)  # '“关大门！”三宝紧随其后。'
                    continue
                if self.elements[-1].kind is ElementKind.ACTION:  # the speaker goes on after it
                    self._add(ElementKind.CHARACTER, cue.speaker, para, speaker=cue.speaker,
                              extensions=cue.extensions)
                self._speech(para, piece, cue.speaker, merge=False)

    def _cue(self, para: _Para, cue: _Cue) -> None:
        written = cue.written
        acted = _acted_before_speaking(written, cue.speaker)
        if acted is not None:
            # '警察将驾驶证递给了司机：这儿不能停车' is an action, then the police officer's line;
            # '谢小盟乐了，甩开反光板，抬头：' is one action, then 谢小盟's line.
            last = self.elements[-1] if self.elements else None
            if last is not None and last.kind is ElementKind.ACTION and last.line_end == para.end \
                    and last.text.endswith(_CONTINUING):
                self.elements[-1] = last.model_copy(update={"text": _join(last.text, acted)})
            else:
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
