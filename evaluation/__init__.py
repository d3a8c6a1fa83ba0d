"""Evaluation: screenplay parsing against human line tags, and (later) STAGE-KG scoring.

Importable as `kgbuild.evaluation`.
"""
