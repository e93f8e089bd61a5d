"""A sample of the end-to-end proof (``bench.e2e``; its 200 games run in ``make bench``): one whole game
of random legal play at the virtual table, rendered, read and judged by the real pipeline."""

from __future__ import annotations

from bench.e2e import play_games


def test_a_whole_game_at_the_virtual_table_is_refereed_right() -> None:
    tally = play_games(seed=5, games=1, noise=0.004, drift=0.03)
    # the sample holds what the proof measures: illegal plays and throws to be thrown again
    assert sum(tally.illegal.values()) >= 3 and sum(tally.rerolls.values()) >= 3
    assert tally.legal["illegal"] == 0, tally.misses
    assert tally.illegal["caught"] == sum(tally.illegal.values()), tally.misses
    assert tally.rerolls["missed"] == 0, tally.misses
    assert tally.rolls["read"] == sum(tally.rolls.values()), tally.misses
    assert tally.results["right"] == 1
