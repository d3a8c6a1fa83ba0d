"""Character cues: split 'CRONIN (CONT'D)' into a normalized name and its extensions.

A cue names who speaks, and only that. Two shapes in capitals look like cues but name no
speaker, or more than the speaker, and are read here for every reader at once:

- a camera direction glued to a name ('REVEAL HENRY', 'ANGLE ON MAX', 'CLOSE ON JULIE') is a
  shot that shows someone, not a speech: it has no cue name (`camera_direction`), so the lines
  under it are not that character's speech;
- an actor playing a role ('ARNOLD AS LOPHAKIN', in a play within the film) is the actor
  speaking: the name is the actor's and the role becomes an extension ('AS LOPHAKIN'), so the
  role never becomes an alias of whoever plays it first.

Two more shapes are no one's name at all (`not_a_name`): an editing direction about a title on
screen ('LOSE SUPER', 'END TITLE', 'BACK TO SCENE'), and a lone preposition or conjunction, the
tail of an action sentence broken onto a line of its own ('... continuing to work --' /
'WITHOUT'). Both are closed classes of grammar; a pronoun ('HE', 'SHE') stays a cue, since
two-handers name their speakers so.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

# An extension in parentheses, or a note in square brackets ('BERLIN [ROSS]': to whom, or how, not a name).
_PAREN = re.compile(r"\s*[(（\[]([^()（）\[\]]*)[)）\]]\s*")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_EXTENSION_ALIASES = {
    "CONT'D": "CONT'D", "CONTD": "CONT'D", "CONT": "CONT'D", "CONT.": "CONT'D",
    "CONTINUED": "CONT'D", "CONT'": "CONT'D", "CONT-D": "CONT'D",
    "V.O.": "V.O.", "V.O": "V.O.", "VO": "V.O.", "V/O": "V.O.", "VOICE OVER": "V.O.",
    "O.S.": "O.S.", "O.S": "O.S.", "OS": "O.S.", "O/S": "O.S.", "OFF SCREEN": "O.S.",
    "O.C.": "O.C.", "O.C": "O.C.", "OC": "O.C.", "OFF": "O.S.",
}


#: Cues that speak for no one character: groups, narration, and devices (a recording, a public
#: address). No person entity is made or required for them.
NON_PERSON_CUES = frozenset({
    "ALL", "BOTH", "EVERYONE", "CROWD", "VOICE", "VOICES", "TOGETHER", "OTHERS", "SOMEONE", "TV", "RADIO",
    "ANNOUNCER", "NARRATOR", "ANSWER MACHINE", "ANSWERING MACHINE", "ANSWERPHONE", "INTERCOM", "TANNOY",
    "LOUDSPEAKER", "PA", "P.A.", "PUBLIC ADDRESS", "COMPUTER", "TELEVISION", "众人", "大家", "旁白", "画外音"})

#: Chinese cues that open with an indefinite person speak for no one in particular ('一人应和',
#: 'one of them chimes in'; '有人', '某人'): the Chinese SOMEONE.
_CJK_SOMEONE = re.compile(r"^(?:一人|一个人|有人|某人|另一人|另一个人|其中一人|旁人)")


def is_non_person_cue(cue: str) -> bool:
    """Whether a cue name speaks for no one character (`NON_PERSON_CUES`, or a Chinese cue that
    opens with an indefinite person)."""
    return cue.upper() in NON_PERSON_CUES or bool(_CJK_SOMEONE.match(cue))


#: Cue extensions that put the voice outside the scene's place (voice-over, phone, recording).
_AWAY = re.compile(r"^(?:V\.?\s?O\.?|VO|ON (?:THE )?PHONE|PHONE|FILTERED|ON TV|ON RADIO|RADIO|TV|"
                   r"PRE-?LAP|ON SCREEN|RECORDING|TAPE|ON (?:THE )?VIDEO|VIDEO|ON (?:THE )?TAPE|ON (?:THE )?MONITOR|"
                   r"ON (?:THE )?RADIO|ON (?:THE )?TV|ON (?:THE )?SPEAKER|SPEAKER ?PHONE|INTERCOM)$", re.IGNORECASE)
#: Cue extensions of a voice heard from out of frame: in the scene's world, but not shown there.
_OFFSCREEN = re.compile(r"^(?:O\.?\s?S\.?|O\.?\s?C\.?|OS|OC|OFF|OFF-?SCREEN|OFF CAMERA|THROUGH DOOR)$",
                        re.IGNORECASE)


def voice_is_away(extensions: list[str]) -> bool:
    """True when a cue's extensions put the voice outside the scene's place (V.O., phone, TV...).

    Example:
        >>> voice_is_away(["V.O."]), voice_is_away(["CONT'D"])
        (True, False)
    """
    return any(_AWAY.match(x.strip()) for x in extensions)


def voice_is_offscreen(extensions: list[str]) -> bool:
    """True when a cue's extensions make the voice heard from out of frame (O.S., O.C.): the
    speaker is in the scene's world but not shown in it.

    Example:
        >>> voice_is_offscreen(["O.S."])
        True
    """
    return any(_OFFSCREEN.match(x.strip()) for x in extensions)


#: The words of a camera or editing direction that a script writes in capitals before the name
#: of whom the shot shows: a closed class of screenplay grammar, not a list of names.
_CAMERA = re.compile(
    r"^(?:(?:WE\s+)?(?:REVEAL(?:S|ING)?|SEE|FIND)|(?:HIGH\s+|LOW\s+|REVERSE\s+|WIDE\s+|NEW\s+)?ANGLE(?:\s+ON)?"
    r"|(?:EXTREME\s+)?CLOSE(?:[\s-]*UP)?(?:\s+ON)?|CLOSEUP(?:\s+ON)?|WIDE(?:\s+SHOT)?(?:\s+ON)?|INSERT(?:\s+ON)?"
    r"|(?:PAN|TILT|ZOOM|PUSH|TRACK|PULL|MOVE)(?:S|ING)?(?:\s+(?:IN|OUT|UP|DOWN|BACK|OVER|ACROSS))?"
    r"(?:\s+(?:ON|TO|WITH|FROM))?|FAVOU?R(?:ING)?|FOLLOW(?:ING)?|HOLD(?:ING)?\s+ON|BACK\s+(?:ON|TO)|ON)\s+(?=\S)"
)
#: 'ARNOLD AS LOPHAKIN': an actor (before AS) speaking a role (after it).
_PLAYS = re.compile(r"^(?P<actor>\S.*?)\s+AS\s+(?P<role>\S.*)$", re.IGNORECASE)


def camera_direction(name: str) -> bool:
    """Whether a cue-shaped name is a camera direction glued to whom the shot shows.

    Example:
        >>> camera_direction("REVEAL HENRY"), camera_direction("HENRY")
        (True, False)
    """
    return bool(_CAMERA.match(name.upper())) and not _CJK.search(name)


#: Editing directions about what is written on screen, and the return to the scene.
_EDITING = re.compile(
    r"^(?:(?:LOSE|END|OUT|REMOVE|CLEAR)\s+(?:THE\s+)?(?:SUPER|SUPERS|SUPERIMPOSE|TITLES?|CAPTIONS?|SUBTITLES?|"
    r"GRAPHICS?|CREDITS?|MONTAGE|FLASHBACK|INTERCUT|SPLIT\s+SCREEN)|SUPERIMPOSE[DS]?|TITLE\s+CARD|MAIN\s+TITLES?"
    r"|BACK\s+TO\s+(?:SCENE|PRESENT|THE\s+PRESENT)|SERIES\s+OF\s+SHOTS|SPLIT\s+SCREEN|FREEZE\s+FRAME)$"
)
#: English prepositions and conjunctions: a closed class, no one's name.
_FUNCTION_TEXT = """
    ABOARD ABOUT ABOVE ACROSS AFTER AGAINST ALONG ALTHOUGH AMID AMONG AMONGST AND AROUND BECAUSE BEFORE
    BEHIND BELOW BENEATH BESIDE BESIDES BETWEEN BEYOND BUT DESPITE DURING EXCEPT FOR FROM IF INTO
    NOR OF ONTO OR SINCE THAN THAT THOUGH THROUGH THROUGHOUT TOWARD TOWARDS UNDER UNLESS UNTIL UNTO
    UPON WHEREAS WHETHER WHILE WITH WITHIN WITHOUT
