"""The game: opening roll, turns, passes, the end and its value, the cube in play, corrections."""

from __future__ import annotations

import json
import random

import pytest

from bgboard.layout import Board, Side
from bgboard.position import START, Position
from referee.cube import CubeError
from referee.events import Event, EventError, EventKind
from referee.game import Game, GameError, Phase
from referee.moves import Play, legal_plays
from referee.rules_options import MovesRule, RuleOptions
from referee.scoring import GameResult, Outcome, classify

LIGHT, DARK = Side.LIGHT, Side.DARK


def board(light: dict[int, int], dark: dict[int, int]) -> Board:
    """A board from each side's {point: count} in its own numbering (25 = bar)."""
    return Board.from_position(Position.from_points(light, dark), LIGHT)


def by_text(game: Game, text: str) -> Play:
    plays = {p.text: p for p in game.legal_plays()}
    assert text in plays, f"{text} not among {sorted(plays)}"
    return plays[text]


def kinds(events: list[Event]) -> list[EventKind]:
    return [e.kind for e in events]


# Light bears off its last checker with any roll; dark has none off, all in its home board.
LAST_CHECKER_GAMMON = board({1: 1}, {6: 5, 5: 5, 4: 5})
# The same, but a dark checker is still in light's home board (dark's 19-point = light's 6-point).
LAST_CHECKER_BACKGAMMON = board({1: 1}, {19: 1, 6: 14})


def opened(options: RuleOptions | None = None, **kw) -> Game:
    """A game where light has played 3-1 (8/5 6/5) and dark is to roll."""
    game = Game(options or RuleOptions(), **kw)
    game.opening_roll(3, 1)
    game.play(by_text(game, "8/5 6/5"))
    return game


def bear_off_win(game: Game) -> GameResult:
    game.roll(6, 5)
    assert [p.text for p in game.legal_plays()] == ["1/off"]
    game.play(game.legal_plays()[0])
    assert game.over and game.result is not None
    return game.result


# ---- the opening roll ------------------------------------------------------------------------------


def test_opening_tie_is_thrown_again() -> None:
    game = Game()
    events = game.opening_roll(4, 4)
    assert kinds(events) == [EventKind.OPENING_TIE]
    assert game.phase is Phase.OPENING and game.on_roll is None
    assert game.cube.value == 1  # no automatic doubles unless switched on
    assert "tie" in events[0].text


def test_higher_die_plays_both_numbers() -> None:
    game = Game()
    game.opening_roll(2, 5)
    assert game.on_roll is DARK and game.phase is Phase.PLAY and game.dice == (5, 2)
    assert {p.result for p in game.legal_plays()} == {p.result for p in legal_plays(START, (5, 2))}
    assert game.history[-1].text == "light 2, dark 5: dark plays 5-2 first"


def test_nobody_doubles_or_rolls_before_the_opening() -> None:
    game = Game()
    with pytest.raises(GameError, match="opening roll"):
        game.roll(3, 1)
    with pytest.raises(GameError, match="opening roll"):
        game.offer_double(LIGHT)


@pytest.mark.parametrize("bad", [0, 7, 2.0, True, "3"])
def test_a_die_must_be_one_to_six(bad: object) -> None:
    with pytest.raises(GameError, match="1 to 6"):
        Game().opening_roll(bad, 3)
    game = opened()
    with pytest.raises(GameError, match="1 to 6"):
        game.roll(3, bad)
    assert game.phase is Phase.ROLL and game.on_roll is DARK  # nothing changed


# ---- turns -------------------------------------------------------------------------------------------


def test_turns_alternate_and_out_of_turn_rolls_are_refused() -> None:
    game = opened()
    assert game.on_roll is DARK and game.board.counts(LIGHT)[4] == 2  # light's 5-point made
    with pytest.raises(GameError, match="light cannot roll: it is dark's turn"):
        game.roll(6, 1, side=LIGHT)
    game.roll(6, 1, side=DARK)
    with pytest.raises(GameError, match="dark has 6-1 to play first"):
        game.roll(2, 2)
    game.play(by_text(game, "13/7 8/7"))
    assert game.on_roll is LIGHT and game.phase is Phase.ROLL


