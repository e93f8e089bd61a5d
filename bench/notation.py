"""Notation benchmark: gnubg agreement on many IDs, every real transcript, and speed beside gnubg.

    python -m bench.notation                  # 20,000 positions, all 320 real transcripts
    python -m bench.notation --positions 2000 --files 40

Reported: Position ID agreement with ``gnubg.positionid``/``positionfromid`` on random legal positions,
XGIDs read by gnubg's ``SetXGID`` as we read them, and for every real ``.mat`` transcript: parsed, the
parse -> write -> parse round trip equal, and gnubg importing our written file to the same moves, dice,
cube actions and results as the original. Speed: median per call, ours and gnubg's, in this run.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import gnubg

from bgboard.position import Position
from referee.notation import (
    MatchState,
    decode_match_id,
    decode_position_id,
    decode_xgid,
    encode_match_id,
    encode_position_id,
    encode_xgid,
    parse_mat,
    write_mat,
)

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "real-matches"


def random_position(rng: random.Random) -> Position:
    """A random legal position: up to 15 checkers a side on points and bar, no shared point."""
    sides = [[0] * 25, [0] * 25]
    for s in rng.sample((0, 1), 2):
        for _ in range(rng.randint(0, 15)):
            i = rng.choice([p for p in range(25) if p == 24 or not sides[1 - s][23 - p]])
            sides[s][i] += 1
    return Position(tuple(sides[0]), tuple(sides[1]))


def random_state(rng: random.Random) -> MatchState:
    """A random consistent match state: money or a match, cube, score, Crawford, dice."""
    length = rng.choice((0, 0, 1, 3, 5, 7, 11, 25))
    on_roll = rng.randint(0, 1)
    score = (rng.randint(0, max(length - 1, 0)), rng.randint(0, max(length - 1, 0)))
    crawford = length > 1 and length - 1 in score and rng.random() < 0.5
    return MatchState(
        cube=1 if crawford else 1 << rng.randint(0, 6),
        cube_owner=None if crawford else rng.choice((None, 0, 1)),
        on_roll=on_roll,
        turn=on_roll,
        crawford=crawford,
        dice=None if rng.random() < 0.3 else (rng.randint(1, 6), rng.randint(1, 6)),
        match_length=length,
        score=score,
        jacoby=length == 0 and rng.random() < 0.5,
    )


def median_us(fn: Callable[[], object], repeat: int = 2000) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def gnubg_import(path: Path) -> list[list[tuple[object, ...]]]:
    with contextlib.redirect_stdout(io.StringIO()):
        gnubg.command(f'import mat "{path}"')
    return [
        [(r.get("player"), r.get("action"), r.get("dice"), r.get("move")) for r in g["game"]]
        + [(g["info"]["winner"], g["info"]["points-won"])]
        for g in gnubg.match()["games"]
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=20000)
    ap.add_argument("--xgids", type=int, default=2000)
    ap.add_argument("--files", type=int, default=0, help="transcripts to check (0 = all)")
    args = ap.parse_args()
    rng = random.Random(2026)
    failures = 0

    positions = [random_position(rng) for _ in range(args.positions)]
    bad = 0
    for pos in positions:
        pid = encode_position_id(pos)
        board = gnubg.positionfromid(pid)
        agree = pid == gnubg.positionid((pos.opponent, pos.player)) and decode_position_id(pid) == pos
        bad += not (agree and (tuple(board[1]), tuple(board[0])) == (pos.player, pos.opponent))
    print(f"Position ID: {len(positions) - bad}/{len(positions)} random positions agree with gnubg both ways")
    failures += bad

    bad = 0
    for _ in range(args.xgids):
        pos, state = random_position(rng), random_state(rng)
        text = encode_xgid(pos, state)
        with contextlib.redirect_stdout(io.StringIO()):
            gnubg.setgnubgid(text)
        pid, mid = gnubg.gnubgid().split(":")
        got = decode_match_id(mid)
        same = decode_position_id(pid) == pos and decode_xgid(text) == (pos, state, False, 1024)
        fields = ("on_roll", "cube", "cube_owner", "score", "match_length", "crawford")
        same = same and all(getattr(got, f) == getattr(state, f) for f in fields)
        bad += not same
    print(f"XGID: {args.xgids - bad}/{args.xgids} random XGIDs read by gnubg as we read them")
    failures += bad

    pos, state = positions[0], MatchState(on_roll=1, turn=1, dice=(5, 2), match_length=7, score=(2, 4))
    pid, mid, xgid = encode_position_id(pos), encode_match_id(state), encode_xgid(pos, state)
    board = (pos.opponent, pos.player)
    rows = [
        ("encode Position ID", median_us(lambda: encode_position_id(pos)),
         median_us(lambda: gnubg.positionid(board))),
        ("decode Position ID", median_us(lambda: decode_position_id(pid)),
         median_us(lambda: gnubg.positionfromid(pid))),
        ("encode Match ID", median_us(lambda: encode_match_id(state)), None),
        ("decode Match ID", median_us(lambda: decode_match_id(mid)), None),
        ("encode XGID", median_us(lambda: encode_xgid(pos, state)), None),
        ("decode XGID", median_us(lambda: decode_xgid(xgid)), None),
    ]  # fmt: skip
    for name, ours, theirs in rows:
        ratio = f"  gnubg {theirs:6.1f} us  ratio {ours / theirs:5.1f}x" if theirs else ""
        print(f"{name:20s} median {ours:6.1f} us{ratio}")

    if not DATA.is_dir():
        print(f"real transcripts not present at {DATA}: skipped")
        return 1 if failures else 0
    files = sorted(DATA.glob("*.txt")) + sorted((DATA / "studio").glob("*.txt"))
    files = files[: args.files] if args.files else files
    parsed = round_trip = gnubg_same = games = 0
    parse_times, write_times = [], []
    with tempfile.TemporaryDirectory() as tmp:
        ours_path = Path(tmp) / "ours.mat"
        for path in files:
            text = path.read_text(encoding="utf-8")
            t0 = time.perf_counter()
            rec = parse_mat(text)
            t1 = time.perf_counter()
            written = write_mat(rec)
            t2 = time.perf_counter()
            parse_times.append(t1 - t0)
            write_times.append(t2 - t1)
            parsed += 1
            games += len(rec.games)
            round_trip += parse_mat(written) == rec
            ours_path.write_text(written, encoding="utf-8")
            if gnubg_import(ours_path) == gnubg_import(path):
                gnubg_same += 1
            else:
                print(f"  gnubg imports our copy of {path.name} differently")
    n = len(files)
    print(f".mat: {parsed}/{n} transcripts parsed ({games} games), {round_trip}/{n} round trips equal, "
          f"{gnubg_same}/{n} imported by gnubg exactly as the originals")  # fmt: skip
    print(f".mat: median parse {statistics.median(parse_times) * 1e3:.2f} ms, "
          f"write {statistics.median(write_times) * 1e3:.2f} ms per transcript")  # fmt: skip
    failures += (n - round_trip) + (n - gnubg_same)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
