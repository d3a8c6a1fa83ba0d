"""The knowledge-graph schema as data (entity and relation types, admissible pairs).

Filled in by the graph issue; importable as `kgbuild.schema`.
"""
