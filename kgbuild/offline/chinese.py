"""Places and things in Chinese action lines, read from jieba's words.

Chinese screenplay action names places after a locative verb ('在大厅里', '走进了监控室') or as a
clause of its own ('车内，...'), and things as the objects of handling verbs ('拿起对讲机',
'掏出枪', '递给他一个打火机'). jieba (its bundled dictionary, no download) cuts a clause into
words, so a name ends where its word ends: '走到了柜台里' gives 柜台, not '了柜台'. A word is a
place when it ends like one (室, 厅, 街, 门口, ...) and a thing when it ends like one (机, 枪,
包, 表, ...); a body part, a bare position ('地上', '身后', '对面'), a picture of someone
('刘波的照片') and a person's job ('司机', '秘书') are neither. Character names stay whole words
(`kgbuild.offline.zh_words`). Where a place word is followed by a word saying where in it, being
in it or on it is the place ('讲台上' and '战场上' are 讲台 and 战场; the inside of a vehicle, '车内',
'船上', is one of its own), but being beside, before or behind a vehicle or a raised surface
('渣土车旁', '讲台前') is a position by a thing, no place, and so is beside anything ('洗手池旁',
'洗手池旁边'; the riverside, '河边' or '路旁', is a place); nor is a place by people ('大家面前', before
everyone), a place inside a title before a person ('内务府大臣面前': before the minister), nor one
inside a simile ('像一个阵亡者倒毙在战场上', like a fallen soldier). After a verb of motion, 后
closing the clause is 'after', not 'behind': '回到房间后' goes back to the room. What a
body does is no thing either: a look ('视线'), a sound one hears of someone ('听着张牧之的口哨':
his whistling), and a word jieba's dictionary does not know that opens with a body part ('耳条', a
misprint of 耳朵). Of two nouns joined by 的 the second is the thing ('举着那辆车的照片' holds the
photo, not the car).

A numeral is always followed by a measure word (量词), so what a verb takes after '一碟' or '一盘'
is the noun after the measure ('一碟菜' -> '菜'), never the measure, even where jieba leaves
numeral and measure in one word with the noun or without it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kgbuild.evidence import quote_evidence
from kgbuild.model import Evidence, Scene
from kgbuild.offline.facts import Facts
from kgbuild.offline.scenes import ActionSentence
from kgbuild.offline.zh_words import NAME as _NAME
from kgbuild.offline.zh_words import in_dictionary, words
from kgbuild.zh_lexicon import BODY_PARTS

CLAUSE_SPLIT = re.compile(r"[，。！？；：、,!?;:…（）()“”\"「」《》\s]+")
_CJK_WORD = re.compile(r"^[\u3400-\u9fff]+$")

# Endings of place words; two-character endings are tried first. '地' and '部' end a place only
# in the words listed ('工地', '总部'); alone they end adverbs ('笔直地') and body parts ('腹部').
_PLACE_ENDS = (
    "门口", "门前", "门外", "楼下", "楼上", "楼道", "走廊", "现场", "路边", "街头",
    "洞口", "路口", "街口", "巷口", "村口", "港口", "出口", "入口",
    "工地", "墓地", "基地", "营地", "场地", "空地", "草地", "田地", "雪地", "阵地", "目的地",
    "总部", "乐部", "令部", "挥部",
    "室", "厅", "房", "屋", "街", "村", "院", "楼", "店", "馆", "场", "站", "局", "所", "厂", "家",
    "宫", "堂", "庙", "寺", "园", "路", "桥", "港", "岛", "道", "库", "台", "城", "市", "镇", "山",
    "河", "湖", "海", "巷", "铺", "府", "营", "间", "廊", "舱", "洞", "坊", "池", "岸", "田", "宅",
)
_ONE_CHAR_PLACES = frozenset(e for e in _PLACE_ENDS if len(e) == 1)
# Words that follow a place and say where in it ('柜台里', '车内', '医务室门口').
_SUFFIX_WORDS = frozenset({"里", "里面", "里头", "内", "外", "上", "下", "中", "之中", "前", "后", "旁", "边",
                           "门口", "门外", "门前"})
_SUFFIXES_LONGEST_FIRST = sorted(_SUFFIX_WORDS, key=len, reverse=True)
# What is dropped from a place's name: in it or on it is the place itself ('柜台里', '战场上'),
# except on a vehicle, whose inside is the place ('船上'), and upstairs ('楼上').
_STRIP_SUFFIXES = ("里面", "里头", "里", "中", "之中", "上")
# The inside of a vehicle is a place ('车内', '船上', '面包车门口'); the vehicle alone is a thing.
_VEHICLE_ENDS = ("车", "船", "地铁", "飞机", "公交")
_AT_VEHICLE = frozenset({"内", "里", "里面", "上", "中", "门口"})
# Beside, before or behind: by a vehicle or a raised surface (a 台: a dais, a stage, a counter)
# that is a position, not a place ('渣土车旁', '讲台前'); on the surface is one ('讲台上').
_BY = frozenset({"前", "后", "旁", "边"})
_SURFACE_ENDS = ("台",)
# Beside anything is a position by it, no place ('洗手池旁', '洗手池旁边', '学校旁'); beside a
# place of one character is a place of its own, as '河边' is ('路旁', '道旁': the roadside).
_BESIDE = frozenset({"旁", "旁边", "一旁", "身旁"})
# Words that end a word for a person ('大臣', '所长', '店员', '路人'): a place before one is part
# of a title or a description ('内务府大臣', '派出所所长'), not where anyone is.
_PERSON_ENDS = ("人", "者", "员", "们", "长", "臣", "官", "师")
# After a verb of motion, 后 closing the clause is 'after', not 'behind': '回到房间后' (after going
# back to the room) goes to the room; after 在 it is a side ('躲在门后').
_AFTER = "后"
# Positions and spots that are no story place.
_NOT_PLACES = frozenset({
    "地上", "地下", "原地", "地面", "身后", "身边", "身旁", "面前", "眼前", "对面", "中间", "最中间",
    "旁边", "一旁", "四周", "周围", "屋内", "屋外", "屋里", "前面", "后面", "里面", "外面", "上面",
    "下面", "这里", "那里", "这儿", "那儿", "此处", "远处", "附近", "另外", "此外", "以外", "之外",
    "意外", "格外", "额外", "例外", "雨中", "雨夜", "夜里", "空中", "半空", "暗处",
    # a door with no place it belongs to ('离开大门'; a doorway, '门口', is where one stands)
    "大门",
    # furniture ending like a place
    "工作台", "梳妆台", "窗台", "手术台", "操作台", "灶台", "柜台", "吧台",
})
# Body parts: neither places nor things ('腰间', '劫匪的腹部', '刘波的脑袋').
_BODY = BODY_PARTS
# Things whose name starts with a body part all the same ('手机', '眼镜').
_BODY_THINGS = ("手机", "手枪", "手表", "手电", "手套", "手铐", "手链", "手帕", "手绢", "手提", "手榴弹",
                "头盔", "头巾", "头套", "眼镜", "背包", "背心", "脚链", "身份证")
# Endings of thing words.
_THING_ENDS = frozenset(
    "机枪刀包裹表匙票钱币车卡证书信纸笔杯瓶碗盘筷盒箱袋烟酒茶药衣帽鞋裤镜灯椅凳伞牌钟锁链"
    "绳棍棒球琴画照片花糖饭菜肉蛋果布被毯枕戒环针线管锤斧剑弹炮旗章图板柜桶壶罐碟勺叉镯"
    "罩巾带件器具盔甲炉锅剪帕夹扇哨笛鼓簿单册报刊函条梳插冰饼汤面粥香炭柴火缸盆架奶指电"
)
# People named by their job or role whose word ends like a thing ('司机', '老板').
_PERSON_WORDS = frozenset({"司机", "老板", "秘书", "代表", "主管", "高管", "总管", "警花", "书记", "会计",
                           "大家", "众人", "自己", "别人", "人家"})
# Nouns that end like a thing but are none ('信息', '对面'), and pictures and remains of
# someone, which belong to nobody by being of them ('刘波的照片', '彭浩的尸袋').
_NOT_THINGS = frozenset({"信息", "消息", "对面", "前面", "后面", "里面", "外面", "上面", "下面", "地面",
                         "表面", "方面", "见面", "一面", "全面", "正面", "背面", "局面", "场面", "画面"})
# What the eyes do: a look is no thing ('老二老三的视线').
_LOOKS = frozenset({"视线", "目光", "眼神", "眼光"})
_DEPICTIONS = frozenset({"照片", "相片", "画像", "肖像", "面具", "海报", "雕像", "遗像", "尸体", "尸袋",
                         "遗体", "名字", "资料", "档案", "录像", "视频"})
# Verbs whose object is a thing the subject handles ('拿' '着' '对讲机'); jieba keeps some of
# them whole ('递给', '放下') and cuts others ('拿/起').
_HANDLING = frozenset({
    "拿", "拿起", "拿出", "拿着", "掏", "掏出", "递", "递给", "递过", "接过", "接", "放下", "放回", "放进",
    "打开", "关上", "点燃", "点着", "抽", "抽出", "喝", "吃", "举起", "举着", "扔", "扔掉", "握", "握着",
    "握住", "戴", "戴上", "摘下", "穿上", "脱下", "捡起", "捡", "抓", "抓起", "抓着", "端", "端着",
    "端起", "提着", "抱着", "翻开", "收起", "塞进", "交给", "摸出", "拎着", "拎", "拎起", "装进",
    "手持", "撕开", "撕掉", "拆开", "挂上", "推开", "拉开", "锁上", "取出", "取下", "揣着", "用",
    "把", "将", "使用", "举", "抱", "提", "穿", "摘", "攥", "扛", "抬", "捧", "摸", "搬", "撕",
    "拆", "挂", "翻", "塞", "装", "取", "揣",
})
_GIVING = frozenset({"递", "递给", "递过", "交给", "给"})
# Verbs jieba glues to the end of a thing before '在' ('将包夹在', '用刀架在').
_VERB_TAILS = frozenset("放夹架挂搭靠插别塞摆压按顶抵")
_AFTER_TAIL = ("在", "到")
# Particles jieba may glue to the thing after a verb ('拿' '起信').
_GLUED = frozenset("起出着了上下过回进开")
_PARTICLES = frozenset({"了", "着", "过", "起", "出", "来", "去", "上", "下", "进", "回", "起来", "出来"})
_PRONOUNS = frozenset({"他", "她", "它", "他们", "她们", "我", "你", "我们", "你们", "其"})
# Verbs after which the next words say where the subject is or goes ('走进', '坐在', '来到').
_LOCATIVE = frozenset({"在", "进", "进了", "进入", "到达", "离开", "走出", "跑出"})
_MOTION = frozenset("走跑来回冲赶逃飞开搬爬跳钻闯住带送退")
_POSTURE = frozenset("坐站躺蹲停住待呆藏躲靠趴跪围")
_NEGATIONS = frozenset({"未", "没", "没有", "不", "别", "不要", "没能", "不能"})
# Words of likeness that open a simile and the words that close one: the whole class.
_LIKE = frozenset({"像", "好像", "就像", "正像", "仿佛", "仿若", "好似", "恰似", "如同", "犹如", "宛如",
                   "宛若", "好比", "似"})
_LIKE_CLOSE = frozenset({"一样", "一般", "似的", "般", "那样", "这样"})
# A numeral ('一', '两', '几', '3'): a measure word always follows it ('一碟菜', '两盘').
_NUMERAL = re.compile(r"[0-9０-９一二两三四五六七八九十百千万几半]+")


def clauses(text: str) -> list[str]:
    """Split Chinese text into clauses at punctuation."""
    return [c for c in CLAUSE_SPLIT.split(text) if c]


def _ends_like_place(core: str, suffixed: bool) -> bool:
    if _is_body(core):
        return False
    if len(core) == 1:
        return suffixed and core in _ONE_CHAR_PLACES  # '河边', '台上'
    return core.endswith(_PLACE_ENDS)


def _split_suffix(name: str) -> tuple[str, str]:
    """(core, suffix): '医务室门口' -> ('医务室', '门口'), '河边' -> ('河', '边')."""
    for suffix in _SUFFIXES_LONGEST_FIRST:
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)], suffix
    return name, ""


def _is_body(word: str) -> bool:
    """A body part: one of `_BODY` or a word ending in one ('劫匪的腹部')."""
    return word in _BODY or (word[-1] in _BODY and not word.startswith(_BODY_THINGS)) or any(
        word.endswith(b) for b in _BODY if len(b) > 1)


def _misprinted_body(word: str) -> bool:
    """A word jieba's dictionary does not know that opens with a body part: that body part,
    misprinted or cut ('耳条' for 耳朵); things named after one are in the dictionary ('耳环', '口罩')."""
    return len(word) > 1 and word[0] in _BODY and not in_dictionary(word)


def _place_name(parts: list[str]) -> str | None:
    """The place the words name ('柜台' '里' -> '柜台', '车' '内' -> '车内', '楼道' '护栏' '边上'
    -> '楼道'), or None: the longest run of the words from the first that reads as one. Words
    opening with a person ('大家面前', '众人中间': before everyone) name where someone is by
    people, no place."""
    if parts and parts[0] in _PERSON_WORDS:
        return None
    for end in range(len(parts), 0, -1):
        name = "".join(parts[:end])
        if name in _NOT_PLACES or "之" in name:
            continue
        following = parts[end] if end < len(parts) else ""
        if following in _BESIDE and len(name) > 1 or following in _PERSON_WORDS or (
                len(following) > 1 and following.endswith(_PERSON_ENDS)):
            return None  # beside it ('洗手池旁边'), or a title ('内务府大臣面前')
        core, suffix = _split_suffix(name)
        if suffix in _BESIDE and len(core) > 1 or suffix in _BY and core.endswith((*_VEHICLE_ENDS, *_SURFACE_ENDS)):
            return None  # by the thing, neither a place nor in it
        if core in _NOT_PLACES:
            continue
        vehicle = core.endswith(_VEHICLE_ENDS) and suffix in _AT_VEHICLE
        if not (_ends_like_place(core, bool(suffix)) or vehicle):
            continue
        for strip in _STRIP_SUFFIXES:
            if name.endswith(strip) and len(name) > len(strip) + 1 and not vehicle:
                return name[: -len(strip)]
        return name
    return None


def _place_words(ws: list[tuple[str, str]], start: int) -> list[str]:
    """The words from `start` that make one place: nouns and place words, up to a word saying
    where in it; a name, a particle or a verb ends them."""
    parts: list[str] = []
    while start < len(ws) and ws[start][1] in ("m", "q", "mq"):
        start += 1  # '在一家酒馆'
    for word, flag in ws[start:start + 4]:
        if flag == _NAME or not _CJK_WORD.match(word) or word in ("的", "地", "得") or word.endswith("的"):
            break  # '高高的' (one word to jieba) modifies, as 的 does
        if parts and word in _SUFFIX_WORDS:
            parts.append(word)
            break
        if not flag.startswith(("n", "s", "f")) and flag != "zg":
            break
        parts.append(word)
    return parts


def _is_locative(ws: list[tuple[str, str]], i: int) -> bool:
    word = ws[i][0]
    if i > 0 and ws[i - 1][0] in _NEGATIONS:
        return False
    if word in _LOCATIVE:
        return not (word == "在" and i > 0 and ws[i - 1][0] in ("正", "还", "一直"))
    if len(word) == 2 and word[1] in "到进" and word[0] in _MOTION:
        return True
    if word == "到" and i > 0 and ws[i - 1][0] in _MOTION:
        return True
    return len(word) == 2 and word[1] == "在" and word[0] in _POSTURE


def _in_simile(ws: list[tuple[str, str]], i: int) -> bool:
    """Whether word `i` stands inside a simile the clause opens before it ('像一个阵亡者倒毙在
    战场上', 'like a fallen soldier on a battlefield'): a word of likeness before it and no word
    closing the likeness between ('像往常一样坐在桌前' does sit at the table)."""
    opened = False
    for word, _ in ws[:i]:
        if word in _LIKE:
            opened = True
        elif word in _LIKE_CLOSE:
            opened = False
    return opened


def _located(ws: list[tuple[str, str]]) -> list[tuple[int, str]]:
    """(index of the locative verb, place) for each place the clause puts someone in; none
    inside a simile."""
    found = []
    for i in range(len(ws)):
        if not _is_locative(ws, i) or _in_simile(ws, i):
            continue
        j = i + 1
        while j < len(ws) and ws[j][0] in ("了", "着", "过"):
            j += 1
        parts = _place_words(ws, j)
        if parts and parts[-1] == _AFTER and j + len(parts) == len(ws) and ws[i][0] != "在" and not (
                len(ws[i][0]) == 2 and ws[i][0][1] == "在"):
            parts = parts[:-1]  # '回到房间后': after going back to the room
        place = _place_name(parts)
        if place:
            found.append((i, place))
    return found


def places(clause: str, names: Sequence[str] = ()) -> list[str]:
    """Places a clause puts someone or something in ('在大厅里' -> '大厅', '车内，' -> '车内').

    Example:
        >>> places("他走进了监控室")
        ['监控室']
    """
    ws = words(clause, names)
    return _places(ws, _located(ws))


def _places(ws: list[tuple[str, str]], located: list[tuple[int, str]]) -> list[str]:
    """The places of a clause's words: those `_located` found, after the place the clause is
    made of when it is only one ('车内，')."""
    found = [p for _, p in located]
    owner = ws[:1] if ws and ws[0][1] == _NAME else []  # '程勇卧室里'
    parts = _place_words(ws, len(owner))
    if parts and len(owner) + len(parts) == len(ws) and parts[-1] in _SUFFIX_WORDS:
        place = _place_name(parts)
        if place:
            found.insert(0, "".join(w for w, _ in owner) + place)
    return list(dict.fromkeys(found))


def opening_place(text: str) -> str | None:
    """The place an action line opens with as a clause of its own ('大厅里，大多工作人员…' ->
    '大厅'), or None."""
    first = next(iter(clauses(text)), "")
    ws = words(first)
    parts = _place_words(ws, 0)
    if not parts or len(parts) != len(ws) or parts[-1] not in _SUFFIX_WORDS:
        return None
    return _place_name(parts)


def _thing_word(word: str, flag: str) -> bool:
    """Whether a word names a thing: a noun (or a word jieba also reads as a verb, '包裹') that
    ends like one, not a person, a body part or a position."""
    nounish = flag.startswith(("n", "l")) and flag != "nr" or flag in ("v", "vn") and len(word) > 1
    if not _CJK_WORD.match(word) or not nounish:
        return False
    if word in _PERSON_WORDS or word in _NOT_THINGS or word in _LOOKS or _misprinted_body(word) or (
            _is_body(word) and not word.startswith(_BODY_THINGS)):
        return False
    last = word[-2] if word.endswith(("子", "儿")) and len(word) > 1 else word[-1]
    return last in _THING_ENDS


def _after_measure(ws: list[tuple[str, str]], j: int, verb_at: int) -> tuple[int, tuple[str, str]] | None:
    """(index, word) of the noun a handling verb takes at word `j`, past a numeral and its
    measure word (量词) that jieba left in the noun ('一碟' '菜' -> '菜', '一盘菜' -> '菜') or
    cut from the numeral ('一' '杯酒' -> '酒', '两' '碟' '小菜' -> '小菜'); None when no noun
    follows the measure ('拿起一碟'). A numeral is always followed by its measure word, so the
    first character after it is the measure, never the thing."""
    word, flag = ws[j]
    numeral = _NUMERAL.match(word)
    if numeral and numeral.end() < len(word) and flag.startswith("n"):
        rest = word[numeral.end() + 1:]  # '一碟' '菜', '一盘菜'
    elif j - 1 > verb_at and _NUMERAL.fullmatch(ws[j - 1][0]) and flag not in ("m", "mq"):
        rest = word[1:]  # '一' '杯酒', '两' '碟' '小菜'
    else:
        return j, (word, flag)
    if rest:
        return j, (rest, "n")
    return (j + 1, ws[j + 1]) if j + 1 < len(ws) else None


# 把 and 将 put what they take before the verb (处置式): a word jieba reads as a verb right after
# them with 了 or the clause's end next is that verb, its object cut off ('去把相照了').
_DISPOSAL = frozenset({"把", "将"})


def _handled(ws: list[tuple[str, str]]) -> list[tuple[int, str]]:
    """(index of the verb, thing) for each thing a handling verb takes in the clause: not a
    verb after 把 ('去把相照了') nor a noun joined to a verb after it ('把火焰包裹的焦大棚': the
    flames wrap it)."""
    found = []
    for i, (verb, _) in enumerate(ws):
        if verb not in _HANDLING:
            continue
        j = i + 1
        adjectives = 0
        while j < len(ws):
            word, flag = ws[j]
            if word in _PARTICLES or flag in ("m", "q", "mq", "ul", "uz", "ug"):
                j += 1
            elif flag == "a" and adjectives < 2:
                adjectives += 1
                j += 1
            elif ((flag == _NAME or flag.startswith(("n", "s", "f"))) and j + 1 < len(ws) and ws[j + 1][0] == "的"
                  and (not _thing_word(word, flag) or j + 2 < len(ws) and _thing_word(*ws[j + 2]))):
                j += 2  # '将彭浩的尸袋', '拿起桌上的杯子', '举着那辆车的照片': the thing after 的
            elif (flag == _NAME or word in _PRONOUNS or word in _PERSON_WORDS) and verb in _GIVING:
                j += 1  # '递给阿明一个打火机': the one given to
            else:
                break
        if j >= len(ws):
            continue
        measured = _after_measure(ws, j, i)
        if measured is None:
            continue
        j, (word, flag) = measured
        after = ws[j + 1] if j + 1 < len(ws) else ("", "")
        if len(word) > 1 and word[-1] in _VERB_TAILS and after[0].startswith(_AFTER_TAIL):
            if _thing_word(word[:-1], "n"):
                found.append((i, word[:-1]))  # jieba's '包夹' in '将包夹在咯吱窝'
            continue
        if after[1].startswith("n") and not _thing_word(*after):
            continue  # '纸牌' '游戏': the verb takes the game, not the cards
        if verb in _DISPOSAL and flag.startswith("v") and (after[0] in ("了", "") or after[1] == "x"):
            continue  # '去把相照了': what 把 takes is cut off, jieba's '相照' is the verb
        if flag.startswith("v") and word[0] in _GLUED and _thing_word(word[1:], "n"):
            found.append((i, word[1:]))  # jieba's '起信' in '拿起信'
        elif _thing_word(word, flag):
            found.append((i, word))
        elif ((flag.startswith("n") or flag == "vn") and j + 1 < len(ws) and _thing_word(*ws[j + 1])
              and not ws[j + 1][1].startswith("v")):
            # '测绘' '工具'; not a noun and a verb ('把火焰包裹的焦大棚': the flames wrap the shed)
            found.append((i, word + ws[j + 1][0]))
    for i, (word, _) in enumerate(ws):
        if word[0] in "把将" and len(word) > 1 and _thing_word(word[1:], "n"):
            found.append((i, word[1:]))  # jieba's '将车' in '彭浩将车停下来'
    return sorted(found)


def things(clause: str, names: Sequence[str]) -> list[str]:
    """Things handled in a clause ('拿起对讲机' -> '对讲机'); character names are never things."""
    return list(dict.fromkeys(t for _, t in _handled(words(clause, names))))


def owned(clause: str, names: Sequence[str]) -> list[tuple[str, str]]:
    """(owner, thing) for '刘波的手机': a character's name, 的, then a thing (not a body part,
    nor a picture or the remains of the owner)."""
    return _owned(words(clause, names))


def _owned(ws: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(ws[i][0], ws[i + 2][0]) for i in range(len(ws) - 2)
            if ws[i][1] == _NAME and ws[i + 1][0] == "的" and _thing_word(*ws[i + 2])
            and ws[i + 2][0] not in _DEPICTIONS and not _heard(ws, i)]


def _heard(ws: list[tuple[str, str]], i: int) -> bool:
    """Whether the words before `i` are a verb of hearing ('听着张牧之的口哨'): what one hears of
    someone is a sound they make, not a thing they own."""
    k = i - 1
    while k >= 0 and ws[k][0] in ("着", "了", "到", "见", "过"):
        k -= 1
    return k >= 0 and ws[k][0].startswith("听")


# Pronouns that take up the subject of the clause before ('他又拿起...').
_CARRYING_PRONOUNS = frozenset({"他", "她", "他们", "她们"})


def _subject(ws: list[tuple[str, str]], verb_at: int, carried: str | None) -> str | None:
    """Who does the verb at `verb_at`: the head of the relative clause the verb is in ('站在街边
    拎着背包的包世宏': 包世宏 stands there, whoever sees him); else the last name before it in the
    clause; else the subject carried from the clause before, unless a noun of its own stands
    before the verb outside a prepositional phrase ('医生将尸袋打开', '大家摘下口罩'; not
    '从墙上拿起包裹')."""
    before = ws[:verb_at]
    subjects = [k for k, (w, f) in enumerate(before) if f == _NAME and not _governed(before, k)]
    # A verb between the subject and this one takes the relative clause as its object ('道哥看见
    # 站在街边的包世宏'); with none, the subject does this verb too ('阿福拿着刀的样子').
    if not subjects or any(f.startswith("v") for _, f in before[subjects[-1] + 1:]):
        head = _relative_head(ws, verb_at)
        if head is not None:
            return head or None
    if subjects:
        return before[subjects[-1]][0]
    after_preposition = False
    for word, flag in before:
        if flag.startswith("p") or word in _GOVERNING:
            after_preposition = True
        elif (flag.startswith(("n", "r")) and word not in _CARRYING_PRONOUNS and not after_preposition
              or word in _PERSON_WORDS):
            return None
    return carried


def _clause_subject(ws: list[tuple[str, str]]) -> str | None:
    """The name a clause is about, which the next clause may go on with: the first name before
    its first verb that owns nothing and is governed by nothing ('刘波站起身来'), or the name a
    relative clause opening the clause describes ('压低帽子的麦克'); None when the clause opens
    with someone else ('“莫西干头”抬头看见眼前谢小盟的举动': 谢小盟 is seen, his doing owned)."""
    first_verb = next((k for k, (_, f) in enumerate(ws) if f.startswith("v")), len(ws))
    for k, (word, flag) in enumerate(ws[:first_verb]):
        if flag == _NAME and not _governed(ws, k) and not (k + 1 < len(ws) and ws[k + 1][0] == "的"):
            return word
    # '压低帽子的麦克，…', '身上背着大包小包的谢小盟站在…': a relative clause opens on the subject
    return _relative_head(ws, first_verb) or None if first_verb < len(ws) else None


def _relative_head(ws: list[tuple[str, str]], verb_at: int) -> str | None:
    """The person a relative clause holding the verb at `verb_at` describes ('站在街边拎着背包的
    包世宏' -> '包世宏'); '' for a person the cast does not name ('一个靠在车上玩手机的男人'); None
    when the verb heads no relative clause. A relative clause opens the clause, or follows the verb
    or the count that takes it ('看见[站在街边的包世宏]', '一个[靠在车上的男子]'), not an adverbial
    ('很不情愿地把钱扔给了对面的男子' is the subject's); it ends in 的 and a person, not a time
    ('走到门口的时候') nor a place ('在集市的人群里'), and holds no name of its own."""
    k = verb_at - 1
    while k >= 0 and ws[k][1] in ("s", "f", "t"):
        k -= 1  # '看见不远处站在…': where the clause stands, seen from the verb before
    if k >= 0 and not (ws[k][1].startswith("v") or ws[k][0] in ("了", "着", "过") or ws[k][1] in ("m", "q", "mq")):
        return None
    for j in range(verb_at + 1, len(ws) - 1):
        word, flag = ws[j]
        if flag == _NAME:
            return None  # '看见刘波的手机': the name owns what follows
        if word != "的":
            continue
        after, after_flag = ws[j + 1]
        if j + 2 < len(ws) and ws[j + 2][0] in _SUFFIX_WORDS:
            return None  # '在集市的人群里': a place
        if after_flag == _NAME:
            return after
        person = (after in _PERSON_WORDS or after_flag in ("nr", "nrt", "nrfg")
                  or after.endswith(("人", "者", "员", "们")))
        return "" if person else None
    return None


# Words after which a name is an object, not the subject ('劫匪给于小慧戴上面具').
_GOVERNING = frozenset({"给", "被", "让", "叫", "把", "将", "对", "向", "跟", "和", "替", "帮", "朝", "与"})


def _governed(before: list[tuple[str, str]], k: int) -> bool:
    return k > 0 and (before[k - 1][0] in _GOVERNING or before[k - 1][1].startswith("p"))


def add_chinese_sentences(facts: Facts, scene: Scene, sents: list[ActionSentence],
                          cast_names: list[str]) -> None:
    """Record the places and things of one scene's Chinese action lines, with who is where and
    who handles or owns what, each with its sentence as evidence.

    A clause whose verb has no name before it keeps the subject of the clause before it in the
    same sentence ('刘波站起身来，从墙上拿起包裹'), unless another subject stands before the
    verb ('医生将尸袋打开' is the doctor's).

    Args:
        facts: Where the findings go.
        scene: The scene.
        sents: The scene's action sentences, in order.
        cast_names: Canonical names of every character.
    """
    index = scene.index
    for sent in sents:
        carried: str | None = None

        def ev(rule: str, sent: ActionSentence = sent) -> list[Evidence]:
            return [quote_evidence(scene, sent.element, sent.text, "rule:" + rule)]

        action = sent.text.split("：")[0]  # after a colon an action line quotes speech: '站起来：上新街…'
        for clause in clauses(action):
            ws = words(clause, cast_names)
            located = _located(ws)
            handled = _handled(ws)
            for place in _places(ws, located):
                facts.mention("place", place, index, "zh_place", ev("zh_place"))
            for owner, thing in _owned(ws):
                owned_ref = facts.mention("thing", thing, index, "zh_thing", ev("zh_thing"))
                facts.relate(facts.ref("person", owner), "possesses", owned_ref, index, "zh_possessive",
                             ev("zh_possessive"))
            for at, thing in handled:
                held_ref = facts.mention("thing", thing, index, "zh_thing", ev("zh_thing"))
                subject = _subject(ws, at, carried)
                if subject:
                    facts.relate(facts.ref("person", subject), "interacts_with", held_ref, index,
                                 "zh_handles", ev("zh_handles"))
            for at, place in located:
                subject = _subject(ws, at, carried)
                if subject:
                    facts.relate(facts.ref("person", subject), "located_at", facts.ref("place", place), index,
                                 "zh_goes_to_place", ev("zh_goes_to_place"))
            if any(f == _NAME for _, f in ws):
                carried = _clause_subject(ws)  # a clause naming no one goes on with the one before