def test_doubles_are_played_four_times() -> None:
    game = opened()
    game.roll(6, 6)
    plays = game.legal_plays()
    assert plays and all(len(p.moves) == 4 for p in plays)
    j = game.play(by_text(game, "24/18(2) 13/7(2)"))
    assert j.legal and game.board.counts(DARK)[17] == 2 and game.board.counts(DARK)[6] == 2


def test_a_roll_with_no_legal_move_passes() -> None:
    # Dark's only movers are on its 13-point; 6-6 would land on its 7-point (light's 18), which light holds.
    game = Game(start=board({18: 2, 6: 13}, {13: 2, 1: 13}), first=DARK)
    events = game.roll(6, 6)
    assert kinds(events) == [EventKind.ROLL, EventKind.PASS]
    assert events[1].text == "dark cannot move: 6-6 is blocked"
    assert game.on_roll is LIGHT and game.phase is Phase.ROLL and game.dice is None


def test_a_checker_on_the_bar_that_cannot_enter_passes() -> None:
    closed = {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3}
    game = Game(start=board(closed, {25: 1, 6: 14}), first=DARK)
    events = game.roll(5, 3)
    assert events[-1].text == "dark cannot enter from the bar: 5-3 is blocked"
    assert game.on_roll is LIGHT


def test_play_accepts_a_board_a_position_or_a_play() -> None:
    for form in ("board", "position", "play"):
        game = Game()
        game.opening_roll(3, 1)
        play = by_text(game, "8/5 6/5")
        after = {"board": Board.from_position(play.result, LIGHT), "position": play.result, "play": play}[
            form
        ]
        j = game.play(after)
        assert j.legal and j.play is not None and j.play.text == "8/5 6/5"
        assert game.board == Board.from_position(play.result, LIGHT)
        assert game.history[-1].kind is EventKind.PLAY and game.history[-1].play == "8/5 6/5"


def test_legal_plays_only_with_dice_to_play() -> None:
    with pytest.raises(GameError, match="no roll to play"):
        opened().legal_plays()
    with pytest.raises(GameError, match="no roll to play"):
        opened().play(START)


# ---- the end and its value ---------------------------------------------------------------------------


def test_classify_single_gammon_backgammon() -> None:
    assert classify(board({}, {6: 14}), LIGHT) is Outcome.SINGLE  # one dark checker off
    assert classify(board({}, {6: 5, 5: 5, 18: 5}), LIGHT) is Outcome.GAMMON  # outer board is no backgammon
    assert classify(board({}, {19: 1, 6: 14}), LIGHT) is Outcome.BACKGAMMON  # in light's home board
    assert classify(board({}, {24: 1, 6: 14}), LIGHT) is Outcome.BACKGAMMON
    assert classify(board({}, {25: 1, 6: 14}), LIGHT) is Outcome.BACKGAMMON  # on the bar
    assert classify(board({19: 1, 6: 14}, {}), DARK) is Outcome.BACKGAMMON  # the same for dark
    assert classify(board({6: 14}, {}), DARK) is Outcome.SINGLE


@pytest.mark.parametrize(
    ("start", "outcome", "points"),
    [
        (board({1: 1}, {6: 14}), Outcome.SINGLE, 1),
        (LAST_CHECKER_GAMMON, Outcome.GAMMON, 2),
        (LAST_CHECKER_BACKGAMMON, Outcome.BACKGAMMON, 3),
        (board({1: 1}, {25: 1, 6: 14}), Outcome.BACKGAMMON, 3),
    ],
)
def test_bearing_off_the_fifteenth_checker_ends_the_game(start: Board, outcome: Outcome, points: int) -> None:
    game = Game(start=start, first=LIGHT)
    result = bear_off_win(game)
    assert (result.winner, result.outcome, result.cube, result.points) == (LIGHT, outcome, 1, points)
    assert game.history[-1].kind is EventKind.WIN and game.history[-1].points == points
    with pytest.raises(GameError, match="the game is over"):
        game.roll(1, 2)


