"""What a scene offers the rules: its action sentences, with the characters they name and their
noun phrases, and how the text shows each character: in person, or only through a medium.

A character can be heard or seen in a scene without being there. The ways are a closed class,
and the signal is grammatical, so the same reading serves every format and both languages:

- a voice from elsewhere: a cue extension or a parenthetical of the speech that puts the voice
  over, through or on a medium ('(V.O.)', '(OVER PHONE)', '(ON TV)', '(FILTERED)', '(on speaker)',
  '（电话里）', notes run together: '(O.S. RADIO FILTER)'); 'into the phone' is the speaker in the
  scene using one (`through_medium`, `kgbuild.offline.media.extension_through`); a cue named a
  narrator ('TV NARRATOR'); a cue or a name that is a voice ('RECORDED VOICE') once the action
  has told of a call or a screen ('Walt dials. A RECORDED VOICE answers.');
- an image: the sentence opens on a medium ('CLOSE ON TV, ...', 'ON THE SHOW MONITOR, ...',
  'In the photo, ...', 'On the viewscreen: ...'; as a slug in capitals, with no stop before the
  name: 'ON TV Pete Fineman is reporting.'); the name is the complement of a medium ('a
  photograph of Thomas Wayne', 'the poster, ... including JULIE'); the name is on or in one
  ('Shinzon appears on the viewscreen', 'BRUCE IN PHOTO', 'Murray (on TV)'); or appears in a
  sentence that names a screen before it ('She hits a button on her computer and ROSALYN
  appears'). In Chinese, a name after a screen word ('监控画面中，沙僧...');
- print: a name in a text the sentence quotes ('"Henry don't ..., Eddie Vibes"', across the
  sentences of a paragraph) or after a label's colon ('Call display: MOM.', 'The marquee
  reads: ...');
- absence: 'Picard is gone.', 'Malcolm has gone in ahead.' say the character is not there.

A character can be heard in the scene's world and not seen (`Sight.HEARD`): 'We hear Esther
screaming from inside the room'; a character named a voice ('A FEMALE VOICE calls out'; under
the cue 'FEMALE VOICE' the speech is off screen, `kgbuild.offline.dialogue.Speech.offscreen`). One
first heard so, or off screen ('ESTHER (O.S.)'), stays only heard while the action gives them only
a voice ('Esther continues to scream for help.', 'More screaming from Esther behind the door.').

A sentence in the first person singular outside quotes ('Ross was my best friend.') is a speech the
reader took for action (action is written in the third person, 'we' is the audience): what it
names is talked about (`Sight.NAMED`).

A character can also be shown in person but somewhere else than the heading's place, or only be
named by a sentence that does not show them at all. Both are read from the grammar of the name's
own sentence and clause, in every format:

- elsewhere (`Sight.ELSEWHERE`): the sentence opens on another place, then a break ('OUTSIDE -
  ...' in an interior, 'Inside, ...' in an exterior, 'THROUGH THE DOOR -- ...', 'Above them,
  ...', 'Below, ...'); a locative adverb follows the name in its clause ('Victor, outside on the
  porch, taps' in an interior, '... by Tudor from high above'; not after a verb of looking or
  going, 'looks outside', 'steps outside'); or the name is what someone sees through an opening
  or a lens ('looks through the glass-walled corridor and spots Ted'). A sentence that names the
  heading's own place places no one elsewhere ('Outside, ... on the back porch' in 'INT. THE
  BACK PORCH'; the characters' names are no place words). In Chinese: the sentence opens on a
  place outside or above an enclosure ('房顶之上，胡万...', '宅邸外围着...民众'), the name is there
  ('老师乙在屋外敲门'), '外' only in an interior and never where they come from ('从门外出现'); or
  the name is seen through a lens ('望远镜里张牧之');
- only named (`Sight.NAMED`): the sentence asks a question ('Where is Mark?', '武举人呢?'); the
  name's clause is a condition, a question or what is waited for ('to see if Kresimir is still
  there', 'until St. Luc comes', '如果...'), or what someone supposes, hopes or fears (not what
  they know or see: 'certain that Rollo ... must be'); the name is the subject of a relative
  clause in the past that tells of a thing ('the hardback Meadowlark Bill left', 'the paper bag
  that Randall gave him').

A character the scene first gives through a live medium (a screen, a call, a broadcast; a
voice-over once the action has told of a phone or a screen; a speaker first heard after a slug
that opens on a screen and nothing more, 'ON A TV MONITOR', until another slug or a transition)
stays behind it for the scene: later action naming them shows the broadcast or the call, unless
it brings them in ('enters',
'arrives'), and their speeches under plain cues go on from there until the action shows them in
person ('Her cell phone rings', 'MOM (V.O.)', then 'MOM' on the video call). A narrator's
voice-over in a scene with no phone or screen is no such call (the narrator may speak in the
scene next), and a still picture is no such frame: after 'a photo of Anna', 'Anna sits down'
shows her (`scene_sights`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import Enum

from kgbuild.evidence import sentences
from kgbuild.model import Element, ElementKind, Scene, Screenplay
from kgbuild.offline.characters import Cast
from kgbuild.offline.dialogue import Speech
from kgbuild.offline.media import SCREEN_MEDIA, STILL_MEDIA, VOICE_MEDIA, extension_through, names_a_voice
from kgbuild.offline.phrases import VERB_FORMS, Phrase, learn_verbs, noun_phrases
from kgbuild.offline.zh_words import inside_word
from kgbuild.readers.cues import voice_is_away, voice_is_offscreen

_CJK = re.compile(r"[\u3400-\u9fff]")
# Action that shows a picture, not the scene's place: 'INSERT CUT: ANGIER SCREAMING'.
_NOT_HERE = re.compile(r"^\s*(?:INSERT|FLASH|FLASHBACK|CUT TO|INTERCUT|MONTAGE|SERIES OF SHOTS|IMAGE|PHOTO|"
                       r"ON (?:THE )?(?:TV|SCREEN|MONITOR|NEWSREEL)|NEWSREEL|DREAM)\b")
# A name right after these words is talked about, not shown: 'a photo of Sarah'.
_NOT_SHOWN_BEFORE = re.compile(r"\b(?:of|about|for|like|than|to)\s+$", re.IGNORECASE)
# Chinese action that shows an insert, a flashback or another place ('插入画面：', '切换至许东家').
ZH_ELSEWHERE = re.compile(r"插入(?:画面|镜头|回忆|[：:])|闪回|回忆画面|画面切|镜头切|切换至|切换到")
# A name after these in a Chinese sentence is seen on a screen or in a picture ('监控画面中，沙僧...').
_ZH_SCREEN = re.compile(r"监控|屏幕|画面|电视|视频|录像|照片")
# A Chinese name followed by these is calling in or owning, not shown ('眼镜打给他', '孙悟空的面具').
_ZH_NOT_SHOWN_AFTER = re.compile(r"^(?:的|打来|打给|打电话|来电)")

#: Not the scene's world at all: what is dreamt or remembered.
_INNER = r"(?:dreams?|visions?|memory|memories|flashbacks?|imagination|nightmares?|fantas(?:y|ies))"
_DET = r"(?:the|a|an|his|her|their|its|this|that|our|[\w-]+['’]s)"
# A camera direction that opens a sentence ('CLOSE ON', 'ANGLE ON', 'EXTREME CLOSE ON').
_CAMERA = (r"(?:(?:extreme |tight |medium |wide )?(?:close(?:[- ]?up)?|angle|shot|pov|push(?:ing)? in|pan|tilt|zoom|"
           r"(?:cut )?back)\s+(?:on|to|in on)\s+|insert\W+)")
# A word before a medium's noun that is no determiner and no verb ('the LITTLE TV', 'the SHOW MONITOR').
_MODIFIER = r"(?!(?:the|a|an|and|or|of)\b)(?![\w-]+ing\b)[\w-]+"
# A sentence that opens on a medium: what it names is in the picture ('CLOSE ON TV, Murray ...').
_FRAME_OPENING = (rf"^\W*(?:{_CAMERA}(?:(?:on|in|onto|across)\s+)?|(?:on|in|onto|across)\s+)(?:{_DET}\s+)?"
                  rf"(?:{_MODIFIER}\s+){{0,2}}?"
                  rf"(?:(?P<screen>{SCREEN_MEDIA})|(?P<still>{STILL_MEDIA})|(?P<inner>{_INNER}))")
_FRAME = re.compile(rf"{_FRAME_OPENING}\s*(?:[,:;.!]|--|—|–|$)", re.IGNORECASE)
# The same opening written as a slug in capitals, with no stop before what it shows ('ON TV Pete is reporting.').
_SLUG_OPENING = re.compile(rf"{_FRAME_OPENING}\s+", re.IGNORECASE)
# A slug in capitals ('BACK TO SCENE', 'ON BRUCE', 'ANGLE ON THE DOOR', 'IN THE ROOM'): a new shot. Its words
# open on a camera direction or a place (a sound in capitals, 'BANG!', is no shot).
_SHOT = re.compile(r"^\W*(?:ON|IN|AT|INSIDE|OUTSIDE|BACK|ANGLE|CLOSE|WIDER?|REVEAL|REVERSE|POV|MEDIUM|TIGHT|"
                   r"EXTREME|OVER|FAVOU?R\w*|NEW ANGLE|RESUME|INT|EXT|INTERCUT|CUT)\b")
# The name is the complement of a medium: 'a photograph of Thomas Wayne', 'a poster ..., featuring ... JULIE',
# or of print by or on someone ('cuttings of articles by Melanie', 'a file on Bourne'). The medium nearest the
# name counts ('newspaper pictures of ..., a torn photo of Ben with Suzette'); a semicolon ends its list unless
# the item after it has no verb of its own ('a portrait of Jeff and Kale; Jeff at a book signing').
_MEDIUM_OF = re.compile(
    rf"^.*\b(?:(?P<screen>{SCREEN_MEDIA}|{VOICE_MEDIA})|(?P<still>{STILL_MEDIA}))"
    r"(?:\s+(?P<link>of|by|on)|(?:\s+[^\s;:—–]+){0,6}?\s+(?:showing|featuring|depicting|including))"
    r"\s+(?P<between>[^:—–]*)$",
    re.IGNORECASE | re.DOTALL)
# What may come between print and a name it is by or on: other names in a list ('a file on Bourne and Abbott').
_NAME_LIST = re.compile(r"^(?:[A-Z][\w.'’-]*,?\s+(?:and\s+|&\s+)?)*$")
# A finite verb of a list item: a verb's -s or -ed form, or a form of 'be' or 'have'.
_FINITE = re.compile(r"\b(?:is|are|was|were|has|have|had|[a-z]+(?:s|ed))\b")
_BE_HAVE = frozenset({"is", "are", "was", "were", "has", "have", "had"})
# Words that start another clause between a medium and a name ('a photo of his wife, then Tom enters').
_CLAUSE_BREAK = re.compile(r"--|\b(?:then|while|when|but|until|meanwhile|and then)\b", re.IGNORECASE)
# The name is on or in a medium ('Shinzon appears on the viewscreen', 'BRUCE WAYNE IN PHOTO', 'Murray (on TV)').
_ON_MEDIUM = re.compile(
    rf"^\s*(?:\((?P<paren>[^)]*)\)|,?\s*(?:(?:is|['’]s|was|are|appears?|appearing|comes? (?:up|on)|pops? up|flickers?|"
    rf"shimmers?|fades? in)\s+)?(?:on|in|onto|across)\s+(?:{_DET}\s+)?(?:{_MODIFIER}\s+){{0,2}}?"
    rf"(?:(?P<screen>{SCREEN_MEDIA})|(?P<still>{STILL_MEDIA}))(?=\s*$|\s*[^\w\s]|\s+(?:and|as|while|with|where|when|who|"
    r"that|which|to|for|at|in|on|again|now|then|is|was|are|[\w-]+ing|[\w-]+s)\b))", re.IGNORECASE)
_CALL_OR_SCREEN = re.compile(rf"\b(?:{VOICE_MEDIA}|{SCREEN_MEDIA})\b|电话|手机|视频|屏幕|电视", re.IGNORECASE)
_SCREEN_WORD = re.compile(rf"\b{SCREEN_MEDIA}\b", re.IGNORECASE)
_STILL_WORD = re.compile(rf"\b{STILL_MEDIA}\b", re.IGNORECASE)
# A name right after these is a complement, not the one a medium shows ('Behind Joker on screen').
_AFTER_PREPOSITION = re.compile(
    r"\b(?:behind|before|beside|besides|near|by|at|with|from|to|of|in|on|into|onto|under|over|above|below|past|"
    r"toward|towards|around|against|between|among|across|through|beyond|inside|outside|front|next)\s+$", re.IGNORECASE)
_CAMERA_OPENING = re.compile(rf"^\W*{_CAMERA}$", re.IGNORECASE)
# After a name that opens a sentence, "'s" is 'is' or 'has' when a verb, a preposition or a determiner
# follows, not a noun ('Sophie's sitting on her couch', 'Tom's in the kitchen'; not 'Neil's desk', nor
# '... the same file Joker's holding', a clause about the file).
_OPENS = re.compile(r"^\W*(?:(?:and|then|now|but|meanwhile|still)\W+)?$", re.IGNORECASE)
_IS = re.compile(r"\s+(?:[a-z]+ing\s+(?:on|in|at|by|with|across|behind|beside|near|next|there|here|alone|up|down|"
                 r"the|a|an|his|her|their)\b|(?:in|at|on|not|been|got|gone|still|already|just|now|a|an|the|here|"
                 r"there|out|up|down|about|behind|outside|inside|with|by|alone|asleep|awake)\b)")
# Coming into view on a screen named earlier in the sentence ('... on her computer and ROSALYN, 60 today, appears').
_APPEARS = re.compile(r"^\s*(?:,[^,]{1,40},\s*)?(?:appears?|pops? up|comes? (?:up|on)|flickers? (?:on|into view)|"
                      r"shimmers? into view|fades? in|fills the screen)\b", re.IGNORECASE)
# What a colon opens right after a medium or a verb of print (at most three words between): 'Call display:
# MOM.', 'The marquee reads: ...', 'the image on the viewscreen transforms to: Shinzon's Viceroy'; a list of
# names is only named ('Three names: Tom Brewster, Jack Boulin').
_LABEL = re.compile(
    rf"(?:\b(?P<screen>{SCREEN_MEDIA})|\b(?P<still>{STILL_MEDIA}|ID|reads?|displays?|flashes|spells?(?: out)?|"
    r"lists?)|\b(?P<names>names))(?:\s+[\w'’-]+){0,3}?\s*:", re.IGNORECASE)
# Who something is, right before the name: 'It is Stanley.', 'it is no longer Reisman', or who one shown on a
# medium is ('On the photograph a man and a girl on a bed. The man is Ben').
_IDENTIFIED = re.compile(r"\b(?:it|this|that|the\s+(?P<noun>[a-z]+))\s*(?:['’]s|\s+is|\s+was)\s+"
                         r"(?:(?:no longer|not|really|actually|now)\s+)?$", re.IGNORECASE)
# Answering a call, with no other object: 'A.D. Joy answers.', 'Joy picks up the phone.'
_ANSWERS = re.compile(r"^\s*(?:answers|picks up)(?:\s+(?:the|his|her|their)\s+(?:phone|call|line|cell))?\s*(?:[.!]|$)",
                      re.IGNORECASE)
_CALL_WORD = re.compile(rf"\b{VOICE_MEDIA}\b", re.IGNORECASE)
# Someone here takes a call up or puts it through: 'He answers it.', 'Sonny takes the phone', 'picks up the receiver'.
_ANSWERING = re.compile(r"\b(?:answers|answering|picks (?:it )?up|(?:holds|puts) it to (?:his|her) ear)\b",
                        re.IGNORECASE)
_TAKES = re.compile(r"\b(?:takes|grabs|picks up|lifts)\b", re.IGNORECASE)
_RECEIVER = re.compile(r"\b(?:receivers?|handsets?|mouthpieces?)\b", re.IGNORECASE)
# The call ends: 'hangs up', 'the phone clicks off', 'puts down the phone', 'the line goes dead'.
_HANGS_UP = re.compile(r"\b(?:hangs? up|hung up|hanging up|clicks? off|puts? (?:down|away) the (?:phone|receiver|cell)|"
                       r"line goes dead|disconnects?)\b", re.IGNORECASE)
# A speech said into a device ('(into phone)', '(to phone)', '(on the radio)'): its speaker is here, on the call.
_INTO_DEVICE = re.compile(rf"^\(?\s*(?:[\w-]+\s+)?(?:into|to|on)\s+(?:the\s+|his\s+|her\s+)?{VOICE_MEDIA}\b",
                          re.IGNORECASE)
# Spoken to, in a parenthetical: '(to KAYLO)'.
_TO = re.compile(r"^\(?\s*(?:to|at)\s+(?P<whom>[\w'’.-]+)", re.IGNORECASE)
# A call coming in, answered where it rings: 'The phone rings. Bob answers.'
_RINGS = re.compile(r"\b(?:rings?|ringing|buzz(?:es|ing)?|vibrat(?:es|ing))\b", re.IGNORECASE)
# Said to be absent: 'Picard is gone.', 'Malcolm has gone in ahead.'
_GONE = re.compile(
    r"^\s*(?:is|was|['’]s|has|had)\s+(?:already\s+|long\s+|now\s+|still\s+)?(?:been\s+)?"
    r"(?:(?:gone|missing|absent)(?=\s*(?:[.,;:!?)]|--|—|$)|\s+(?:from|now|already|again|too|for good)\b)|"
    r"gone\s+(?:in|out|off|away|ahead|home|inside|outside|upstairs|downstairs)\b|"
    r"nowhere to be (?:seen|found)|not (?:here|there)\b)", re.IGNORECASE)
# A cue's extension of a voice not seen, right after a name in capitals in the action (a cue the reader
# left there): '(O.S. RADIO FILTER)', '(V.O.)'.
_CUE_EXTENSION = re.compile(r"^\s*\(\s*(?P<ext>(?:O\.?\s?S|O\.?\s?C|V\.?\s?O)\.?(?:[^)\w][^)]*)?)(?:\)|$)")
# The audience hears, and sees nothing: 'We hear Esther screaming from inside the room.'
_WE_HEAR = re.compile(r"\b(?:we|you)\s+(?:can\s+|now\s+|still\s+|then\s+)?hear\s+(?:the\s+)?$", re.IGNORECASE)
# A voice's verb or a sound from someone: who was first heard and not seen is still only heard
# ('Esther continues to scream for help.', 'More screaming from Esther behind the door.').
_VOICE_VERB = (r"(?:screams?|screaming|shouts?|shouting|yells?|yelling|calls?(?: out)?|calling|cries|cry|crying|"
               r"sobs?|sobbing|moans?|moaning|groans?|groaning|wails?|wailing|howls?|howling|hollers?|hollering|"
               r"shrieks?|shrieking|bangs?|banging|pounds?|pounding|knocks?|knocking)")
_VOICE_AFTER = re.compile(rf"^\s*(?:(?:continues|keeps|starts|begins|is|was|still|again)\s+(?:to\s+)?){{0,2}}"
                          rf"{_VOICE_VERB}\b", re.IGNORECASE)
_SOUND_FROM = re.compile(rf"\b(?:{_VOICE_VERB}|voices?|sounds?|noises?)\s+from\s+$", re.IGNORECASE)
# A voice heard, not a person seen: 'Jim talks over the action in voiceover'.
_VOICE_OVER = re.compile(r"\bvoice-?over\b|\bV\.O\.", re.IGNORECASE)
# Coming into the scene: the subject of these verbs is brought in ('LANG and Reggie enter').
ENTERS = re.compile(
    r"\b(?:enters?|entering|comes? (?:in|back|into|through)|walks? (?:in|into|up)|steps? (?:in|into)|"
    r"arrives?|arriving|appears?|appearing|rushes in|runs in|hurries in|bursts in|strides in|storms in|"
    r"returns?|emerges?|joins?|is back)\b|走进|走了进来|进来|进门|进屋|跑进|冲进|闯进|回来|赶来|来到", re.IGNORECASE)
# Going out of the scene (not out of a car).
EXITS = re.compile(
    r"\b(?:leaves?|leaving|exits?|exiting|walks? (?:out|off|away)|goes (?:out|off)|storms (?:out|off)|"
    r"departs?|runs (?:out|off)|drives (?:off|away)|hurries (?:out|off)|rushes out|heads out|"
    r"disappears?|slips out)\b(?!\s+(?:of\s+)?(?:the|his|her|their|a)?\s*(?:car|van|truck|cab|taxi|vehicle|bus|"
    r"elevator|lift|shower|limo|limousine|jeep|cruiser|motorcycle)\b)|离开|走了|走出|走开|出去|跑回|跑出|跑开|"
    r"回去|溜走|退出|离去", re.IGNORECASE)
# Going away from where the scene looks: 'go' is the verb of moving away from the viewpoint (as
# 'come' of moving toward it), so 'go' with a particle of direction leaves the shot ('goes into the
# bathroom', 'goes through and down the stairs', 'goes up with the coat', 'get up and go'); not
# toward someone or something within it ('goes up to Margo', 'goes over to the bar', 'goes to the
# window'), nor a sense of 'go' that is no moving ('goes down' falls, 'goes through his mail',
# 'lets go', 'ready to go'). A manner of moving ('wander', 'dart', 'stroll') with 'off', 'away' or
# 'out' is a leaving too, in any tense ('has wandered off'); with 'into' a place (`_INTO`), when
# that place is not the heading's own (`leaves`). The verbs are the closed class of verbs of
# moving oneself along; 'through' takes the closed class of passages ('the door', 'the crowd').
_MANNER_VERBS = """
    walk wander stroll stride:strode storm stalk march run:ran race dash dart hurry rush slip sneak:snuck limp
    stagger stumble trudge shuffle drift head creep:crept tiptoe scurry scamper bolt flee:fled saunter amble
    skulk lumber plod traipse sidle scuttle hobble waddle troop file ride:rode drive:drove fly:flew swim:swam
    sail paddle
