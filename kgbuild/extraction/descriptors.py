"""Character names that describe rather than name: 'Texas Ranger #1', 'Branch Manager',
'Holden's Grandmother', '日本兵', '缠绕铁链的对手'.

Such a character is found in the text only by its whole name (its words name others too:
'Texas' is a state), and a per-scene comparison of characters with a reference keeps only named
characters. A name is a descriptor when it is a pronoun, has no capital letter (English), ends in
a number ('Fireman #2', 'Player One'), or ends in a word for a role, a kind of person or a kin
tie ('Duty Sergeant', 'Old Woman', "Mother's Uncle"); a Chinese name when it holds '的', or ends in
such a word ('日本兵', '宫羽田朋友', '酒楼老板'). 'Officer Olson', 'Small Eyes' and '三姐' are names.

Example:
    >>> [is_descriptor(n) for n in ("Texas Ranger #1", "Officer Olson", "he", "宫二", "日本兵")]
    [True, False, True, False, True]
"""

from __future__ import annotations

import re

from kgbuild.offline.stoplists import GENERIC_PEOPLE, word_set

_CJK = re.compile(r"[\u3400-\u9fff]")
#: Words for what someone is, not who: roles, jobs, kin, kinds of people (lower case, singular and plural).
ROLE_WORDS = GENERIC_PEOPLE | word_set("""
    ranger rangers officer officers guard guards cop cops policeman policemen policewoman police agent agents
    detective detectives sergeant sergeants lieutenant captain doctor doctors nurse nurses driver drivers
    waiter waiters waitress waitresses clerk clerks manager managers reporter reporters soldier soldiers
    priest priests judge lawyer attorney fireman firemen caretaker attendant attendants bartender receptionist
    secretary teacher teachers student students customer customers passenger passengers pilot pilots
    trainer colleague colleagues employee employees exec execs executive executives official officials
    photographer assistant cashier collector fan fans fanboy fan-boy fan-boys bystander bystanders singer
    player players partner partners owner owners boss worker workers servant maid butler cook chef
    neighbor neighbour neighbors neighbours friend friends stranger strangers host hostess guest guests
    mother father mom dad son daughter brother sister uncle aunt grandmother grandfather grandma grandpa
    wife husband cousin nephew niece parents parent baby babies twin twins boyfriend girlfriend sweetheart
    ex-boyfriend ex-girlfriend fiance fiancee lover lovers
    milkman mailman gardener businessman businessmen trio couple gang group team staff members member
    announcer narrator voice voices audience spectators spectator
    thug thugs henchman henchmen goon goons gunman gunmen killer assailant suspect prisoner prisoners inmate
    inmates patient patients villager villagers sheriff deputy marshal trooper troopers medic paramedic
    paramedics technician tech operator dispatcher salesman saleswoman vendor merchant teller
    kid kids teen teenager teenagers youth elder elders lady ladies gentleman gentlemen sir madam
""")
_NUMBERED = re.compile(r"(?:#?\d+|one|two|three|four|five|six|seven|eight|nine|ten)$", re.IGNORECASE)
_PRONOUNS = word_set("he she him her his hers they them it i you we me us someone somebody everyone anyone")
#: Chinese endings that make a name a description.
ZH_ROLE_ENDINGS = (
    "人", "者", "兵", "员", "卫", "老板", "成员", "徒弟", "弟子", "孩子", "师兄", "师弟", "师父", "未婚夫", "朋友",
    "警察", "医生", "护士", "司机", "服务员", "顾客", "病人", "患者", "小弟", "手下", "保安", "店员", "老头", "老太",
    "男子", "女子", "少年", "们", "群", "人士", "大家", "旁白", "父", "母", "妻", "夫", "儿", "女儿", "儿子",
)
_ZH_NAMED_ENDINGS = ("先生", "小姐", "太太", "爷", "哥", "姐", "叔", "嫂", "婶")


def is_descriptor(name: str) -> bool:
    """True when a character name describes someone instead of naming them (see the module docstring).

    Args:
        name: The name as the graph or the reference writes it.

    Returns:
        True for a description, False for a name.
    """
    text = name.strip()
    if not text:
        return True
    if _CJK.search(text):
        if "的" in text:
            return True
        if text.endswith(_ZH_NAMED_ENDINGS) and len(text) >= 2:
            return False
        return text.endswith(ZH_ROLE_ENDINGS) and not (len(text) == 2 and text[-1] in "父母妻夫儿")
    words = re.sub(r"['’]s\b", "", text, flags=re.IGNORECASE).split()
    if text.casefold() in _PRONOUNS or not any(c.isupper() for c in text):
        return True
    last = words[-1].strip(".,").casefold()
    return bool(_NUMBERED.fullmatch(last)) or last in ROLE_WORDS
