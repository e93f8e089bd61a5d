"""Game, cube and match benchmark: whole random games, and the real match transcripts replayed.

    python -m bench.game                  # 200 random games, every real match
    python -m bench.game --games 50 --matches 40

Random games: opening roll, random rolls, a random legal play each turn, random cube actions; each game
must end with a valid result. Reported: median time per game and per turn, and the ratio to the bare
legal-play generation of the same turns measured in the same run (the game layer's overhead).
Real matches (``../shared/data/real-matches``): each is replayed through the rules with
``Match.from_record`` (every play judged, every cube action and result checked); reported: matches and
games that replay, the ones that do not with the reason, and the median time per game.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path

from referee.game import Game, Phase
from referee.match import Match, MatchError
from referee.moves import legal_plays
from referee.notation.matfile import parse_mat
from referee.scoring import Outcome, classify

REAL = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "real-matches"


def random_game(rng: random.Random) -> tuple[Game, list]:
    """A whole game by random play; also returns the (position, dice) of every roll for the reference."""
    game = Game()
    turns = []
    while game.phase is Phase.OPENING:
        game.opening_roll(rng.randint(1, 6), rng.randint(1, 6))
    while not game.over:
        if game.phase is Phase.ROLL:
            if rng.random() < 0.03 and game.cube.may_double(game.on_roll):
                game.offer_double()
                continue
            game.roll(rng.randint(1, 6), rng.randint(1, 6))
        elif game.phase is Phase.DOUBLED:
            game.take() if rng.random() < 0.8 else game.drop()
        else:
            assert game.dice is not None
            turns.append((game.position, game.dice))
            game.play(rng.choice(game.legal_plays()))
    return game, turns


def bench_random(n: int, seed: int) -> bool:
    rng = random.Random(seed)
    per_game, per_turn, ratios = [], [], []
    bad = 0
    for _ in range(n):
        t0 = time.perf_counter()
        game, turns = random_game(rng)
        elapsed = time.perf_counter() - t0
        r = game.result
        ok = r is not None and (
            (r.by_drop and r.points == r.cube)
            or (r.outcome is classify(game.board, r.winner) and r.points == r.outcome.value * r.cube)
        )
        bad += not ok
        t1 = time.perf_counter()
        for position, dice in turns:
            legal_plays(position, dice)
        reference = time.perf_counter() - t1
        per_game.append(elapsed)
        per_turn.append(elapsed / max(1, len(turns)))
        ratios.append(elapsed / reference if reference else float("nan"))
    print(f"random games: {n}, invalid results: {bad}")
    game_ms, turn_ms = statistics.median(per_game) * 1e3, statistics.median(per_turn) * 1e3
    print(f"  median per game {game_ms:.1f} ms, per turn {turn_ms:.3f} ms")
    print(f"  median ratio game / bare legal_plays of the same turns: {statistics.median(ratios):.2f}")
    return bad == 0


def bench_real(limit: int | None) -> bool:
    if not REAL.is_dir():
        print(f"real matches: {REAL} is missing, skipped")
        return True
    files = sorted(REAL.rglob("*.txt"))[:limit]
    per_game, failures, games = [], [], 0
    outcomes = dict.fromkeys(Outcome, 0)
    for path in files:
        record = parse_mat(path.read_text())
        t0 = time.perf_counter()
        try:
            match = Match.from_record(record)
        except MatchError as e:
            failures.append(f"{path.name}: {e}")
            continue
        elapsed = time.perf_counter() - t0
        games += len(match.games)
        per_game.extend([elapsed / max(1, len(match.games))] * len(match.games))
        for g in match.games:
            outcomes[g.result.outcome] += 1
    print(f"real matches: {len(files) - len(failures)}/{len(files)} replay through the rules, {games} games")
    print("  results: " + ", ".join(f"{o.word} {n}" for o, n in outcomes.items()))
    if per_game:
        print(f"  median per game {statistics.median(per_game) * 1e3:.1f} ms")
    for f in failures:
        print(f"  does not replay: {f}")
    return len(failures) <= 1  # one known forfeit: a player left the match, no rule explains the score


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="random games to play (default 200)")
    parser.add_argument("--matches", type=int, default=None, help="real matches to replay (default all)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    ok = bench_random(args.games, args.seed)
    ok = bench_real(args.matches) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
