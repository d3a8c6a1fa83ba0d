"""The kgbuild version, as graphs' provenance, build keys and reports record it.

A module of its own, below every other, so that recording the version imports nothing else
(`kgbuild/__init__.py` reaches every layer through its functions).
"""

__version__ = "0.1.0"