@pytest.mark.parametrize(
    ("start", "points"), [(board({1: 1}, {6: 14}), 2), (LAST_CHECKER_GAMMON, 4), (LAST_CHECKER_BACKGAMMON, 6)]
)
def test_points_are_the_outcome_times_the_cube(start: Board, points: int) -> None:
    game = Game(start=start, first=LIGHT)
    game.offer_double()
    game.take()
    assert game.cube.value == 2 and game.cube.owner is DARK
    result = bear_off_win(game)
    assert result.cube == 2 and result.points == points


def test_resignation_scores_the_resigned_outcome_times_the_cube() -> None:
    game = Game(start=LAST_CHECKER_GAMMON, first=LIGHT)
    game.offer_double()
    game.take()
    game.resign(DARK, Outcome.GAMMON)
    assert game.result == GameResult(LIGHT, Outcome.GAMMON, 2, 4, resigned=True)


# ---- the cube in play ---------------------------------------------------------------------------------


def test_drop_ends_the_game_at_the_cube_value_before_the_double() -> None:
    game = Game(first=DARK)
    game.offer_double()  # dark doubles, light takes: light owns a 2-cube
    game.take()
    game.roll(3, 1)
    game.play(by_text(game, "8/5 6/5"))
    events = game.offer_double()  # light redoubles to 4
    assert events[0].text == "light doubles to 4" and game.phase is Phase.DOUBLED
    with pytest.raises(GameError, match="cannot drop its own double"):
        game.drop(LIGHT)
    game.drop()
    assert game.result == GameResult(LIGHT, Outcome.SINGLE, 2, 2, by_drop=True)
    assert kinds(game.history[-2:]) == [EventKind.DROP, EventKind.WIN]


def test_redouble_by_the_owner_only() -> None:
    game = Game(first=DARK)
    game.offer_double()
    game.take()  # light owns the cube
    game.roll(3, 1)
    game.play(by_text(game, "8/5 6/5"))
    game.roll(3, 1)
    game.play(by_text(game, "8/5 6/5"))
    assert game.on_roll is DARK
    with pytest.raises(CubeError, match="dark may not double: light owns the cube"):
        game.offer_double()
    assert game.phase is Phase.ROLL


def test_double_only_before_rolling_and_only_by_the_side_on_roll() -> None:
    game = opened()
    with pytest.raises(GameError, match="only the side on roll doubles"):
        game.offer_double(LIGHT)
    game.roll(5, 2)
    with pytest.raises(GameError, match="double before rolling"):
        game.offer_double()
    with pytest.raises(CubeError, match="no double to take"):
        game.take()


def test_no_roll_while_a_double_waits() -> None:
    game = opened()
    game.offer_double()
    with pytest.raises(GameError, match="dark has doubled: light must take or drop first"):
        game.roll(3, 1)


def test_cube_cap_in_play() -> None:
    game = Game(RuleOptions(max_cube=4), start=board({1: 2, 2: 2}, {6: 3, 5: 3}), first=LIGHT)
    game.offer_double()
    game.take()
    game.roll(2, 1)
    game.play(game.legal_plays()[0])
    game.offer_double()  # dark redoubles to 4
    game.take()
    game.roll(1, 1)
    game.play(game.legal_plays()[0])
    assert game.cube.value == 4 and game.cube.owner is LIGHT and game.on_roll is LIGHT
    with pytest.raises(CubeError, match="the cube is at 4, it cannot be turned"):
        game.offer_double()


