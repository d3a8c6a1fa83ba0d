"""Places and things in Chinese action lines, found without a word segmenter.

Chinese screenplay action names places with a locative frame ('在大厅里', '走进监控室',
'车内，...') and things as the objects of handling verbs ('拿起对讲机', '掏出枪', '递给他一个
打火机'). A noun's right edge is found from the kind of word it is: places end in a place
character (室, 厅, 街, 门口, ...), things in a thing character (机, 枪, 包, 表, ...).
"""

from __future__ import annotations

import re

from kgbuild.evidence import quote_evidence
from kgbuild.model import Evidence, Scene
from kgbuild.offline.facts import Facts
from kgbuild.offline.scenes import ActionSentence

_CJK = "\u3400-\u9fff"
CLAUSE_SPLIT = re.compile(r"[，。！？；：、,!?;:…（）()“”\"「」《》\s]+")

# Characters a place name ends with; two-character endings are tried first.
_PLACE_ENDS = (
    "门口", "门前", "门外", "门内", "楼下", "楼上", "楼道", "走廊", "大门", "现场", "路边", "街头",
    "室", "厅", "房", "屋", "街", "村", "院", "楼", "店", "馆", "场", "站", "局", "所", "厂", "家",
    "宫", "堂", "庙", "寺", "园", "路", "桥", "港", "岛", "道", "库", "台", "城", "市", "镇", "山",
    "河", "湖", "海", "巷", "铺", "府", "营", "部", "间", "廊", "舱", "洞", "坊", "池", "岸", "田",
    "地",
)
_PLACE_SUFFIXES = ("内", "外", "上", "下", "前", "后", "旁", "边", "口")
_STRIP_SUFFIXES = ("里面", "里头", "里", "中", "之中")
# Characters a thing's name ends with.
_THING_ENDS = frozenset(
    "机枪刀包裹表匙票钱币车卡证书信纸笔杯瓶碗盘筷盒箱袋烟酒茶药衣帽鞋裤镜灯椅凳伞牌钟锁链"
    "绳棍棒球琴画照片花糖饭菜肉蛋果布被毯枕戒环针线管锤斧剑弹炮旗章图板柜桶壶罐碟勺叉镯"
    "罩巾带件器具盔甲炉锅剪帕夹扇哨笛鼓簿单册报刊函条梳插冰饼汤面粥香炭柴火缸盆架"
)
# Verbs whose object is a thing the subject handles.
_HANDLING = (
    "拿起", "拿出", "拿着", "拿", "掏出", "掏", "递给", "递过", "递", "接过", "放下", "放回",
    "放进", "放在", "打开", "关上", "点燃", "点着", "点", "抽着", "抽出", "抽", "喝", "吃",
    "举起", "举着", "扔掉", "扔", "握着", "握住", "戴上", "戴着", "摘下", "穿上", "穿着", "脱下",
    "捡起", "抓起", "抓着", "端着", "端起", "提着", "背着", "抱着", "翻开", "收起", "塞进", "交给",
    "摸出", "摸着", "摆弄着", "拎着", "拎起", "装进", "捡着", "手持", "手里拿着", "看了看", "盯着",
    "撕开", "撕掉", "拆开", "挂上", "推开", "拉开", "锁上", "藏起", "藏好", "取出", "取下", "揣着",
    "用", "把", "将",
)
_PARTICLES = "了着过起出回上下来去进"
_PRONOUNS = ("他们", "她们", "我们", "你们", "他", "她", "我", "你", "它")
_MEASURE = re.compile(
    rf"^(?:[{_PARTICLES}]{{0,2}})(?:(?:一|两|三|四|五|几|这|那|整|每)(?:个|把|张|杯|瓶|包|支|根|份|盒|本|台|辆|部|件|只|条|块|串|封|摞|袋|顶|副|双|沓|叠|枚|颗|粒|碗|盘|桶|箱|堆|片|扇|道|架|口)?)?"
)
_LOCATIVE = re.compile(
    rf"(?:在|进了?|进入|走进|走到|来到|回到|跑到|跑进|冲进|走出|跑出|离开|坐在|站在|躺在|蹲在|"
    rf"停在|到了|到达|朝|向|往)([{_CJK}]{{1,7}})"
)
# A short clause that is only a place ('车内，', '大厅里，') sets where the next clauses happen.
_CLAUSE_PLACE = re.compile(rf"^[{_CJK}]{{1,4}}(?:里|中|内|外|上|门口)$")
_OWNED = "的"



def clauses(text: str) -> list[str]:
    """Split Chinese text into clauses at punctuation."""
    return [c for c in CLAUSE_SPLIT.split(text) if c]


