"""Deterministic graph repairs and entity merging; importable as `kgbuild.canonicalize`."""