def test_beaver_keeps_the_cube_at_four_times() -> None:
    game = opened(RuleOptions(beavers=True))
    events = game.offer_double()
    events = game.beaver()
    assert events[0].kind is EventKind.BEAVER
    assert (game.cube.value, game.cube.owner) == (4, LIGHT)
    assert game.on_roll is DARK and game.phase is Phase.ROLL  # the doubler rolls


def test_beaver_needs_the_option_and_a_money_game() -> None:
    game = opened()
    game.offer_double()
    with pytest.raises(CubeError, match="beavers are not allowed"):
        game.beaver()
    game = opened(RuleOptions(beavers=True), money=False)
    game.offer_double()
    with pytest.raises(CubeError, match="money games only"):
        game.beaver()


@pytest.mark.parametrize(
    ("jacoby", "money", "turned", "points"),
    [
        (True, True, False, 1),  # Jacoby: a gammon counts single while the cube is centred
        (False, True, False, 2),
        (True, True, True, 4),  # once the cube is turned the gammon counts
        (True, False, False, 2),  # matches ignore the Jacoby rule
    ],
)
def test_jacoby_rule(jacoby: bool, money: bool, turned: bool, points: int) -> None:
    game = Game(RuleOptions(jacoby=jacoby), money=money, start=LAST_CHECKER_GAMMON, first=LIGHT)
    if turned:
        game.offer_double()
        game.take()
    result = bear_off_win(game)
    assert result.outcome is Outcome.GAMMON and result.points == points
    assert result.jacoby == (jacoby and money and not turned)


def test_automatic_doubles_up_to_the_cap() -> None:
    game = Game(RuleOptions(automatic_doubles=True, automatic_double_cap=2))
    for _ in range(3):
        game.opening_roll(5, 5)
    assert game.cube.value == 4 and game.cube.owner is None
    assert kinds(game.history).count(EventKind.AUTOMATIC_DOUBLE) == 2
    game.opening_roll(6, 1)
    game.play(by_text(game, "13/7 8/7"))
    assert game.cube.value == 4 and game.cube.may_double(DARK)  # still centred
    game.offer_double()
    assert game.history[-1].text == "dark doubles to 8"


def test_automatic_doubles_only_when_switched_on_and_in_money_games() -> None:
    for options, money in ((RuleOptions(), True), (RuleOptions(automatic_doubles=True), False)):
        game = Game(options, money=money)
        game.opening_roll(2, 2)
        assert game.cube.value == 1


def test_automatic_doubles_leave_jacoby_in_force() -> None:
    game = Game(RuleOptions(automatic_doubles=True, jacoby=True))
    game.opening_roll(3, 3)
    assert game.cube.value == 2 and game.cube.owner is None
    result = game._score(LIGHT, Outcome.GAMMON, game.cube)
    assert result.points == 2 and result.jacoby  # single game times the 2-cube


def test_crawford_game_allows_no_doubling() -> None:
    game = opened(money=False, crawford=True)
    with pytest.raises(CubeError, match="no doubling in the Crawford game"):
        game.offer_double()
    game = opened(RuleOptions(cubeless=True), money=False)
    with pytest.raises(CubeError, match="cubeless match: no doubling"):
        game.offer_double()


# ---- corrections ---------------------------------------------------------------------------------------

SIX_ONE = next(p for p in legal_plays(START, (6, 1)) if p.text == "13/7 8/7").result


def test_house_remedy_refuses_the_play_and_replays_the_same_numbers() -> None:
    game = Game()
    game.opening_roll(3, 1)
    j = game.play(SIX_ONE)  # a 6-1 play for a 3-1 roll
    assert not j.legal and j.reason
    assert game.phase is Phase.PLAY and game.on_roll is LIGHT and game.dice == (3, 1)
    assert game.board == Board.start()  # the pre-roll position stands
    assert game.pending_correction is j
    assert game.history[-1].kind is EventKind.ILLEGAL and "play 3-1 again" in game.history[-1].text
    with pytest.raises(GameError, match="light has 3-1 to play first"):
        game.roll(5, 2, side=DARK)
    j2 = game.play(by_text(game, "8/5 6/5"))
    assert j2.legal and game.pending_correction is None and game.on_roll is DARK
    assert "(corrected)" in game.history[-1].text