def _strip_place(name: str) -> str:
    for suffix in _STRIP_SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix) + 1:
            return name[: -len(suffix)]
    return name


def _place_prefix(text: str) -> str | None:
    """The longest start of `text` that reads as a place name, or None."""
    best = None
    for end in range(1, min(len(text), 8) + 1):
        head = text[:end]
        core = head
        if head.endswith(_PLACE_SUFFIXES) and len(head) >= 2:
            core = head[:-1]
        if core.endswith(_PLACE_ENDS) and len(head) >= 2:
            best = head
    return best


def places(clause: str) -> list[str]:
    """Places a clause puts someone or something in ('在大厅里' -> '大厅', '车内，' -> '车内').

    Example:
        >>> places("他走进监控室")
        ['监控室']
    """
    found = []
    if _CLAUSE_PLACE.match(clause) and not _LOCATIVE.search(clause):
        found.append(_strip_place(clause))
    for m in _LOCATIVE.finditer(clause):
        head = _place_prefix(m.group(1))
        if head:
            found.append(_strip_place(head))
    return list(dict.fromkeys(found))


def _thing_prefix(text: str) -> str | None:
    """The longest start of `text` (up to 5 characters) that ends like a thing's name."""
    best = None
    for end in range(1, min(len(text), 5) + 1):
        if text[end - 1] in _THING_ENDS:
            best = text[:end]
    return best


def _without_recipient(text: str, names: list[str]) -> str:
    """'阿明一个打火机' after '递给' -> '一个打火机': the person given to is not the thing."""
    for person in (*sorted(names, key=len, reverse=True), *_PRONOUNS):
        if person and text.startswith(person):
            return text[len(person):]
    return text


def things(clause: str, names: list[str]) -> list[str]:
    """Things handled in a clause ('拿起对讲机' -> '对讲机'); character names are never things."""
    found = []
    for verb in _HANDLING:
        start = 0
        while (at := clause.find(verb, start)) >= 0:
            start = at + len(verb)
            rest = _without_recipient(clause[start:], names)
            rest = rest[_MEASURE.match(rest).end():]  # type: ignore[union-attr]
            thing = _thing_prefix(rest)
            if thing and not any(thing in n or n in thing for n in names):
                found.append(thing)
    return list(dict.fromkeys(found))


def owned(clause: str, names: list[str]) -> list[tuple[str, str]]:
    """(owner, thing) for '刘波的手机': a character's name, 的, then a thing."""
    out = []
    for name in names:
        start = 0
        while (at := clause.find(name + _OWNED, start)) >= 0:
            start = at + len(name) + 1
            thing = _thing_prefix(clause[start:])
            if thing:
                out.append((name, thing))
    return out


def add_chinese_sentences(facts: Facts, scene: Scene, sents: list[ActionSentence],
                          cast_names: list[str]) -> None:
    """Record the places and things of one scene's Chinese action lines, with who is where and
    who handles or owns what, each with its sentence as evidence.

    A clause without a name keeps the subject of the clause before it in the same sentence
    ('刘波站起身来，从墙上拿起包裹').

    Args:
        facts: Where the findings go.
        scene: The scene.
        sents: The scene's action sentences, in order.
        cast_names: Canonical names of every character.
    """
    index = scene.index
    for sent in sents:
        subject: str | None = None

        def ev(rule: str, sent: ActionSentence = sent) -> list[Evidence]:
            return [quote_evidence(scene, sent.element, sent.text, "rule:" + rule)]

        for clause in clauses(sent.text):
            named = sorted((clause.find(n), n) for n in cast_names if n in clause)
            if named:
                subject = named[0][1]
            here = [facts.mention("place", p, index, "zh_place", ev("zh_place")) for p in places(clause)]
            held = [facts.mention("thing", t, index, "zh_thing", ev("zh_thing"))
                    for t in things(clause, cast_names)]
            for owner, thing in owned(clause, cast_names):
                owned_ref = facts.mention("thing", thing, index, "zh_thing", ev("zh_thing"))
                facts.relate(facts.ref("person", owner), "possesses", owned_ref, index, "zh_possessive",
                             ev("zh_possessive"))
            for held_ref in held:
                if subject:
                    facts.relate(facts.ref("person", subject), "interacts_with", held_ref, index,
                                 "zh_handles", ev("zh_handles"))
            if subject:
                for place in here:
                    facts.relate(facts.ref("person", subject), "located_at", place, index, "zh_goes_to_place",
                                 ev("zh_goes_to_place"))
