"""Every notation reads back what it writes: Position ID, Match ID, XGID and .mat, for any value."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from strategies import match_states, matches, positions

from bgboard.position import Position
from referee.match import Match
from referee.notation.match_id import MatchState, decode_match_id, encode_match_id
from referee.notation.matfile import parse_mat, write_mat
from referee.notation.position_id import decode_position_id, encode_position_id
from referee.notation.xgid import Xgid, decode_xgid, encode_xgid


@given(positions())
def test_position_ids_read_back(position: Position) -> None:
    text = encode_position_id(position)
    assert len(text) == 14 and decode_position_id(text) == position
    # the side order is part of the ID: the other side on roll is another ID unless the board is symmetric
    assert (encode_position_id(position.swap()) == text) == (position.swap() == position)


@given(match_states())
def test_match_ids_read_back(state: MatchState) -> None:
    text = encode_match_id(state)
    assert len(text) == 12 and encode_match_id(decode_match_id(text)) == text


@given(positions(), match_states(), st.booleans(), st.integers(0, 12))
def test_xgids_read_back(position: Position, state: MatchState, beavers: bool, log_cube: int) -> None:
    x = Xgid(position, state, beavers=beavers and state.match_length == 0, max_cube=1 << log_cube)
    text = encode_xgid(*x)
    assert decode_xgid(text) == x and decode_xgid(text.removeprefix("XGID=")) == x


@given(matches())
def test_mat_files_read_back_and_replay(match: Match) -> None:
    record = match.to_record()
    text = write_mat(record)
    again = parse_mat(text)
    assert again == record and write_mat(again) == text
    replayed = Match.from_record(again)  # every play judged legal, every cube action and result checked
    assert replayed.score == match.score and replayed.winner is match.winner