def responsible(on: bool = True) -> RuleOptions:
    """Tournament rules under Responsible Moves (the opponent may accept an illegal play), or the house's."""
    return RuleOptions(tournament_mode=True, moves=MovesRule.RESPONSIBLE) if on else RuleOptions()


def tournament(moves: MovesRule = MovesRule.RESPONSIBLE, monitor: bool = True) -> Game:
    game = Game(RuleOptions(tournament_mode=True, moves=moves, monitor=monitor))
    game.opening_roll(3, 1)
    j = game.play(SIX_ONE)
    assert not j.legal and game.phase is Phase.ILLEGAL
    return game


def test_tournament_opponent_accepts_the_illegal_play() -> None:
    game = tournament()
    assert game.board == Board.start() and game.pending_illegal is not None
    with pytest.raises(GameError, match="only dark may accept"):
        game.accept_illegal(LIGHT)
    with pytest.raises(GameError, match="waits for dark"):
        game.play(by_text(game, "8/5 6/5"))
    game.accept_illegal()
    assert game.board == Board.from_position(SIX_ONE, LIGHT)
    assert game.on_roll is DARK and game.phase is Phase.ROLL and game.pending_illegal is None


def test_tournament_illegal_play_stands_once_the_next_roll_is_thrown() -> None:
    game = tournament()
    with pytest.raises(GameError, match="waits for dark"):
        game.roll(4, 2, side=LIGHT)
    events = game.roll(4, 2)
    assert kinds(events) == [EventKind.ILLEGAL_STANDS, EventKind.ROLL]
    assert game.board == Board.from_position(SIX_ONE, LIGHT)
    assert game.on_roll is DARK and game.phase is Phase.PLAY and game.dice == (4, 2)


def test_tournament_illegal_play_stands_when_the_opponent_doubles() -> None:
    game = tournament()
    events = game.offer_double()
    assert kinds(events) == [EventKind.ILLEGAL_STANDS, EventKind.DOUBLE]
    assert game.board == Board.from_position(SIX_ONE, LIGHT) and events[1].side is DARK


def test_legal_moves_with_a_monitor_refuses_the_illegal_play_at_once() -> None:
    game = Game(RuleOptions(tournament_mode=True))  # Legal Moves: the policy when none is named
    game.opening_roll(3, 1)
    assert not game.play(SIX_ONE).legal
    assert game.phase is Phase.PLAY and game.pending_correction is not None and game.board == Board.start()


def test_legal_moves_without_a_monitor_cannot_be_accepted_but_stands_once_the_opponent_rolls() -> None:
    game = tournament(MovesRule.LEGAL, monitor=False)
    assert "corrected if a player asks before dark rolls" in game.history[-1].text
    with pytest.raises(GameError, match="under Legal Moves an illegal play cannot be accepted"):
        game.accept_illegal()
    assert kinds(game.roll(5, 2)) == [EventKind.ILLEGAL_STANDS, EventKind.ROLL]
    assert game.board == Board.from_position(SIX_ONE, LIGHT)


def test_legal_moves_without_a_monitor_is_corrected_when_asked() -> None:
    game = tournament(MovesRule.LEGAL, monitor=False)
    game.demand_correction()
    assert game.phase is Phase.PLAY and game.board == Board.start() and game.dice == (3, 1)


def test_tournament_opponent_demands_a_correction() -> None:
    game = tournament()
    game.demand_correction()
    assert game.phase is Phase.PLAY and game.board == Board.start() and game.dice == (3, 1)
    assert game.pending_correction is not None
    assert game.play(by_text(game, "8/5 6/5")).legal and game.on_roll is DARK


