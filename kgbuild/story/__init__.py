"""Story time: screen and story order, what a character knows at a scene, and character dossiers.

They read the scene layer (who is in each scene, and how), which the build makes with
`kgbuild.extraction.presence`.

- `order`: screen order and story order (time markers of headings and titles).
- `names`: a character by name or alias, in any case; an unknown name lists close ones.
- `knows`: TimeChara's future / past-absence / past-presence labels for a character at a scene.
- `dossier`: a character's lines, actions, relations, places and objects, each with its scene.
"""
