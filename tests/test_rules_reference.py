"""Cross-check of the legal plays against two independent engines, on positions from random games.

A small sample runs here; `make bench` (bench/rules.py) runs 100,000 positions.
"""

import pytest

from bench.engines import gnubg_agrees, random_queries
from referee.judge import judge
from referee.moves import legal_plays


@pytest.fixture(scope="module")
def queries():
    return random_queries(1500, seed=20261129)


def test_same_results_as_openspiel(queries):
    mismatches = [q for q in queries if {p.result for p in legal_plays(q.position, q.dice)} != q.results]
    assert mismatches == []


def test_same_plays_as_gnubg(queries):
    sample = queries[:300]
    assert [q for q in sample if not gnubg_agrees(q.position, q.dice, q.results)] == []


def test_the_judge_accepts_every_openspiel_result(queries):
    for q in queries[:300]:
        for result in q.results:
            assert judge(q.position, q.dice, result).legal
