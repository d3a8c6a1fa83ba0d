"""Research studies: the measurements behind docs/results, run from the repository root.

Each module is a command, `python -m bench.studies.NAME` (in the project's venv), that prints the
table its docs/results page shows: `parsing`, `stage_inputs`, `formats` and `repair_agreement`
(reading screenplays), `merge_eval` (merge quality), `presence` and `dossiers` (the scene layer and
dossiers against STAGE), `knows_sheet` (judging `kgbuild knows`), `completion_density` (the basis of
`--dry-run`'s estimate), `kept_answers` (model answers kept without the screenplay's words) and
`truth_ledger` (the audited scripts). Most read the shared research data, `../shared/data`
(`--data` names another folder).
"""
