"""Evaluation: STAGE-KG scoring (references, matching, metrics, baselines), the truth audit, and
the STAGE-QA measures of `kgbuild ask` (retrieval ranks, judged answers).

Importable as `kgbuild.evaluation`. The research studies live outside the package, in the
repository's `bench/studies/`.
"""
