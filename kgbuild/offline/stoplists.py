"""Words that look like entities to the rules but name none a story graph keeps."""

from __future__ import annotations


def word_set(text: str) -> frozenset[str]:
    """The whitespace-separated words of a text block, as a set."""
    return frozenset(text.split())


# Parts of a body are handled, but they are not props of the story.
BODY_PARTS = word_set("""
    face eyes eye arm arms hand hands head feet foot leg legs mouth lips body shoulder shoulders
    fingers finger neck back hair chest knees knee cheek cheeks forehead nose ears ear teeth chin
    jaw throat lap palm palms wrist wrists fist fists skin tears breath voice heart stomach brow
    thumb toes hips waist
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
# Words that cannot be part of a character's cue or introduced name.
NOT_IN_NAMES = word_set("""
    OF AT IN ON TO HAS HAVE BEEN IS ARE WAS SHOT ANGLE CLOSE VIEW SCENE WRITTEN HIS HER THEIR
    SCREAMING WITH FROM INTO
""")
# Weather, light and sound are around the characters, not places or props.
AMBIENCE = word_set("""
    rain snow wind fog mist sun sunlight moonlight light lights darkness dark shadow shadows
    silence noise sound sounds smoke steam dust heat cold thunder lightning storm weather sky
    air water
""")
