"""Story time: who is in each scene, screen and story order, what a character knows at a scene,
and character dossiers.

- `presence`: per scene, the graph's characters with their mode (present on screen, heard off
  screen, a voice from elsewhere, mentioned) and evidence, read from cues, action and speeches.
- `order`: screen order and story order (time markers of headings and titles).
- `names`: a character by name or alias, in any case; an unknown name lists close ones.
- `knows`: TimeChara's future / past-absence / past-presence labels for a character at a scene.
- `dossier`: a character's lines, actions, relations, places and objects, each with its scene.
"""
