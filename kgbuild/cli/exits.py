"""The exit statuses of `kgbuild` commands besides 0 (done), in one place.

Status 2 is click's for a usage error, and `kgbuild.cli.main`'s for any `KgbuildError` (bad
input, an unwritable place). Scripts that drive the CLI (the repository's
`bench/studies/kept_answers.py`) read these names instead of repeating the numbers.
"""

from __future__ import annotations

#: Bad input or an unwritable place (a `KgbuildError`), or a usage error; for `kgbuild view`
#: over a corpus, some movies got no page (the others did).
EXIT_ERROR = 2
#: Batch-export mode wrote the next round of LLM requests: import the results, then rerun.
EXIT_BATCH_PENDING = 3
#: Some LLM chunks got no valid answer after the retries (a build keeps an existing one unless
#: --allow-partial), or the LLM work ran out of time; for a corpus, some movies' chunks failed.
EXIT_PARTIAL = 4
#: A corpus build in which some movies failed (the others were built).
EXIT_MOVIES_FAILED = 5
#: Interrupted (Ctrl-C).
EXIT_ABORTED = 130