# ---- taking back, journaling, replaying --------------------------------------------------------------


def test_pop_takes_back_the_last_action_exactly() -> None:
    game = opened()
    before = (game.state, list(game.history))
    game.roll(6, 1)
    game.play(by_text(game, "13/7 8/7"))
    game.pop()
    assert game.phase is Phase.PLAY and game.dice == (6, 1)
    game.pop()
    assert (game.state, game.history) == before
    blocked = Game(start=board({18: 2, 6: 13}, {13: 2, 1: 13}), first=DARK)
    blocked.roll(6, 6)
    assert kinds(blocked.pop()) == [EventKind.ROLL, EventKind.PASS]
    assert blocked.on_roll is DARK and blocked.phase is Phase.ROLL and not blocked.history
    with pytest.raises(GameError, match="nothing to take back"):
        blocked.pop()


def random_game(rng: random.Random, options: RuleOptions | None = None, cube_rate: float = 0.05) -> Game:
    """A whole game by random legal play, with random cube actions."""
    game = Game(options or RuleOptions())
    while game.phase is Phase.OPENING:
        game.opening_roll(rng.randint(1, 6), rng.randint(1, 6))
    for _ in range(2000):
        if game.over:
            break
        if game.phase is Phase.ROLL:
            if rng.random() < cube_rate and game.cube.may_double(game.on_roll):
                game.offer_double()
                continue
            game.roll(rng.randint(1, 6), rng.randint(1, 6))
        elif game.phase is Phase.DOUBLED:
            if rng.random() < 0.8:
                game.take()
            else:
                game.drop()
        else:
            game.play(rng.choice(game.legal_plays()))
    return game


def test_random_games_end_with_a_valid_result() -> None:
    rng = random.Random(20261129)
    outcomes = set()
    for _ in range(200):
        game = random_game(rng)
        r = game.result
        assert game.over and r is not None
        if r.by_drop:
            assert r.outcome is Outcome.SINGLE and r.points == r.cube
        else:
            assert game.board.off(r.winner) == 15 and game.board.off(r.loser) < 15
            assert r.outcome is classify(game.board, r.winner) and r.points == r.outcome.value * r.cube
        assert game.history[-1].kind is EventKind.WIN and game.history[-1].points == r.points
        outcomes.add((r.outcome, r.by_drop))
    assert {(Outcome.SINGLE, False), (Outcome.GAMMON, False), (Outcome.SINGLE, True)} <= outcomes


def test_journal_round_trip_replays_the_same_game() -> None:
    rng = random.Random(7)
    for options in (RuleOptions(), RuleOptions(beavers=True, automatic_doubles=True, jacoby=True)):
        game = random_game(rng, options, cube_rate=0.2)
        journal = json.loads(json.dumps([e.to_dict() for e in game.history]))
        again = Game(options)
        again.replay(journal)
        assert again.history == game.history and again.state == game.state


def test_journal_replays_corrections_and_a_game_in_progress() -> None:
    for mode in (False, True):
        game = Game(responsible(mode))
        game.opening_roll(3, 1)
        game.play(SIX_ONE)
        if mode:
            game.roll(2, 2)  # the illegal play stands
        else:
            game.play(by_text(game, "8/5 6/5"))
            game.roll(2, 2)
        again = Game(responsible(mode))
        again.replay([e.to_dict() for e in game.history])
        assert again.state == game.state and again.history == game.history


def test_journal_that_does_not_fit_is_refused() -> None:
    game = opened()
    journal = [e.to_dict() for e in game.history]
    journal[0]["dice"] = [1, 3]  # dark won that opening roll instead: light's play no longer fits
    with pytest.raises(GameError, match="does not replay"):
        Game().replay(journal)
    with pytest.raises(EventError, match="not a game event"):
        Event.from_dict({"kind": "dance"})
    with pytest.raises(GameError, match="has no cause"):
        Game().replay([{"kind": "win", "side": "light"}])


