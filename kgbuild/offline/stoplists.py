"""Words that look like entities to the rules but name none a story graph keeps."""

from __future__ import annotations

from kgbuild.timewords import TIME_OF_DAY_WORDS


def word_set(text: str) -> frozenset[str]:
    """The whitespace-separated words of a text block, as a set."""
    return frozenset(text.split())


def in_class(word: str, words: frozenset[str]) -> bool:
    """Whether a word or its singular is in a word class: 'heads' is a body part as 'head' is.

    Example:
        >>> in_class("heads", BODY_PARTS), in_class("bodies", BODY_PARTS), in_class("half-smile", GESTURES)
        (True, True, True)
    """
    word = word.rsplit("-", 1)[-1]  # 'half-smile': the last part names what it is
    singulars = {word}
    if word.endswith("ies"):
        singulars.add(word[:-3] + "y")
    if word.endswith("es"):
        singulars.add(word[:-2])
    if word.endswith("s"):
        singulars.add(word[:-1])
    return not singulars.isdisjoint(words)


# Parts of a body are handled, but they are not props of the story; nor are its flesh, fluids
# and marks ('his flesh', 'Randall's blood', 'nursing his wounds'). Plurals are found through
# `in_class` ('heads', 'lips').
BODY_PARTS = word_set("""
    face eyes eye arm arms hand hands head feet foot leg legs mouth lips body shoulder shoulders
    fingers finger neck back hair chest knees knee cheek cheeks forehead nose ears ear teeth chin
    jaw throat lap palm palms wrist wrists fist fists skin tears breath voice heart stomach brow
    thumb thumbs toes hips waist ankles ankle eyebrows eyebrow lashes brain mind
    tongue lip tooth fingernail toe hip belly rib spine elbow forearm vein lung skull
    bone muscle features flesh blood sweat wound scar bruise
""")
# How a body looks and holds itself, what a face does, a body's or a mind's hold on itself: a
# character's, never a thing they own ("Picard's probing gaze", "the B-9's posture", 'offers a
# half-smile', 'takes a moment to get her bearings', 'loses his footing').
GESTURES = word_set("""
    gaze stare glare smile grin smirk frown scowl expression posture stance grip nod wink
    shrug gesture demeanor demeanour manner mood temper
    bearings footing composure poise wits nerve nerves
""")
# Words for a part of a space or a direction, not a place of their own.
SPATIAL_PARTS = word_set("""
    top middle corner side sides edge line end back front bottom part rest way direction left
    right center centre air distance ground surface inside outside interior exterior area spot
    place background foreground view shot frame angle moment beat time
""")
# People named by a bare category: too generic to be one character.
GENERIC_PEOPLE = word_set("""
    man men woman women boy boys girl girls people person guy guys kid kids child children
    someone somebody everyone everybody crowd figure figures others other one
""")
# Words that cannot be part of a character's cue or introduced name (prepositions, verbs,
# possessive pronouns, adverbs of place: 'UP AHEAD -- a horizon line' is where, not who).
NOT_IN_NAMES = word_set("""
    OF AT IN ON TO HAS HAVE BEEN IS ARE WAS SHOT ANGLE CLOSE VIEW SCENE WRITTEN HIS HER THEIR
    SCREAMING WITH FROM INTO UP DOWN OUT OFF AWAY AHEAD HERE THERE
""")
# Weather, light, sound and smell are around the characters, not places or props ("breathing
# in Forsythe's fragrance" is her scent, no thing of hers).
AMBIENCE = word_set("""
    rain snow wind fog mist sun sunlight moonlight light lights darkness dark shadow shadows
    silence noise sound sounds smoke steam dust heat cold thunder lightning storm weather sky
    air water smell scent fragrance odor odour stench aroma
""")
# Furniture and fixtures: things in a room, never a place of their own, nor props that matter.
FIXTURES = word_set("""
    door doors doorway window windows wall walls floor floors ceiling stairs staircase steps step
    bed beds seat seats chair chairs couch sofa bench desk desks table tables counter pulpit
    podium shelf shelves cabinet drawer drawers curtain curtains carpet rug threshold railing
    doorframe windowsill sink tub bathtub toilet mirror fireplace mantle mantel
""")
# Times of day (`kgbuild.timewords`), seasons and spans of time: 'cuts through the night' names no place.
TIME_WORDS = TIME_OF_DAY_WORDS | word_set("""
    daylight summer winter spring autumn fall week year moment hour minute second
""")
# Colours end a phrase only when the noun was cut off ("Lang's black tie" read as 'black').
COLORS = word_set("black white red blue green yellow brown grey gray pink purple orange golden silver dark")
# Nouns of the page or the sound track, not things in the story world.
NOT_THINGS = word_set("""
    number dot shot frame scene beat pause moment silence sound noise glance look way line lines
    something anything nothing everything thing things yawn sigh breath words word tone voice
    showmanship gulps gulp tight close closer still reflection shadow image meal dog dogs cat cats
    horse horses bird birds puppy bow
""")
# Head nouns of places a character can go into or be at, for places named in action lines.
PLACE_HEADS = word_set("""
    room kitchen bedroom bathroom hall hallway corridor street road house apartment flat office
    building forest woods field fields beach bar pub restaurant cafe hospital station airport church
    garden yard porch roof basement attic cellar city town village park bridge river lake sea
    parking lot alley lobby cell prison warehouse shop store hotel motel school classroom theatre
    theater stage backstage auditorium library cave cemetery graveyard courtroom court dormitory dorm
    garage barn farm ranch stable tent cabin deck boat ship train car truck van cab taxi bus plane
    elevator lift stairwell closet study den lounge cafeteria gym chapel temple tower castle palace
    camp square plaza market mall club casino bank factory mill lab laboratory workshop studio
    clearing meadow hill mountain mountains valley desert island shore dock harbor harbour pier
    highway freeway tunnel subway platform courtyard quad campus gate gates driveway sidewalk
""")
# Clothes worn, not props: 'sits in his pajamas', 'the harness over his shirt'.
CLOTHES = word_set("""
    shirt shirts pants trousers pajamas pyjamas socks sock underwear sleeve sleeves collar pocket
    pockets cuff cuffs
""")
