"""Tournament policies at the table: who points out an illegal play, and what then happens to it.

Under Legal Moves an illegal play noticed before the opponent's next roll is corrected: the pre-roll
position is restored and the same numbers are played again. Under Responsible Moves the opponent may
accept it instead. Either way a monitor may point it out only if both players agreed before the match
(``RuleOptions.monitor``). Without that agreement the referee records the play with its evidence, tells
the table nothing a legal play would not have told it, and says what it found only when a player asks
(:data:`~hardware.signals.Button.CHECK`) before the next roll; once that roll is thrown the play stands.

    >>> silent(RuleOptions(tournament_mode=True, monitor=False)), silent(RuleOptions())
    (True, False)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from bgboard.layout import Side
from hardware.signals import Signal
from referee import narration
from referee.events import EventKind
from referee.game import Phase
from referee.journal import Entry
from referee.observe import differences
from referee.rules_options import MovesRule, RuleOptions
from referee.turns import Say, Stage

if TYPE_CHECKING:
    from referee.session import Session


def silent(rules: RuleOptions) -> bool:
    """The referee keeps what it finds to itself until a player asks."""
    return rules.tournament_mode and not rules.monitor


def after_play(rules: RuleOptions, lines: list[str], status: str) -> list[Say]:
    """What the table is told after a legal play: its narration and "legal", or, with no monitor agreed,
    only whose roll it is (exactly what it is told after an illegal play it was not asked about)."""
    if silent(rules):
        return [Say(Signal.READY, status)]
    return [Say(None, line) for line in lines] + [Say(Signal.READY, f"legal. {status}")]


def illegal_text(
    rules: RuleOptions, mover: Side, dice: tuple[int, int], reason: str, fixes: Sequence[str]
) -> str:
    """An illegal play and its remedy in words (for the table, or only for the record when it is kept
    from the table); ``fixes`` say what to put back."""
    condonable = rules.tournament_mode and rules.moves is MovesRule.RESPONSIBLE
    text = narration.illegal(mover, dice, reason, condonable, fixes)
    if silent(rules):
        other = mover.other.value
        text += f" (not pointed out: no monitor was agreed; told if a player asks before {other} rolls)"
    return text


def kept(session: Session, t: float | None) -> list[Say]:
    """An illegal play found with no monitor agreed (the caller has recorded it with its evidence): it
    waits on the table, and the table hears only whose roll it is."""
    game = session.game
    assert game is not None and game.on_roll is not None and game.phase is Phase.ILLEGAL
    session.stage = Stage.ACCEPT
    nxt = game.on_roll.other
    may = " (or double)" if game.cube.why_not_double(nxt) is None else ""  # as Game.status says it
    out = [Say(Signal.READY, f"{nxt.value} to roll{may}")]
    if session.throws.early:  # as after a legal play: a throw before the dice were lifted is void
        session.throws.early = False
        text = narration.thrown_before_lifted(nxt, game.on_roll)
        session.record(Entry("reroll", t, side=nxt, text=text))
        out.append(Say(Signal.REROLL, text))
    return out


def check(session: Session, t: float | None) -> list[Say]:
    """A player asks whether the last play was legal (the CHECK button)."""
    game = session.game
    if game is None:
        return [Say(None, "check: no game in progress")]
    if game.phase is Phase.ILLEGAL and session.stage is Stage.ACCEPT:
        return _tell(session, t)
    kinds = [e.kind for e in game.history]
    plays = [i for i, k in enumerate(kinds) if k in (EventKind.PLAY, EventKind.ILLEGAL)]
    if not plays:
        return [Say(None, "check: no play has been made yet")]
    last = game.history[plays[-1]]
    assert last.side is not None
    who = last.side.value
    since = kinds[plays[-1] + 1 :]
    if EventKind.ILLEGAL_STANDS in since:
        return [
            Say(None, f"check: {who}'s illegal play stands: the next roll was thrown before anyone asked")
        ]
    if last.kind is EventKind.ILLEGAL:
        return [Say(None, f"check: {who}'s play was illegal and is being corrected: {game.status()}")]
    thrown = "; the next roll has been thrown" if EventKind.ROLL in since else ""
    return [Say(None, f"check: {who}'s play {last.play or '(no move)'} was legal{thrown}")]


def _tell(session: Session, t: float | None) -> list[Say]:
    """The referee says what it found about the pending illegal play, and the policy's remedy applies."""
    game = session.game
    assert game is not None and game.pending_illegal is not None
    mover, dice = game.on_roll, game.dice
    assert mover is not None and dice is not None
    reason = game.pending_illegal.judgement.reason
    responsible = game.options.moves is MovesRule.RESPONSIBLE
    if responsible:
        text = narration.illegal(mover, dice, reason, True, [])
        session.record(Entry("check", t, mover, dice, reason=reason, text=text))
        return [Say(Signal.ILLEGAL, text)]
    # Legal Moves: it must be corrected; what to put back comes from the last reading's sure cells
    seen = session.seen
    before = game.board
    fixes = [] if seen is None else differences(before, seen, session.options.orientation, sure_only=True)
    text = narration.illegal(mover, dice, reason, False, [d.fix for d in fixes])
    session.record(Entry("check", t, mover, dice, reason=reason, text=text))
    session.record_events(game.demand_correction(), t)
    session.stage = Stage.RESTORE
    return [Say(Signal.ILLEGAL, text)]
