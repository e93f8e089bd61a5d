"""The table console: a web page served by the referee itself, and a small JSON interface beside it.

It shows what the referee sees and decided (the board as read, the rectified camera frame, the turn, the
verdicts and their reasons, the narration, the score, the record with its evidence frames) and lets a
table without physical buttons press them, with the table's PIN. Off unless asked for
(``referee run --console [HOST:]PORT``, ``referee demo --console [HOST:]PORT``, ``console = "..."`` in
the config); it binds 127.0.0.1 unless a host is given.

| module | what it holds |
| --- | --- |
| ``address`` | ``[HOST:]PORT`` or ``systemd``, and the listening socket |
| ``view`` | the session copied into immutable values in the frame loop's thread |
| ``state``, ``board_svg``, ``history`` | the state as JSON, the board as SVG, the record as JSON |
| ``hub`` | the hand-over from the frame loop and the live stream of events |
| ``feed`` | the latest rectified frame as JPEG, a few a second, on its own thread |
| ``guard`` | the PIN, the CSRF token, the limit on wrong PINs |
| ``app``, ``server`` | the Starlette application, uvicorn on its own thread |
"""