"""


def _verb_forms(entry: str) -> set[str]:
    """The forms of a verb ('run:ran' gives run, runs, ran, running, runned is harmless)."""
    base, _, past = entry.partition(":")
    stem = base[:-1] if base.endswith("e") and not base.endswith("ee") else base
    out = {base, stem + "ing", stem + "ed" if base.endswith("e") else base + "ed", past}
    if base.endswith("y") and base[-2] not in "aeiou":
        out |= {base[:-1] + "ies", base[:-1] + "ied"}
    else:
        out.add(base + ("es" if re.search(r"(?:s|sh|ch|x|z)$", base) else "s"))
    if re.search(r"[^aeiou][aeiou][nptg]$", base):
        out |= {base + base[-1] + "ing", base + base[-1] + "ed"}
    return {f for f in out if f}


_MANNER = "(?:" + "|".join(sorted({f for e in _MANNER_VERBS.split() for f in _verb_forms(e)},
                                   key=len, reverse=True)) + ")"
_GO = r"(?<!\blet )(?<!\blets )(?<!\bletting )(?<!\bto )(?:go|goes|going|gone|went)"
_PASSAGE = (r"(?=\s*(?:[.,;!]|--|—|$|and\b)|\s+(?:the|a|an|another|his|her|their)\s+(?:[\w-]+\s+)?(?:doors?|doorway|"
            r"gates?|arch|archway|curtains?|exit|hatch|portal|tunnel|hall|hallway|corridor|crowd|passage|opening)\b)")
_GOING = re.compile(
    rf"\b(?:{_GO}\s+(?:right\s+|straight\s+|back\s+|quickly\s+|slowly\s+|quietly\s+)?"
    r"(?:(?:up|down)\s+(?:the\s+)?(?:stairs|steps|staircase|stairway|hall|hallway|corridor|ladder|aisle)\b|"
    r"up(?=\s*(?:[.,;!]|--|—|$)|\s+(?:with|again|alone|first)\b)|"
    rf"through{_PASSAGE}|inside|outside|upstairs|downstairs|indoors|outdoors)\b|"
    rf"{_GO}(?=\s*(?:[.;!]|--|—|$)|\s+without\b)|"
    rf"\b{_MANNER}\s+(?:back\s+)?(?:off|away|out|upstairs|downstairs|inside|outside)\b"
    r"(?!\s+(?:of\s+(?:the\s+|his\s+|her\s+)?(?:car|van|truck|cab|taxi|vehicle|bus|elevator|lift|shower|"
    r"time|breath|money|gas|ammo|steam|patience|luck|options)|to|toward|towards|at)\b))", re.IGNORECASE)
# 'into' a place after a verb of moving that is no coming ('darts into the bathroom'): the place is
# read against the heading's (`leaves`).
_INTO = re.compile(rf"\b(?:{_GO}|{_MANNER}|disappears?|vanish(?:es)?)\s+(?:back\s+|right\s+)?into\s+"
                   r"(?P<place>(?:the|a|an|his|her|their|its)\s+[\w'’-]+(?:\s+[\w'’-]+){0,2})", re.IGNORECASE)
# 'head' is the verb of setting out for somewhere ('heads back toward the first car', 'heads across the
# way, toward the office'): its destination, a place the heading does not name, is away from the shot
# (`leaves`); not toward someone ('heads toward Mulvaney': a name has no determiner).
_HEADS_FOR = re.compile(r"\bhead(?:s|ed|ing)?\s+(?:back\s+|off\s+|straight\s+)?"
                        r"(?:(?:across|over)\s+[^,.;:!?]{1,30}?,?\s+)?(?:toward|towards|for|back\s+to|across)\s+"
                        r"(?P<place>(?:the|a|an|his|her|their|its)\s+[\w'’-]+(?:\s+[\w'’-]+){0,2})", re.IGNORECASE)
# Going in from outside ('The kids start filing in' in an exterior): 'go' or a manner of moving with a bare
# 'in' takes them out of an exterior's shot (`leaves`); 'comes in' is coming.
_GOES_IN = re.compile(rf"\b(?:{_GO}|{_MANNER})\s+(?:back\s+)?in(?=\s*(?:[.,;!]|--|—|$|and\b))", re.IGNORECASE)
# The name is its clause's subject: at the sentence's start or after a clause break, with at most a
# determiner or a title before it ('; Mrs. Adisa nods', 'The Driver curses').
_SUBJECT_BEFORE = re.compile(r"(?:^|[;:]|--|—|\b(?:and|but|then|as|while|when)\s)\W*(?:(?:the|a|an)\s+)?"
                             r"(?:[A-Z][\w.'’-]*\s+){0,2}$", re.IGNORECASE)
# Between a subject and a verb of leaving: another verb phrase of the same subject, then the leaving
# joined to it ('nods to Roberta with a look of gratitude, then exits', 'curses, heads back toward the
# car'); no subordinate clause that may bring another subject in.
_COORDINATED_GAP = re.compile(r"^\s+(?!(?:and|or|&)\b)[a-z][^;:.!?\"“]{0,80}?"
                              r"(?:,\s*(?:and\s+)?(?:then\s+)?|,?\s+and\s+(?:then\s+)?|\s+then\s+)$")
_SUBORDINATE = re.compile(r"\b(?:as|while|when|who|whom|which|that|until|because|if|before|after|where|whose)\b",
                          re.IGNORECASE)
# What says the verb is not done: an intention, a negation ('turns to leave', "doesn't go").
_NOT_DONE = re.compile(r"\b(?:to|not|never|n't|won't|can't|cannot)\s+$", re.IGNORECASE)
# An object right before the verb: the verb is someone else's ('Margo watches Eve go', 'lets them go');
# a name joined by 'and' is one more subject ('Karen and Lloyd go').
_OBJECT_BEFORE = re.compile(r"\b(?:him|her|them|us|me|it)\s+$|(?<!\band)(?<!&)\s+[A-Z][\w'’-]*\s+$")
# Between a subject and its verb: a few words, no clause break ('LANG and Reggie enter'); or the
# subject set apart and taken up again by a pronoun ('ADDISON AND EVE, they get up and go').
_SUBJECT_GAP = re.compile(r"^[^,.;:!?，。；：！？]{0,40}$|"
                          r"^(?:\s+(?:and|AND|&)\s+[A-Z][\w.'’-]*(?:\s+[A-Z][\w.'’-]*)?)?,\s*(?:they|he|she)\s"
                          r"[^,.;:!?]{0,40}$")
#: Characters that may come between a Chinese name and its verb of coming or going ('转身', '匆匆').
_CJK_GAP = 3
# A cue extension or parenthetical that puts the voice over, through or on a medium.
_THROUGH = re.compile(
    rf"^(?:heard\s+|seen\s+)?(?:(?:over|through|thru|via|from)\s+(?:{_DET}\s+)?(?:[\w-]+\s+)?"
    rf"(?:{VOICE_MEDIA}|{SCREEN_MEDIA})|(?:on|in)\s+(?:{_DET}\s+)?(?:[\w-]+\s+)?(?:{SCREEN_MEDIA}|(?:loud)?speakers?|"
    rf"speaker ?phones?|(?:answering )?machines?|voice ?-?mails?)|{SCREEN_MEDIA}|filtered)$",
    re.IGNORECASE)
# The Chinese forms: '（电话里）', '（画外音）', '（视频中）'.
_ZH_THROUGH = re.compile(r"电话(?:里|中|那头|那边)|画外音?|(?:视频|电视|广播|录音|屏幕|对讲机)(?:里|中|上)?$|"
                         r"^(?:视频|电视|广播|录音)")
# Cue extensions of a narrator's voice (not a medium in the story's world).
_NARRATION = re.compile(r"^(?:V\.?\s?O\.?|VO|VOICE[- ]?OVER|PRE-?LAP)$", re.IGNORECASE)

# Where a clause begins: a comma, a colon, a dash, a bracket, or a conjunction that opens a clause.
_CLAUSE_START = re.compile(r"[,;:()]|--|—|–|\s-\s|\b(?:and|but|as|when|while|then|so|because|after|or|where)\b",
                           re.IGNORECASE)
# The first person singular, the speaker's own word ('I', "I'm", 'my'): no action line says it.
_FIRST_PERSON = re.compile(r"(?<![\w'’-])I(?:['’](?:m|ll|ve|d))?(?![\w'’-])|\b(?:me|my|mine|myself)\b")
_QUOTED_PART = re.compile(r'"[^"]*"|“[^”]*”')
# What may come before a name called at the start of a speech: 'Mr Travis, ...', 'Oh, Liza, ...'.
_CALLED_BEFORE = re.compile(r"^\W*(?:(?:oh|hey|hi|well|look|listen|please|so|now|and)\W+)?"
                            r"(?:(?:mr|mrs|ms|miss|dr|doctor|sir|madam|captain|sergeant|officer|detective|chief)\.?\s+)?$",
                            re.IGNORECASE)
# A question: what it names is asked about ('Where is Mark?'), not shown.
_QUESTION = re.compile(r"[?？][\"'”’)\s]*$")
# The clause is a condition, a question or what is waited for ('to see if Kresimir is', 'until St. Luc comes').
_IF = re.compile(r"\b(?:if|whether|unless|until|till)\b", re.IGNORECASE)
# Attitudes that do not say their content is so (not 'knows', 'sees'): 'certain that Rollo ... must be'.
_SUPPOSES = re.compile(
    r"\b(?:think(?:s|ing)?|thought|believ(?:e|es|ed|ing)|suppos(?:e|es|ed|ing)|assum(?:e|es|ed|ing)|"
    r"imagin(?:e|es|ed|ing)|hop(?:e|es|ed|ing)|fear(?:s|ed|ing)?|wonder(?:s|ed|ing)?|doubt(?:s|ed|ing)?|"
    r"suspect(?:s|ed|ing)?|expect(?:s|ed|ing|ations?)?|anticipat(?:e|es|ed|ing|ion)|pretend(?:s|ed|ing)?|"
    r"guess(?:es|ed|ing)?|"
    r"(?:sure|certain|convinced|afraid) that)\b", re.IGNORECASE)
# A thing before the name, and a verb in the past after it: 'the hardback Meadowlark Bill left'.
_THING_BEFORE = re.compile(
    r"\b(?:the|a|an|this|these|those|his|her|their|its|[\w-]+['’]s)\s+"
    r"(?:(?!(?:to|of|for|with|at|in|on|by|from|and|or|as|then|is|was)\b)[\w'’-]+\s+){1,3}(?:that\s+|which\s+)?$",
    re.IGNORECASE)
_PAST = re.compile(r"^\s+(?:had\s+)?(?:[a-z]+ed|left|gave|made|took|brought|wrote|bought|sent|found|kept|put|set|got|"
                   r"lost|threw|stole|hid|drew|held|built|sold|won|told|said|chose|wore|broke|forgot|dropped|"
                   r"sang|spent|lent|ate|drank|paid|read|shot|saw)\b")
# A sentence that opens on another place than the heading's, then a break ('OUTSIDE - ...', 'THROUGH THE
# DOOR -- ...', 'Above them, Joe ...', 'Below, ...'): what it names is there.
_OPENINGS = (r"(?:windows?|doors?|doorway|glass|windshield|windscreen|crack|gap|keyhole|peephole|curtains?|blinds|"
             r"fence|bars|porthole|hatch|skylight|binoculars|telescope|(?:gun ?|rifle ?|sniper ?)?scope|lens|"
             r"viewfinder|periscope|night[- ]vision(?: glasses| goggles)?|goggles)")
_AWAY_OPENING = re.compile(
    rf"^\W*(?:(?P<out>outside)|(?P<in>inside)|(?P<through>(?:through|thru|out)\s+(?:of\s+)?(?:the\s+|a\s+|an\s+)?"
    rf"(?:[\w-]+\s+){{0,2}}?{_OPENINGS})|(?:high |far |down )?(?:above|below|beneath)|upstairs|downstairs|"
    r"next door|elsewhere|across the (?:street|road|way|hall|courtyard|square))"
    r"(?:\s+(?:the\s+|a\s+|an\s+)?(?:[\w'’-]+\s+){0,2}?[\w'’-]+)??\s*(?:[,:;]|--|—|–|\s-\s)", re.IGNORECASE)
# A locative after the name in its clause: 'Victor, outside on the porch, taps', 'by Tudor from high above'.
_AWAY_AFTER = re.compile(r"\b(?:(?P<out>outside)|(?:from\s+)?(?:high|far)\s+(?:above|below)|from (?:above|below)|"
                         r"(?:above|below)(?=\s*(?:$|[,.;:!?])))\b", re.IGNORECASE)
# Looking or going toward a place, not being there: 'Nora looks outside', 'Matt steps outside'.
_TOWARD = re.compile(r"\b(?:looks?|looking|peers?|peering|glances?|glancing|stares?|staring|gazes?|gazing|points?|"
                     r"pointing|calls?|calling|shouts?|shouting|yells?|yelling|steps?|stepping|goes|going|walks?|"
                     r"walking|runs?|running|heads?|heading|hurries|hurrying|rushes|rushing|moves?|moving|comes?|"
                     r"coming|slips?|storms?|darts?|wanders?|stumbles?|leads?|follows?|exits?|leaves?|climbs?|"
                     r"climbing|gets?|jumps?|races?|backs?|spills?|pulls?|drags?|carries|takes?)\b", re.IGNORECASE)
# Seen through an opening or a lens: 'looks through the glass-walled corridor ... and spots Ted'.
_THROUGH_OPENING = re.compile(rf"\b(?:through|thru|out)\s+(?:of\s+)?(?:the\s+|a\s+|an\s+|his\s+|her\s+|their\s+)?"
                              rf"(?:[\w-]+\s+){{0,2}}?{_OPENINGS}\b", re.IGNORECASE)
_SEES = re.compile(r"\b(?:sees?|seeing|spots?|spotting|spotted|watch(?:es|ing)?|notices?|noticing|glimpses?|eyes|"
                   r"observes?|(?:looks?|stares?|peers?|peeks?|gazes?|glances?) (?:at|up at|down at|over at))\s+",
                   re.IGNORECASE)
# Chinese: a name asked after ('武举人呢?'), or in a condition ('如果...胡万...').
_ZH_WHERE_IS = re.compile(r"^了?呢")
_ZH_NOT_SHOWN_BEFORE = re.compile(r"如果|要是|假如|假若|万一|是否|等到|直到")
# Chinese: a name the clause says is not found or not seen ('并未发现壮汉').
_ZH_NOT_FOUND = re.compile(r"(?:未|没有?|并未|并没有?|不曾)能?(?:发现|看到|看见|见到|找到|注意到)"
                           r"[^，。！？；,!?;]{0,6}$")
# Chinese: seen through a lens ('望远镜里张牧之').
_ZH_LENS = re.compile(r"(?:望远镜|瞄准镜|猫眼)(?:里|中|内)")
# Chinese places outside an enclosure, above one or on another floor: '屋外', '宅邸外', '房顶之上',
# '楼下'.
_ZH_AWAY = r"(?P<where>[\u3400-\u9fff]{0,6}?(?:[门窗屋房院室楼墙车宅邸店厅堂]外(?:面|边)?|之上|之外|顶上|楼[上下]))"
# A place someone comes from or goes to, not where they are: '从门外', '往屋外'.
_ZH_FROM = re.compile(r"[从自往向朝到出]")
_ZH_AWAY_OPENING = re.compile(rf"^\W*{_ZH_AWAY}")
_ZH_AWAY_AT = re.compile(rf"^(?:[\u3400-\u9fff]{{0,3}}?)在{_ZH_AWAY}")
# The name described by where it is: '楼下的老太太'.
_ZH_AWAY_BEFORE = re.compile(rf"{_ZH_AWAY}的$")


class Sight(Enum):
    """How a sentence shows a character it names."""

    IN_PERSON = "in_person"  # where the scene is
    ELSEWHERE = "elsewhere"  # in person, at another place than the heading's: outside, above, through a window
    HEARD = "heard"  # heard in the scene's world, not seen: 'We hear Esther scream', then 'Esther keeps screaming'
    SCREEN = "screen"  # on a screen, in a recording, as a voice from elsewhere
    PICTURE = "picture"  # in a still picture or in print
    ABSENT = "absent"  # said to be gone
    NAMED = "named"  # named only: an owner, after 'of', in a title, an insert or a dream


#: When a sentence names a character twice, the strongest sight counts.
_SIGHT_RANK = {Sight.IN_PERSON: 0, Sight.ELSEWHERE: 1, Sight.HEARD: 2, Sight.SCREEN: 3, Sight.PICTURE: 4,
               Sight.ABSENT: 5, Sight.NAMED: 6}


def _medium_sight(match: re.Match[str]) -> Sight:
    if match.groupdict().get("screen"):
        return Sight.SCREEN
    if match.groupdict().get("still"):
        return Sight.PICTURE
    return Sight.NAMED


def _quoted(text: str, start: int) -> bool:
    """True when offset `start` of a text lies inside double quotes (a title, a sign, a message)."""
    return text.count('"', 0, start) % 2 == 1 or text.count("“", 0, start) > text.count("”", 0, start)


def moves(verb: re.Pattern[str], text: str, name_end: int) -> bool:
    """True when the character named just before offset `name_end` is the subject of the verb.

    Chinese writes no spaces, so a verb further on may belong to someone named later
    ('程勇看着吕受益离开'): there, at most `_CJK_GAP` characters may come between name and verb
    ('程勇转身离开').
    """
    m = verb.search(text, name_end)
    if m is None:
        return False
    gap = text[name_end:m.start()]
    return bool(_SUBJECT_GAP.match(gap)) and not (_CJK.search(gap) and len(gap) > _CJK_GAP)


def leaves(text: str, name_end: int, place: str = "", *, name_start: int | None = None,
           exterior: bool = False) -> bool:
    """True when the character named just before offset `name_end` leaves the shot: the subject of
    a verb of leaving (`EXITS`), of 'go' or a manner of moving with a particle that takes them away
    (`_GOING`: 'goes up with the coat', 'has wandered off', 'get up and go'), of one of these
    'into' a place the heading does not name ('darts into the bathroom' in 'INT. DRESSING ROOM';
    'goes into the kitchen' in 'INT. KITCHEN' is no leaving), of 'head' for such a place ('heads
    back toward the first car'), or in an exterior of going in ('start filing in'). A subject at
    the head of its clause (`name_start` given) leaves by a verb joined to one of its own
    ('nods to Roberta, then exits'; 'curses, heads back toward the car').

    Args:
        text: The sentence.
        name_end: Where the character's name ends in it.
        place: The scene's place as its heading writes it (`Scene.location`).
        name_start: Where the name begins; when given and the name is its clause's subject, a
            verb of leaving after another verb phrase of the same subject counts.
        exterior: The heading is an exterior ('EXT.'): going in leaves it.
    """
    subject = name_start is not None and bool(_SUBJECT_BEFORE.search(text[:name_start]))

    def done(verb: re.Pattern[str]) -> re.Match[str] | None:
        m = verb.search(text, name_end)
        if m is None:
            return None
        gap = text[name_end:m.start()]
        joined = subject and bool(_COORDINATED_GAP.match(gap)) and not _SUBORDINATE.search(gap)
        if not joined and not moves(verb, text, name_end):
            return None
        return None if _NOT_DONE.search(gap) or _OBJECT_BEFORE.search(gap) else m

    if done(EXITS) or done(_GOING) or exterior and done(_GOES_IN):
        return True
    return any(m is not None and not _names_place(m.group("place"), place) for m in (done(_INTO), done(_HEADS_FOR)))


Span = tuple[int, int, str]  # (start, end, canonical character name) in a sentence
_INDEFINITE_BEFORE = re.compile(r"(?<![\w'’-])(?:a|an|A|An)\s+$")


@dataclass(frozen=True)
class ActionSentence:
    """One sentence of an action element, with the characters it names and its noun phrases."""

    element: Element
    text: str
    spans: list[Span]
    phrases: list[Phrase]
    place: str = ""
    """The place of the sentence's scene as its heading writes it (`Scene.location`): a sentence
    that names it is not elsewhere ('Outside, ... on the back porch' in 'INT. THE BACK PORCH')."""
    int_ext: str | None = None
    """INT or EXT of the heading: 'outside' is elsewhere only for an interior, 'inside' for an exterior."""

    def shown(self) -> list[str]:
        """Characters the sentence shows in person (`Sight.IN_PERSON`, see `sights`)."""
        return [name for name, sight in self.sights().items() if sight is Sight.IN_PERSON]

    def sights(self) -> dict[str, Sight]:
        """How the sentence shows each character it names, in the order named.

        In person unless: named only as an owner ('Neil's desk') or after 'of', 'about', 'for'
        ('a story about Sarah'); inside quotes (across the sentences of the paragraph) or in an
        insert, a flash cut or a dream (`Sight.NAMED`); in what a medium shows (the sentence
        opens on it, the name is its complement or is on or in it, or appears after a screen is
        named: `Sight.SCREEN` for a screen or a recording, `Sight.PICTURE` for a still picture
        or print, and print after a label's colon); said to be gone (`Sight.ABSENT`); asked
        about, supposed, waited for or in a past relative clause, or in a sentence in the first
        person (a misread speech: `Sight.NAMED`); heard, not seen ('We hear Esther ...', a
        character named a voice: `Sight.HEARD`), or shown at another place (`Sight.ELSEWHERE`;
        see the module docstring). Chinese sentences: `_sights_chinese`.
        """
        frame = None if _CJK.search(self.text) else _FRAME.match(self.text) or self._slug_frame()
        if (_NOT_HERE.match(self.element.text) or _NOT_HERE.match(self.text)) and not (frame and frame.group("screen")):
            return {name: Sight.NAMED for _, _, name in self.spans}
        if _CJK.search(self.text):
            return self._sights_chinese()
        at = max(self.element.text.find(self.text), 0)
        label = _LABEL.search(self.text)
        voice_over = bool(_VOICE_OVER.search(self.text))
        asked = max(self.text.rfind(":"), self.text.rfind(")")) + 1 if _QUESTION.search(self.text) else None
        opening = self._opens_elsewhere()
        speech = self._speech_from()
        out: dict[str, Sight] = {}
        for s, e, name in self.spans:
            if speech is not None and s >= speech:
                sight = self._sight_in_speech(s, e, speech)
            elif _quoted(self.element.text, at + s) or asked is not None and s >= asked:
                sight = Sight.NAMED
            elif frame is not None:
                sight = _medium_sight(frame)
            else:
                sight = self._sight(s, e, label, voice_over)
                if sight is Sight.IN_PERSON and (opening is not None and s >= opening or self._placed_elsewhere(s, e)):
                    sight = Sight.ELSEWHERE
            if sight is Sight.IN_PERSON and names_a_voice(name):
                sight = Sight.HEARD  # 'A RECORDED VOICE answers': a voice is heard, not seen
            if name not in out or _SIGHT_RANK[sight] < _SIGHT_RANK[out[name]]:
                out[name] = sight
        return out

    def _speech_from(self) -> int | None:
        """Where a speech the reader took for action begins in the sentence ('BERLIN Ross was my
        best friend.', 'ON GRACE - IN THE STANDS . Debbie turns to her. GRACE I didn't even know'):
        at the last name in capitals before the first person speaks (its cue), or at the start of
        the sentence; None when no one speaks in the first person."""
        offset = max(self.element.text.find(self.text), 0)
        at = _first_person_at(self.text, lambda i: _quoted(self.element.text, offset + i))
        if at is None:
            return None
        cues = [s for s, e, _ in self.spans if e <= at and self.text[s:e].isupper() and e - s > 1]
        return cues[-1] if cues else 0

    def _sight_in_speech(self, s: int, e: int, start: int) -> Sight:
        """In a speech the reader took for action, beginning at `start`: its cue (the name in capitals
        there) is the speaker, there; one it calls by name at its edge ('Mr Travis, I think ...') is
        there too; everyone else it names is talked about."""
        written = self.text[s:e]
        if s == start and written.isupper() and len(written) > 1:
            return Sight.IN_PERSON
        before, after = self.text[start:s], self.text[e:]
        called = (_CALLED_BEFORE.match(before) and re.match(r"\s*,", after)
                  or re.search(r",\s*$", before) and re.match(r"\s*[.!?]+[\"'”’]?\s*$", after))
        return Sight.IN_PERSON if called else Sight.NAMED

    def _misread_cue(self, s: int, e: int) -> Sight | None:
        """How a cue the reader left in the action is heard ('GUERILLA #2 (O.S. RADIO FILTER) Drug
        store.'): the name in capitals, then an extension of a voice from elsewhere (`Sight.SCREEN`)
        or from out of frame (`Sight.HEARD`); None for anything else."""
        written = self.text[s:e]
        if not written.isupper() or len(written) < 2:
            return None
        at = max(self.element.text.find(self.text), 0)
        m = _CUE_EXTENSION.match(self.element.text[at + e:])
        if m is None:
            return None
        ext = m.group("ext").strip()
        if extension_through([ext]) or voice_is_away([ext]) or through_medium([ext]):
            return Sight.SCREEN
        return Sight.HEARD

    def opens_on_screen(self) -> bool:
        """Whether the sentence opens on a screen ('CLOSE ON TV, Murray ...', 'ON TV Pete is reporting')."""
        if _CJK.search(self.text):
            return False
        frame = _FRAME.match(self.text) or self._slug_frame()
        return frame is not None and bool(frame.group("screen"))

    def _slug_frame(self) -> re.Match[str] | None:
        """The opening on a medium of a sentence written as a slug in capitals with no stop before
        the name it shows ('ON TV Pete Fineman is reporting.', 'ON A MONITOR EVAN reads the news'), or None."""
        m = _SLUG_OPENING.match(self.text)
        if m is None or not m.group(0).strip().isupper():
            return None
        return m if any(s == m.end() for s, _, _ in self.spans) else None

    def _sight(self, s: int, e: int, label: re.Match[str] | None, voice_over: bool) -> Sight:
        """How the name at text[s:e] is shown, in a sentence that does not open on a medium."""
        before, after = self.text[:s], self.text[e:]
        heard = self._misread_cue(s, e)
        if heard is not None:
            return heard
        if after[:2].lower() in ("'s", "’s") and not (_IS.match(after[2:]) and _OPENS.match(before)):
            return Sight.NAMED
        if label is not None and s >= label.end():
            return _medium_sight(label)
        of = self._medium_of(before, after)
        if of is not None:
            return _medium_sight(of)
        if _NOT_SHOWN_BEFORE.search(before) or _not_shown_clause(before) or _past_relative(before, after):
            return Sight.NAMED
        on = _ON_MEDIUM.match(after)
        if on is not None and (not _AFTER_PREPOSITION.search(before) or _CAMERA_OPENING.match(before)):
            paren = on.group("paren")
            if paren is None:
                return _medium_sight(on)
            if _SCREEN_WORD.search(paren):
                return Sight.SCREEN
            if _STILL_WORD.search(paren):
                return Sight.PICTURE
        if _APPEARS.match(after) and _SCREEN_WORD.search(before):
            return Sight.SCREEN
        identified = _IDENTIFIED.search(before)
        if identified is not None and identified.group("noun"):
            shown = self._shown_on_medium(before, identified.group("noun"))
            if shown is not None:
                return shown  # 'On the photograph a man and a girl. The man is Ben.'
        elif identified is not None:
            shown = self._medium_before(before)
            if shown is not None:
                return shown  # 'The footage zooms in on a traveller. It is Stanley.'
        if _ANSWERS.match(after) and self._call_placed(before):
            return Sight.SCREEN  # 'Gabriel pulls on his headset. Joy answers.': at the other end
        if _GONE.match(after):
            return Sight.ABSENT
        if _WE_HEAR.search(before):
            return Sight.HEARD
        if voice_over:
            return Sight.SCREEN
        return Sight.IN_PERSON

    def _medium_of(self, before: str, after: str) -> re.Match[str] | None:
        """The medium whose complement the name is (`_MEDIUM_OF`), or None: at most twelve words
        and no new clause between; print only by or on the name or the list it ends ('articles by
        Melanie', 'a file on Bourne and Abbott'); across a semicolon only into an item with no
        finite verb ('pictures of Edward; memorabilia of all things Edward')."""
        of = _MEDIUM_OF.search(before)
        if of is None:
            return None
        between = of.group("between")
        link = (of.group("link") or "").lower()
        if _CLAUSE_BREAK.search(between) or len(between.split()) > 12:
            return None
        if link in ("by", "on") and not (of.group("still") and _NAME_LIST.match(between)):
            return None
        if ";" in between:
            item = between.rsplit(";", 1)[1] + " " + re.split(r"[;.!?]", after, maxsplit=1)[0]
            if any(m.group(0).lower() in VERB_FORMS | _BE_HAVE for m in _FINITE.finditer(item.lower())):
                return None
        return of

    def _context(self, before: str) -> str:
        """The sentence before this one in its element (a piece with fewer than three words, an
        initial cut off as 'A.D.', is not one), then this one up to `before`'s end."""
        at = max(self.element.text.find(self.text), 0)
        earlier = [t for t in sentences(self.element.text[:at]) if len(re.findall(r"\w+", t)) >= 3]
        return (earlier[-1] + " " if earlier else "") + before

    def _medium_before(self, before: str) -> Sight | None:
        """What shows the one a sentence identifies ('It is Stanley.', 'it is no longer Reisman'):
        a screen or a voice through a device named before it, in the sentence or the one before
        ('The footage zooms in on one of two travelers.', "Reisman's dialogue comes out of the
        SPEAKER", or an image that appears: 'The IMAGE appears.'), or a still picture; None when
        none is named (the door opens: it is Stanley)."""
        context = self._context(before)
        if _SCREEN_WORD.search(context) or _CALL_WORD.search(context):
            return Sight.SCREEN
        stills = list(_STILL_WORD.finditer(context))
        if any(_APPEARS.match(context[m.end():]) for m in stills):
            return Sight.SCREEN  # 'The IMAGE appears. It's Marla': a picture that comes into view plays on a screen
        return Sight.PICTURE if stills else None

    def _shown_on_medium(self, before: str, noun: str) -> Sight | None:
        """What shows the one a sentence identifies by a noun ('The man is Ben'): a medium named
        before that noun in the same sentence, this one or the one before ('On the photograph a
        naked man and a girl'), or None (the door opens; a man comes in: the man is Ben)."""
        for clause in re.split(r"[.!?]+", self._context(before)):
            m = re.search(rf"\b(?:(?P<screen>{SCREEN_MEDIA})|(?P<still>{STILL_MEDIA}))\b.*\b{noun}\b(?!\s+is\b)",
                          clause, re.IGNORECASE)
            if m is not None:
                return _medium_sight(m)
        return None

    def _call_placed(self, before: str) -> bool:
        """Whether a call is made from here right before someone answers: a phone, a headset or a
        radio named in the sentence or the one before, and nothing ringing ('The phone rings. Bob
        answers.' answers it here)."""
        context = self._context(before)
        return bool(_CALL_WORD.search(context)) and not _RINGS.search(context)

    def _unnamed(self) -> str:
        """The sentence without the characters' names: a name is no place ('Tudor' of 'GROUNDS BELOW
        TUDOR'S BALCONY')."""
        text = self.text
        for s, e, _ in self.spans:
            text = text[:s] + " " * (e - s) + text[e:]
        return text

    def _opens_elsewhere(self) -> int | None:
        """Where the names placed elsewhere begin, when the sentence opens on another place than the
        heading's ('OUTSIDE - Tanner and Garcetti hear the gunfire' in an interior, 'THROUGH THE DOOR
        -- ...', 'Above them, Joe ...', 'Below, ...'): the end of that opening, or None."""
        m = _AWAY_OPENING.match(self.text)
        if m is None or _names_place(self._unnamed(), self.place):
            return None
        if m.group("out") and self.int_ext != "INT" or m.group("in") and self.int_ext != "EXT":
            return None
        if m.group("through") and _SEES.search(self.text, m.end()):
            return None  # 'Through the window, Anna sees Tom': who sees is here, what is seen is not
        return m.end()

    def _placed_elsewhere(self, s: int, e: int) -> bool:
        """Whether the name's own clause places it off the heading's place: a locative adverb after
        it ('Victor, outside on the porch, taps', '... by Tudor from high above'; 'outside' only in
        an interior, and not after a verb of looking or going, 'Nora looks outside', 'Matt steps
        outside'), or it is what someone sees through a window, a door or a lens ('Ruth looks
        through the window and spots Clara'). A sentence that names the heading's place places no
        one elsewhere ('We're high above the road, following the Sheriff's cruiser below')."""
        before, after = self.text[:s], self.text[e:]
        clause = _clause_after(after)
        m = _AWAY_AFTER.search(clause)
        if (m is not None and not _TOWARD.search(clause[:m.start()]) and not _names_place(self._unnamed(), self.place)
                and (not m.group("out") or self.int_ext == "INT")):
            return True
        return bool(_THROUGH_OPENING.search(self.text)) and bool(_SEES.search(_clause_before(before)))

    def _sights_chinese(self) -> dict[str, Sight]:
        """Chinese: not in an insert or flashback, nor only as an owner or a caller ('孙悟空的面具',
        '眼镜打给他'), nor inside a longer word ('律师函') (`Sight.NAMED`); after a screen or
        picture word, on a screen ('监控画面中，沙僧...') or in a photograph ('照片上')."""
        if ZH_ELSEWHERE.search(self.text[:6]):
            return {name: Sight.NAMED for _, _, name in self.spans}
        out: dict[str, Sight] = {}
        for s, e, name in self.spans:
            screen = next(reversed(list(_ZH_SCREEN.finditer(self.text[:s]))), None)
            if (_ZH_NOT_SHOWN_AFTER.match(self.text[e:]) or inside_word(self.text, s, e)
                    or _zh_asked(self.text, e) or _ZH_NOT_SHOWN_BEFORE.search(self.text[:s])
                    or _ZH_NOT_FOUND.search(self.text[:s])):
                sight = Sight.NAMED
            elif screen is not None:
                sight = Sight.PICTURE if screen.group(0) == "照片" else Sight.SCREEN
            elif _ZH_LENS.search(self.text[:s]) or self._zh_elsewhere(s, e):
                sight = Sight.ELSEWHERE
            else:
                sight = Sight.IN_PERSON
            if name not in out or _SIGHT_RANK[sight] < _SIGHT_RANK[out[name]]:
                out[name] = sight
        return out

    def _zh_elsewhere(self, s: int, e: int) -> bool:
        """Chinese: the sentence opens on a place outside, above or on another floor ('房顶之上，
        胡万...', '宅邸外围着...民众'), or the name is there ('老师乙在屋外敲门', '楼下的老太太'), and
        the heading does not name that place; '外' (outside) is elsewhere only in an interior."""
        for m in (_ZH_AWAY_OPENING.match(self.text[:s]), _ZH_AWAY_AT.match(self.text[e:]),
                  _ZH_AWAY_BEFORE.search(self.text[:s])):
            if m is None or _ZH_FROM.search(m.group(0)):
                continue  # '众兄弟从门外出现': where they come from
            where = m.group("where")
            if _names_place(where.rstrip("之上").rstrip("外面边"), self.place) or (
                    "外" in where[-3:] and self.int_ext != "INT"):
                continue
            return True
        return False


def said_in_first_person(text: str) -> bool:
    """Whether an English action sentence speaks in the first person singular outside quotes ('Ross
    was my best friend.', "I'm going in to see Citrine."): action is written in the third person
    (and 'we' is the audience), so this is a speech the reader took for action. A sentence in
    capitals is a slug or a sound, not read so."""
    return _first_person_at(text) is not None


def _first_person_at(text: str, quoted: Callable[[int], bool] | None = None) -> int | None:
    """Where the first person singular first speaks in a sentence outside quotes (those of the
    sentence, or where `quoted` says an offset is inside quotes); None if nowhere."""
    bare = _QUOTED_PART.sub(lambda m: " " * len(m.group(0)), text) if quoted is None else text
    if bare.isupper():
        return None
    return next((m.start() for m in _FIRST_PERSON.finditer(bare) if quoted is None or not quoted(m.start())), None)


def _clause_before(before: str) -> str:
    """The part of the text before a name that is in the name's own clause."""
    cuts = list(_CLAUSE_START.finditer(before))
    return before[cuts[-1].end():] if cuts else before


def _clause_after(after: str) -> str:
    """The rest of the name's clause after it (an apposition right after the name is in it:
    'Victor, outside on the porch, taps')."""
    m = _CLAUSE_START.search(after, 1 if after[:1] == "," else 0)
    return after[:m.start()] if m else after


def _not_shown_clause(before: str) -> bool:
    """Whether the name's clause is one someone asks, supposes, fears or waits for ('to see if
    Kresimir is still there', 'certain that Rollo ... must be', 'until St. Luc comes')."""
    clause = _clause_before(before)
    return bool(_IF.search(clause) or _SUPPOSES.search(clause))


def _past_relative(before: str, after: str) -> bool:
    """Whether the name is the subject of a relative clause in the past that tells of a thing
    ('the hardback Meadowlark Bill left', 'the note that Anna wrote'): the thing is shown, not them."""
    return bool(_THING_BEFORE.search(before) and _PAST.match(after))


def _names_place(text: str, place: str) -> bool:
    """Whether a text names the scene's place: a word of four letters or more of it ('on the back
    porch' in 'THE BACK PORCH'), or in Chinese the text is part of it ('门' of '县衙门外')."""
    if not text or not place:
        return False
    if _CJK.search(text):
        return text in place
    words = {w.casefold() for w in re.findall(r"[A-Za-z]{4,}", place)}
    return any(w.casefold() in words for w in re.findall(r"[A-Za-z]{4,}", text))


def _zh_asked(text: str, end: int) -> bool:
    """Chinese: the name is asked after ('武举人呢?') or is in a question ('...胡万过去...不一样?')."""
    rest = text[end:]
    if _ZH_WHERE_IS.match(rest):
        return True
    stop = re.search(r"[。！!；;：:？?]", rest)
    return stop is not None and stop.group(0) in "？?"


def through_medium(notes: Iterable[str]) -> bool:
    """Whether a speech's cue extensions or parentheticals put the voice over, through or on a
    medium: '(V.O.)', '(OVER PHONE)', '(ON TV)', '(ON MONITORS)', '(ON MACHINE)', '(FILTERED)',
    '(on speaker)', '（电话里）'. A speaker talking into a phone or a radio ('(into phone)') is
    in the scene, and so is one '(on the phone)': that says how they talk, not where from.

    Example:
        >>> through_medium(["OVER PHONE"]), through_medium(["into phone; low"])
        (True, False)
    """
    for note in notes:
        for part in re.split(r"[;,/]", note.strip().strip("()（）")):
            part = part.strip()
            if part and (_THROUGH.match(part) or _ZH_THROUGH.search(part)):
                return True
    return False


def speech_notes(scene: Scene, speech: Speech) -> list[str]:
    """The cue extensions and the parentheticals of a speech (and a Chinese line's opening
    parenthesis, '（电话里）程老板...')."""
    notes = [*speech.cue.extensions]
    start = next((i for i, el in enumerate(scene.elements) if el is speech.cue), len(scene.elements))
    for el in scene.elements[start + 1:]:
        if el.kind is ElementKind.PARENTHETICAL:
            notes.append(el.text)
        elif el.kind is not ElementKind.DIALOGUE:
            break
    opening = re.match(r"^\s*[(（]([^)）]{1,12})[)）]", speech.first_line.text) if speech.lines else None
    if opening:
        notes.append(opening.group(1))
    return notes


@dataclass(frozen=True)
class SceneSights:
    """How one scene shows its characters, sentence by sentence and speech by speech."""

    sentences: list[dict[str, Sight]]
    """Per action sentence (in the order given), how it shows each character it names."""
    away: list[bool]
    """Per speech (in the order given): heard from elsewhere, not said where the scene is."""


def scene_sights(scene: Scene, sents: Sequence[ActionSentence], speeches: Sequence[Speech]) -> SceneSights:
    """How a scene shows its characters: each sentence's `ActionSentence.sights`, and whether
    each speech is heard from elsewhere (`Speech.away`, or `through_medium`), with what the
    scene showed before carried on (see the module docstring).

    Args:
        scene: The scene.
        sents: Its action sentences, in text order.
        speeches: Its speeches, in order.

    Returns:
        The sights and the speeches heard from elsewhere.

    Example:
        >>> sights = scene_sights(scene, sentences, speeches)  # doctest: +SKIP
        >>> sights.sentences[0]  # doctest: +SKIP
        {'Murray Franklin': <Sight.SCREEN: 'screen'>}
    """
    items: list[tuple[int, int, int, int]] = []  # (line, offset, 0 sentence / 1 speech / 2 transition, index)
    for i, sent in enumerate(sents):
        items.append((sent.element.line_start, max(sent.element.text.find(sent.text), 0), 0, i))
    for i, speech in enumerate(speeches):
        items.append((speech.cue.line_start, 0, 1, i))
    items.extend((el.line_start, 0, 2, 0) for el in scene.elements if el.kind is ElementKind.TRANSITION)
    first: dict[str, str] = {}  # character -> how first seen or heard: 'person', 'medium', 'narration', 'offscreen'
    in_person: set[str] = set()
    out_sents: list[dict[str, Sight]] = [{} for _ in sents]
    away = [False] * len(speeches)
    told = False  # the action has told of a call or a screen so far
    framed = False  # a slug opened on a screen ('ON A TV MONITOR') and no other shot or transition came since
    screened: set[str] = set()  # first given on a screen the action framed, until the next shot or transition
    call = ""  # a call from here: '' none, 'told' (a phone named or ringing), 'open' (someone here took it up)
    all_sights = [sent.sights() for sent in sents]
    shown = {name for seen in all_sights for name, sight in seen.items() if sight is Sight.IN_PERSON}
    addressed = {m.group("whom").casefold() for speech in speeches for d in speech.directions
                 if (m := _TO.match(d.text))}

    def new_shot() -> None:
        for name in screened - in_person:
            if first.get(name) == "medium":
                del first[name]  # 'ON THE MONITOR: ... IN THE ROOM ... EVAN BAXTER': off the screen now
        screened.clear()

    for _, _, what, i in sorted(items):
        if what == 2:
            framed = False
            call = ""
            new_shot()
            continue
        if what == 1:
            speech = speeches[i]
            notes = speech_notes(scene, speech)
            extensions = speech.cue.extensions
            medium = through_medium(notes) or extension_through(extensions) or any(
                voice_is_away([x]) and not _NARRATION.match(x.strip()) for x in extensions)
            # A voice the action has told of a call or a screen before ('A PRERECORDED VOICE ANSWERS').
            voiced = told and names_a_voice(speech.cue.speaker or "") and not voice_is_offscreen(extensions)
            direct = speech.away or medium or voiced or any(_NARRATION.match(n.strip().strip("()")) for n in notes)
            into = any(_INTO_DEVICE.match(n.strip()) for n in notes)
            if framed and speech.speaker not in first:
                screened.add(speech.speaker)
            far = (call == "open" and not into and speech.speaker not in first and not speech.offscreen
                   and _far_end(speech, shown, addressed))
            first.setdefault(speech.speaker, "medium" if medium or direct and told or framed or far else
                             "narration" if direct else "offscreen" if speech.offscreen else "person")
            away[i] = direct or (first[speech.speaker] == "medium" and speech.speaker not in in_person)
            if not away[i] and not speech.offscreen:
                in_person.add(speech.speaker)
                if into:
                    call = "open"  # '(into phone)': who is first heard next is at the other end
            continue
        sent = sents[i]
        told = told or bool(_CALL_OR_SCREEN.search(sent.text))
        call = _call_after(call, sent.text)
        slug = _leading_slug(sent.text)
        if slug:
            framed = _screen_slug(slug)
            if not framed:
                call = ""
                new_shot()
        elif _screen_opening(sent.text):
            framed = True  # 'ON THE TV is the news segment: ...': the shot is of the screen
        on_screen = sent.opens_on_screen()
        seen = dict(all_sights[i])
        for name, sight in seen.items():
            if sight is Sight.IN_PERSON:
                start, end = next((s, e) for s, e, n in sent.spans if n == name)
                behind = first.get(name) in ("medium", "offscreen") and name not in in_person
                if behind and first[name] == "medium" and not moves(ENTERS, sent.text, end):
                    seen[name] = Sight.SCREEN  # the broadcast or the call goes on
                elif behind and (_VOICE_AFTER.match(sent.text[end:]) or _SOUND_FROM.search(sent.text[:start])):
                    seen[name] = Sight.HEARD  # still only heard ('Esther continues to scream')
                else:
                    first.setdefault(name, "person")
                    in_person.add(name)
            elif sight is Sight.SCREEN:
                if on_screen and name not in first:
                    screened.add(name)
                first.setdefault(name, "medium")
            elif sight is Sight.HEARD and told and names_a_voice(name):
                seen[name] = Sight.SCREEN  # 'He dials. A RECORDED VOICE answers.': through the call
                first.setdefault(name, "medium")
            elif sight is Sight.HEARD:
                first.setdefault(name, "offscreen")
        out_sents[i] = seen
    return SceneSights(out_sents, away)


def _call_after(call: str, text: str) -> str:
    """The state of a call from the scene after an action sentence: it ends when someone hangs up;
    it is open when someone answers once a phone is named or rings ('His cell phone rings. He
    answers.') or takes the device up ('Sonny takes the phone', 'takes the receiver'); a phone
    named or ringing tells of one."""
    if _HANGS_UP.search(text):
        return ""
    device = bool(_CALL_WORD.search(text) or _RECEIVER.search(text))
    if _ANSWERING.search(text) and (call or device) or _TAKES.search(text) and device:
        return "open"
    if device:
        return call or "told"
    return call


def _far_end(speech: Speech, shown: set[str], addressed: set[str]) -> bool:
    """Whether a speaker first heard on a call open from the scene is at its other end: the
    scene's action never shows them in person, and nobody here speaks to them ('(to KAYLO)')."""
    if speech.speaker in shown:
        return False
    words = {w.casefold() for w in re.findall(r"[\w'’.-]+", f"{speech.speaker} {speech.cue.speaker or ''}")}
    return not words & addressed


def _screen_opening(text: str) -> bool:
    """Whether a sentence opens, in capitals, on a screen and runs on ('ON THE TV is the news
    segment: ...'): a shot of the screen, as a slug would be."""
    m = _SLUG_OPENING.match(text.strip())
    return m is not None and bool(m.group("screen")) and m.group(0).strip().isupper()


def _leading_slug(text: str) -> str:
    """The slug in capitals a sentence is or opens with ('IN THE ROOM', 'ON A TV MONITOR'; 'IN THE
    ROOM The meeting is in progress.' where a reader ran it into the action), or ''."""
    text = text.strip()
    m = re.match(r"^\W*([^a-z]{2,60}?)(?:\s+(?=[A-Z][a-z])|$)", text)
    slug = m.group(1).strip() if m else ""
    return slug if slug and _SHOT.match(slug) and any(c.isalpha() for c in slug) else ""


def _screen_slug(text: str) -> bool:
    """Whether a sentence is a slug that opens on a screen and nothing more ('ON A TV MONITOR',
    'CLOSE ON THE TELEVISION:'): the speeches after it are heard from that screen until another
    slug or a transition."""
    m = _FRAME.match(text.strip())
    return m is not None and bool(m.group("screen")) and not text.strip()[m.end():].strip(" .:;-—–")


def scene_place(scene: Scene) -> str:
    """The place of a scene as its heading writes it (its location parts), for `ActionSentence.place`."""
    return " / ".join(scene.location) if scene.location else scene.heading


def is_chinese(scene: Scene) -> bool:
    """True when the scene is written in Chinese."""
    return any(_CJK.search(el.text) for el in scene.elements[:6])


def name_spans(sentence: str, patterns: dict[str, re.Pattern[str]]) -> list[Span]:
    """Where each character is named in a text, by offset; the longer name wins an overlap. A name
    after an indefinite article is a common noun with a capital ('pulls a Tooth from under a
    pillow' names no Tooth Fairy): a proper name takes none; one in capitals is introduced ('A
    NURSE enters'), and a character named by a kind is one of that kind ('a Yeti' of Yeti)."""
    found = []
    for name, pattern in patterns.items():
        for m in pattern.finditer(sentence):
            if (m.group().isupper() or m.group().casefold() == name.casefold()
                    or not _INDEFINITE_BEFORE.search(sentence, 0, m.start())):
                found.append((m.start(), m.end(), name))
    found.sort()
    kept: list[Span] = []
    for span in found:  # the longer name wins where two overlap
        if kept and span[0] < kept[-1][1]:
            if span[1] - span[0] > kept[-1][1] - kept[-1][0]:
                kept[-1] = span
            continue
        kept.append(span)
    return kept


def _name_forms(cast: Cast) -> frozenset[str]:
    """Every way a character's name or a name part is written (capitals and title case)."""
    forms = set()
    for surface, canonical in cast.canonical.items():
        for name in (surface, canonical):
            for token in name.split():
                forms |= {token, token.upper(), token.title()}
    return frozenset(forms)


@dataclass(frozen=True)
class ReadScript:
    """Every scene's action sentences, and the verbs the script uses."""

    sentences: dict[int, list[ActionSentence]]
    verbs: frozenset[str]


def read_sentences(screenplay: Screenplay, cast: Cast, patterns: dict[str, re.Pattern[str]]) -> ReadScript:
    """Per scene index, its action sentences with the characters they name and their phrases."""
    texts = {
        scene.index: [(el, s) for el in scene.elements if el.kind is ElementKind.ACTION
                      for s in sentences(el.text)]
        for scene in screenplay.scenes
    }
    settings = {scene.index: (scene_place(scene), scene.int_ext) for scene in screenplay.scenes}
    names = _name_forms(cast)
    verbs = learn_verbs([s for scene in texts.values() for _, s in scene], names)
    read = {
        index: [ActionSentence(el, s, name_spans(s, patterns),
                               [] if _CJK.search(s) else noun_phrases(s, verbs=verbs, names=names),
                               *settings[index])
                for el, s in scene]
        for index, scene in texts.items()
    }
    return ReadScript(read, verbs)