"""
FUNCTION_WORDS = frozenset(_FUNCTION_TEXT.split())


def not_a_name(name: str) -> bool:
    """Whether a cue-shaped line names no one: an editing direction ('LOSE SUPER') or a lone
    preposition or conjunction ('WITHOUT').

    Example:
        >>> not_a_name("LOSE SUPER"), not_a_name("WITHOUT"), not_a_name("SHE")
        (True, True, False)
    """
    upper = " ".join(name.upper().split())
    return bool(_EDITING.match(upper)) or upper in FUNCTION_WORDS


@dataclass(frozen=True)
class Cue:
    """A parsed character cue."""

    name: str
    extensions: list[str] = field(default_factory=list)
    dual: bool = False


def normalize_extension(raw: str) -> str:
    """Canonical spelling of one cue extension: CONT’D, CONTD, cont'd -> CONT'D; VO -> V.O."""
    text = raw.strip().upper().replace("’", "'").replace("‘", "'").replace("`", "'")
    text = re.sub(r"\s+", " ", text)
    return _EXTENSION_ALIASES.get(text, text)


def normalize_name(raw: str) -> str:
    """Normalize a character name for comparison: NFKC, single spaces, no CJK padding.

    Latin names are upper-cased (cues are written in caps); CJK names lose inner spaces
    ('夫 人' -> '夫人').
    """
    text = unicodedata.normalize("NFKC", raw).replace("’", "'").strip()
    text = re.sub(r"\s+", " ", text)
    if _CJK.search(text):
        text = re.sub(r"(?<=[\u3400-\u9fff])\s+(?=[\u3400-\u9fff])", "", text)
        return text
    return text.upper()


def parse_cue(raw: str) -> Cue:
    """Split a cue line into name and extensions (in parentheses, or a note in square brackets:
    'BERLIN [ROSS]' is BERLIN).

    Example:
        >>> parse_cue("CRONIN (O.S., PRELAP)")
        Cue(name='CRONIN', extensions=['O.S.', 'PRELAP'], dual=False)
    """
    text = raw.strip()
    dual = text.endswith("^")
    if dual:
        text = text[:-1].rstrip()
    extensions: list[str] = []
    for inner in _PAREN.findall(text):
        extensions.extend(normalize_extension(p) for p in inner.split(",") if p.strip())
    name = _PAREN.sub(" ", text)
    # Extensions written without parentheses: "JOHN CONT'D", "MARY V.O.".
    m = re.search(r"\s+(CONT['’]?D|V\.O\.?|O\.S\.?|O\.C\.?)\s*$", name, re.IGNORECASE)
    if m:
        extensions.append(normalize_extension(m.group(1)))
        name = name[: m.start()]
    name = normalize_name(name)
    if camera_direction(name) or not_a_name(name):
        return Cue(name="", extensions=extensions, dual=dual)
    plays = _PLAYS.match(name) if not _CJK.search(name) else None
    if plays:
        name = plays.group("actor")
        extensions.append(f"AS {plays.group('role')}")
    return Cue(name=name, extensions=extensions, dual=dual)
