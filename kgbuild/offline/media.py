"""The media a character is heard or seen through, and what a cue's own words say of them.

The nouns of the media are closed classes (a call, a radio, a screen, a photograph, print); the
reading of action sentences by them is `kgbuild.offline.scenes`. A cue says how its speaker is
heard too, in the same words, in its extensions or in its name:

- an extension that runs several notes together without a comma names the medium among them
  ('(O.S. RADIO FILTER)', '(V.O. OVER PHONE)'): the voice comes through it (`extension_through`);
- a name whose head noun is a voice or a narrator ('COMPUTERIZED VOICE', 'FEMALE VOICE', 'TV
  NARRATOR') is heard, not seen: a voice is out of frame (`names_a_voice`), a narrator speaks from
  outside the scene's place (`names_a_narrator`);
- a name that is a device of the media ('TELEVISION SET', 'THE LOUDSPEAKERS', 'VIDEO MONITOR')
  is no one: what it plays is a broadcast or a recording (`names_a_device`). A numbered cue
  ('SPEAKER #2') and a lone 'SPEAKER' (one who gives a speech) are people.

Example:
    >>> extension_through(["O.S. RADIO FILTER"]), names_a_device("TELEVISION SET"), names_a_voice("FEMALE VOICE")
    (True, True, True)
"""

from __future__ import annotations

import re
from collections.abc import Iterable

#: Voices: a call, a radio, a speaker, a machine that plays a message.
VOICE_MEDIA = (r"(?:(?:tele|cell|mobile |smart|speaker ?|car |pay ?)?phones?|cells?|radios?|walkie(?:[- ]?talkies?)?|"
               r"intercoms?|(?:loud)?speakers?|comms?|comlinks?|communicators?|headsets?|earpieces?|"
               r"(?:answering )?machines?|voice ?-?mails?)")
#: Live or recorded pictures: a screen and what plays on it.
SCREEN_MEDIA = (r"(?:tvs?|t\.v\.|televisions?|(?:view|video|tv|big |split |computer )?screens?|monitors?|videos?|"
                r"video ?tapes?|footage|holo[\w-]*(?: (?:images?|representations?|projections?|figures?))?|"
                r"projections?|webcams?|feeds?|broadcasts?|newsreels?|computers?|laptops?|tablets?|"
                r"transmissions?|recordings?|tapes?)")
#: Still pictures and print.
STILL_MEDIA = (r"(?:photos?|photographs?|pictures?|snapshots?|polaroids?|portraits?|posters?|paintings?|drawings?|"
               r"sketch(?:es)?|images?|billboards?|murals?|signs?|marquees?|letters?|cards?|notes?|signatures?|"
               r"headlines?|newspapers?|papers?|magazines?|articles?|yearbooks?|albums?|pages?|labels?|plaques?|"
               r"banners?|flyers?|captions?|chyrons?|displays?|messages?|texts?|e-?mails?|postcards?|wallpapers?|"
               r"clippings?|cuttings?|files?|dossiers?|folders?|reports?)")

_MEDIUM_WORD = re.compile(rf"^(?:{VOICE_MEDIA}|{SCREEN_MEDIA})$", re.IGNORECASE)
# The marks a cue extension may run together with a medium ('O.S. RADIO FILTER').
_MARKS = re.compile(r"^(?:O\.?\s?S\.?|O\.?\s?C\.?|V\.?\s?O\.?|OS|OC|VO|OFF|CONT['’]?D|CONT\.?|PRE-?LAP)$",
                    re.IGNORECASE)
# What is left of the extension: a medium, heard over, through or on it, or filtered by it ('RADIO FILTER').
_THROUGH_WORDS = re.compile(
    rf"^(?:(?:over|through|thru|via|from|on)\s+(?:the\s+|a\s+)?)?(?:(?!(?:into|in|to|at|toward|towards|by|with|near|"
    rf"holding|holds|grabs|picks)\b)[\w-]+\s+)?(?:{VOICE_MEDIA}|{SCREEN_MEDIA})"
    r"(?:\s+(?:filter(?:ed)?|voice))?$|^filter(?:ed)?$", re.IGNORECASE)
# A cue's head noun that is a voice, or a narrator's.
_VOICE_HEAD = re.compile(r"(?:^|[\s/-])VOICES?$", re.IGNORECASE)
_NARRATOR_HEAD = re.compile(r"(?:^|[\s/-])NARRAT(?:OR|ORS|ION)$", re.IGNORECASE)
# A determiner before a device's name, and what may follow its noun ('TELEVISION SET', 'P.A. SYSTEM').
_DEVICE_DET = re.compile(r"^(?:THE|A|AN)\s+", re.IGNORECASE)
_DEVICE_TAIL = re.compile(r"\s+(?:SETS?|SYSTEMS?)$", re.IGNORECASE)


def extension_through(extensions: Iterable[str]) -> bool:
    """Whether a cue extension that runs several notes together names the medium the voice comes
    through ('O.S. RADIO FILTER', 'V.O. OVER PHONE'): its words after the usual marks (O.S.,
    V.O., CONT'D) are a medium, heard over or on it, or filtered; not one spoken into ('INTO
    PHONE': the speaker is there).

    Example:
        >>> extension_through(["O.S. RADIO FILTER"]), extension_through(["INTO PHONE"])
        (True, False)
    """
    for ext in extensions:
        words = ext.strip().strip("()").split()
        while words and _MARKS.match(words[0]):
            words = words[1:]
        if words and _THROUGH_WORDS.match(" ".join(words)):
            return True
    return False


def names_a_voice(cue: str) -> bool:
    """Whether a cue's name is a voice ('VOICE', 'COMPUTERIZED VOICE', 'FEMALE VOICE'): heard, not seen."""
    return bool(_VOICE_HEAD.search(cue.strip()))


def names_a_narrator(cue: str) -> bool:
    """Whether a cue's name is a narrator ('NARRATOR', 'TV NARRATOR'): a voice from outside the
    scene's place, speaking to no one in it."""
    return bool(_NARRATOR_HEAD.search(cue.strip()))


def names_a_device(cue: str) -> bool:
    """Whether a cue names a device of the media, not a person ('TELEVISION SET', 'THE LOUDSPEAKERS',
    'VIDEO MONITOR', 'RADIO'): every word of it is a medium's (a determiner first, 'SET' or 'SYSTEM'
    last). A numbered cue ('SPEAKER #2'), a lone 'SPEAKER' (one who gives a speech) and a hologram
    (someone's image) are not devices.

    Example:
        >>> names_a_device("THE LOUDSPEAKERS"), names_a_device("HALL MONITOR"), names_a_device("SPEAKER")
        (True, False, False)
    """
    name = _DEVICE_TAIL.sub("", _DEVICE_DET.sub("", " ".join(cue.split())))
    if not name or re.search(r"[#\d]", name) or name.upper() == "SPEAKER" or name.upper().startswith("HOLO"):
        return False
    words = name.split()
    return len(words) <= 3 and all(_MEDIUM_WORD.match(w) for w in words) or bool(_MEDIUM_WORD.match(name))
