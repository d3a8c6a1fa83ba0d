"""Whole corpora: build many screenplays in parallel, on one machine or a Ray cluster.

`kgbuild build` over several scripts, a folder or a manifest comes here: `inputs` finds the
scripts, `ids` names each movie by the one rule of single builds, `key` says when a movie's
output is up to date, `worker` builds one movie in a worker process, `executors` run the
workers (local processes, or Ray with `kgbuild[ray]`), `folders` moves each movie's files into
place atomically, `status` keeps corpus.jsonl, `report` writes the corpus report, and `run`
ties them together (`build_corpus`).
"""
