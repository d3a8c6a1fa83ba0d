"""The truth ledger: seeded draws of fresh scripts, and first-look shares pooled over scripts."""

from __future__ import annotations

import pytest

from bench.studies.truth_ledger import (
    LEDGER,
    LedgerEntry,
    Shares,
    draw_scripts,
    load_ledger,
    main,
    pooled,
    read_split,
)
from kgbuild.evaluation.audit.types import TypeShare

SPLIT = {f"en{i:02d}": ("English", "truth" if i % 2 else "qa") for i in range(20)}
SPLIT |= {f"ch{i:02d}": ("Chinese", "truth") for i in range(4)}


def _entry(movie: str, **kw) -> LedgerEntry:
    return LedgerEntry(script=f"stage-pool/x/{movie}", movie=movie, title=movie, language="English",
                       origin="truth-draw", informed_rules=False, **kw)


def test_a_draw_takes_only_fresh_truth_scripts_and_is_repeatable():
    ledger = [_entry("en01"), _entry("en03"), _entry("ch00")]
    first = draw_scripts(SPLIT, ledger, seed=5, english=3, chinese=1)
    assert first == draw_scripts(SPLIT, list(reversed(ledger)), seed=5, english=3, chinese=1)
    english, chinese = first[:3], first[3:]
    assert len(set(english)) == 3 and all(SPLIT[m] == ("English", "truth") for m in english)
    assert not {"en01", "en03", "ch00"} & set(first) and chinese[0].startswith("ch")
    with pytest.raises(ValueError, match="4 Chinese scripts asked for, 3 fresh ones left"):
        draw_scripts(SPLIT, ledger, seed=5, english=0, chinese=4)


def _shares(*types: tuple[str, int, int, int]) -> Shares:
    strata = [TypeShare(kind="relation", type=t, in_graph=n, sampled=j, judged=j, supported=s, not_supported=j - s,
                        cant_tell=0, share=s / j, low=None, high=None) for t, n, j, s in types]
    return Shares(judged=sum(t.judged for t in strata), supported=sum(t.supported for t in strata), cant_tell=0,
                  weighted=0.0, low95=0.0, high95=0.0, types=strata)


def test_pooled_share_weights_each_script_type_by_its_count():
    a = _entry("a", relations=_shares(("speaks_to", 300, 50, 50), ("part_of", 100, 50, 25)))
    b = _entry("b", relations=_shares(("speaks_to", 100, 50, 40)))
    share = pooled([a, b], "relation")
    # (300 * 1.0 + 100 * 0.5 + 100 * 0.8) / 500
    assert share.share == pytest.approx(430 / 500)
    assert share.low < share.share < share.high
    with pytest.raises(ValueError, match="no audited entity shares"):
        pooled([a], "entity")


def test_the_repository_ledger_reads_and_holds_no_script_twice():
    entries = load_ledger(LEDGER)
    movies = [e.movie for e in entries]
    assert len(movies) == len(set(movies))
    assert {"prestige", "dead_poets_society", "big-fish", "sicario", "joker"} <= set(movies)
    assert all(e.informed_rules for e in entries if e.movie in {"prestige", "sicario", "joker"})
    drawn = [e for e in entries if e.origin == "truth-draw"]
    assert all(e.draw and e.draw_seed is not None and e.drawn for e in drawn)


def test_draw_refuses_a_repeated_draw_name(tmp_path, capsys):
    ledger = tmp_path / "ledger.jsonl"
    pool = tmp_path / "pool"
    pool.mkdir()
    (pool / "split.tsv").write_text("movie_id\tlanguage\tuse\n" + "".join(
        f"{m}\t{lang}\t{use}\n" for m, (lang, use) in SPLIT.items()))
    assert main(["--ledger", str(ledger), "--pool", str(pool), "draw", "--name", "d1", "--seed", "3"]) == 0
    assert len(load_ledger(ledger)) == 4
    assert main(["--ledger", str(ledger), "--pool", str(pool), "draw", "--name", "d1", "--seed", "4"]) == 2
    assert "never repeated" in capsys.readouterr().err
    assert read_split(pool / "split.tsv")["ch01"] == ("Chinese", "truth")
