"""Standard backgammon notation: gnubg Position ID and Match ID, XGID, and .mat match transcripts.

>>> from bgboard.position import START
>>> encode_position_id(START)
'4HPwATDgc/ABMA'
"""

from referee.notation.match_id import MatchIdError, MatchState, decode_match_id, encode_match_id
from referee.notation.matfile import Action, GameRecord, MatchParseError, MatchRecord, parse_mat, write_mat
from referee.notation.position_id import PositionIdError, decode_position_id, encode_position_id
from referee.notation.xgid import Xgid, XgidError, decode_xgid, encode_xgid

__all__ = [
    "Action",
    "GameRecord",
    "MatchIdError",
    "MatchParseError",
    "MatchRecord",
    "MatchState",
    "PositionIdError",
    "Xgid",
    "XgidError",
    "decode_match_id",
    "decode_position_id",
    "decode_xgid",
    "encode_match_id",
    "encode_position_id",
    "encode_xgid",
    "parse_mat",
    "write_mat",
]
