"""Whole corpora: build many screenplays in parallel, on one machine or on a Ray cluster.

`kgbuild build` over several scripts, a folder or a manifest comes here: `inputs` finds the
scripts, `ids` names each movie by the one rule of single builds, `spec` holds the shared options
and the key that says when a movie's output is up to date, `worker` builds one movie in a worker
process, `executors` run the workers in local processes and `ray_executor` as Ray tasks (the
optional extra `kgbuild[ray]`), `folders` moves each movie's files into place atomically,
`status` keeps corpus.jsonl, `report` writes the corpus report, `outputs` reads a corpus output
(and loads it into one store), and `run` ties them together (`build_corpus`).
"""
