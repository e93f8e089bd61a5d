"""Positions met in random games, for the benchmarks, the tests and the training tools.

>>> import numpy as np
>>> [b.off(Side.LIGHT) + b.off(Side.DARK) for b in random_boards(2, np.random.default_rng(1))]
[0, 0]
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from bgboard.layout import Board, Side
from bgboard.position import START
from referee.moves import legal_plays


def random_boards(n: int, rng: np.random.Generator, tall: float = 0.15) -> Iterator[Board]:
    """Positions met in random games; now and then (a share ``tall`` of plays) a play that builds the
    tallest stack, so that stacks of six and more (which random play alone makes rarely) are well
    represented."""
    while True:
        position, on_roll = START, Side.LIGHT
        for _ in range(int(rng.integers(4, 60))):
            dice = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
            plays = legal_plays(position, dice)
            if plays:
                if rng.random() < tall:
                    play = max(plays, key=lambda p: max(p.result.player[:24]))
                else:
                    play = plays[int(rng.integers(len(plays)))]
                position = play.result
            if not any(position.player[:25]):
                break
            position, on_roll = position.swap(), on_roll.other
        yield Board.from_position(position, on_roll)
        n -= 1
        if n <= 0:
            return
