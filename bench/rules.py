"""Benchmark and cross-check of the rules: `python -m bench.rules [--n 100000]`.

Builds a fixed corpus of (position, roll) pairs from random OpenSpiel games (seeded), checks that every
legal-result set equals OpenSpiel's, that gnubg agrees, and times legal-play generation against gnubg's
own generation (`findbestmoves`, which also evaluates each play) in the same run.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time

from bench.engines import gnubg_agrees, gnubg_board, random_queries
from referee.moves import legal_plays


def _time(fn, repeats: int) -> float:
    """The best of ``repeats`` runs: scheduler noise on a shared machine only ever adds time."""
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=100_000, help="positions to cross-check")
    ap.add_argument("--timed", type=int, default=10_000, help="positions to time (a fixed prefix)")
    ap.add_argument("--gnubg", type=int, default=10_000, help="positions to cross-check with gnubg")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()

    t0 = time.perf_counter()
    queries = random_queries(a.n, a.seed)
    took = time.perf_counter() - t0
    print(f"corpus: {len(queries)} positions from random games (seed {a.seed}) in {took:.0f} s")

    bad = [q for q in queries if {p.result for p in legal_plays(q.position, q.dice)} != q.results]
    print(f"OpenSpiel: {len(bad)} mismatches in {len(queries)} positions")
    g = queries[: a.gnubg]
    gbad = [q for q in g if not gnubg_agrees(q.position, q.dice, set(q.results))]
    print(f"gnubg: {len(gbad)} disagreements in {len(g)} positions")

    import gnubg

    cube, ctx = gnubg.cubeinfo(), gnubg.evalcontext()
    timed = queries[: a.timed]
    gc.collect()
    ours = [_time(lambda q=q: legal_plays(q.position, q.dice), 5) for q in timed]
    theirs = [
        _time(lambda q=q: gnubg.findbestmoves(gnubg_board(q.position), cube, ctx, q.dice), 5) for q in timed
    ]
    ms = 1e3
    print(
        f"legal_plays over {len(timed)} (position, roll) pairs, best of 5 each: "
        f"mean {statistics.mean(ours) * ms:.3f} ms, median {statistics.median(ours) * ms:.3f} ms, "
        f"worst {max(ours) * ms:.2f} ms"
    )
    print(
        f"gnubg findbestmoves, same pairs: mean {statistics.mean(theirs) * ms:.3f} ms, "
        f"median {statistics.median(theirs) * ms:.3f} ms, worst {max(theirs) * ms:.2f} ms"
    )
    print(f"ratio of means (ours / gnubg): {statistics.mean(ours) / statistics.mean(theirs):.2f}")
    if bad or gbad:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