def test_status_words() -> None:
    game = Game()
    assert game.status() == "opening roll: one die each"
    game.opening_roll(1, 3)
    assert game.status() == "dark to play 3-1"
    game.play(by_text(game, "8/5 6/5"))
    assert game.status() == "light to roll (or double)"


def test_an_accepted_illegal_play_can_end_the_game() -> None:
    game = Game(responsible(), start=board({6: 1, 5: 1}, {6: 15}), first=LIGHT)
    game.roll(2, 1)  # 2-1 cannot bear off checkers from the 6- and 5-points
    assert not game.play(board({}, {6: 15})).legal
    events = game.accept_illegal()
    assert kinds(events) == [EventKind.ACCEPT_ILLEGAL, EventKind.WIN]
    assert game.result == GameResult(LIGHT, Outcome.GAMMON, 1, 2)  # dark has none off


def test_events_are_plain_data() -> None:
    game = opened()
    game.roll(6, 1)
    game.play(by_text(game, "13/7 8/7"))
    data = game.history[-1].to_dict()
    assert data["kind"] == "play" and data["side"] == "dark" and data["dice"] == [6, 1]
    assert data["play"] == "13/7 8/7" and data["cube"] == 1 and len(data["board"]["dark"]) == 25
    assert json.loads(json.dumps(data)) == data
    assert Event.from_dict(data) == game.history[-1]


def test_result_words() -> None:
    assert GameResult(LIGHT, Outcome.GAMMON, 2, 4).text == "light wins a gammon: 4 points"
    assert (
        GameResult(DARK, Outcome.SINGLE, 2, 2, by_drop=True).text
        == "dark wins as the double is dropped: 2 points"
    )
    jacoby = GameResult(DARK, Outcome.BACKGAMMON, 1, 1, jacoby=True).text
    assert jacoby.startswith("dark wins a backgammon: 1 point (counted single: Jacoby rule")


def test_random_games_with_illegal_plays_and_take_backs() -> None:
    """One turn in ten tries a play of another roll first; house and tournament remedies both hold."""
    rng = random.Random(99)
    seen: list[EventKind] = []
    for n in range(24):
        game = Game(responsible(n % 2 == 1))
        while game.phase is Phase.OPENING:
            game.opening_roll(rng.randint(1, 6), rng.randint(1, 6))
        while not game.over:
            if game.phase is Phase.ROLL:
                game.roll(rng.randint(1, 6), rng.randint(1, 6))
                continue
            if game.phase is Phase.ILLEGAL:
                choice = rng.randrange(3)
                if choice == 0:
                    game.accept_illegal()
                elif choice == 1:
                    game.demand_correction()
                else:
                    game.roll(1, 2)  # the play stands
                continue
            plays = game.legal_plays()
            wrong: list[Play] = []
            if rng.random() < 0.1:
                results = {p.result for p in plays}
                other = legal_plays(game.position, (rng.randint(1, 6), rng.randint(1, 6)))
                wrong = [p for p in other if p.result not in results]
            if wrong:
                before = (game.board, game.on_roll, game.dice)
                assert not game.play(rng.choice(wrong)).legal
                assert (game.board, game.on_roll, game.dice) == before  # nothing applied yet
                assert (game.phase is Phase.ILLEGAL) == game.options.pends_illegal
                continue
            state = game.state
            game.play(rng.choice(plays))
            if rng.random() < 0.05:
                game.pop()
                assert game.state == state
        r = game.result
        assert r is not None and r.points == r.outcome.value * r.cube
        if r.outcome is not Outcome.SINGLE:
            assert game.board.off(r.loser) == 0
        seen += kinds(game.history)
    for kind in (EventKind.ACCEPT_ILLEGAL, EventKind.CORRECTION, EventKind.ILLEGAL_STANDS):
        assert seen.count(kind) >= 3
    assert seen.count(EventKind.ILLEGAL) >= 30
