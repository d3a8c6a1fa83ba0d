"""kgbuild: movie screenplays to knowledge graphs."""

__version__ = "0.1.0"
