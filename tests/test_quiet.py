"""A table that hears nothing for a while is told what the referee waits for; a moved camera is noticed
by the field's edges; the settle gate watches the camera's small stream."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_session_fixtures import reading

from bgboard.layout import Board
from referee.quiet import MOVED, RESTLESS, SET_UP, Quiet
from referee.session import Observation, Say, Stage

START = Board.start()


def quiet_run(quiet: Quiet, frames: list[tuple[Observation | None, bool]], said_at: int = -1) -> list[str]:
    out: list[str] = []
    for i, (obs, moved_) in enumerate(frames):
        heard = [Say(None, "something")] if i == said_at else []
        out += [s.text for s in quiet.after(i * 0.1, obs, heard, moved_)]
    return out


def settled(t: float = 0.0) -> Observation:
    return Observation(t, reading(START))


@pytest.mark.parametrize(
    ("stage", "frame", "moved_", "expected"),
    [
        (Stage.SETUP, settled(), False, [SET_UP]),
        (Stage.ROLL, settled(), False, []),  # waiting for a throw is not being stuck
        (Stage.ROLL, None, True, [MOVED]),
        (Stage.SETUP, None, False, [RESTLESS]),
    ],
)
def test_a_quiet_table_is_told_what_the_referee_waits_for(
    stage: Stage, frame: Observation | None, moved_: bool, expected: list[str]
) -> None:
    quiet = Quiet(lambda: stage, after=2.0, restless_after=4.0)
    frames = [(frame, moved_)] * 60  # six seconds of it
    assert quiet_run(quiet, frames) == expected  # once
    quiet = Quiet(lambda: stage, after=2.0, restless_after=4.0)
    assert quiet_run(quiet, [(frame, moved_)] * 15) == []  # not yet
    quiet = Quiet(lambda: stage, after=2.0, restless_after=4.0)
    assert quiet_run(quiet, [(frame, moved_)] * 30, said_at=10) == []  # the session spoke: clock again
    if expected == [RESTLESS]:  # a board never still waits longer than the rest before it is told
        assert quiet_run(Quiet(lambda: stage, after=2.0, restless_after=4.0), [(frame, moved_)] * 35) == []


def test_the_field_edges_tell_a_moved_camera_on_real_photographs(shared_data: Path) -> None:
    """Calibrated on frame0.jpg, the same camera's other frames (hands and an arm over the board) keep
    their field edges; the frame shifted by a knock of ten pixels does not."""
    import json

    import cv2
    import numpy as np

    from bgboard.layout import ImageLayout
    from calibration.learn import calibrate
    from vision.alignment import FieldEdges

    boards = shared_data / "real-boards"
    labels = {e["image"]: e for e in json.loads((boards / "labels.json").read_text())}
    frame0 = cv2.imread(str(boards / "frame0.jpg"))
    label = labels["frame0.jpg"]
    profile = calibrate(frame0, [tuple(c) for c in label["board_quad"]], known=ImageLayout.from_json(label))
    sight = FieldEdges(profile)
    for name in ("frame0.jpg", "frame2.jpg", "frame4.jpg"):
        assert sight.moved(cv2.imread(str(boards / name))) is False, name
    knocked = cv2.warpAffine(frame0, np.float32([[1, 0, 10], [0, 1, 4]]), (frame0.shape[1], frame0.shape[0]))
    assert sight.moved(knocked) is True


def test_the_settle_gate_watches_the_cameras_small_stream() -> None:
    """With a lores picture in the frame the gate uses it: a still lores stream settles even while the
    main picture flickers (and a moving one does not, however still the main picture is)."""
    import numpy as np

    from hardware.frames import Frame
    from referee.loop import Pipeline

    class Reader:
        rectifier = None

        def read(self, frame: object, *, expected: object = None, **still: object) -> object:
            return reading(START)  # the turn's still frame (``before``, ``same_board``) changes nothing

    rng = np.random.default_rng(0)
    still = np.zeros((240, 320), np.uint8)
    pipeline = Pipeline(Reader(), still_frames=2)  # type: ignore[arg-type]
    seen = []
    for i in range(5):
        noisy = rng.integers(0, 255, (72, 128, 3), dtype=np.uint8)
        seen.append(pipeline.observe(Frame(noisy, i * 0.1, i, lores=still)).reading is not None)
    assert seen == [False, False, True, True, True]
    pipeline = Pipeline(Reader(), still_frames=2)  # type: ignore[arg-type]
    calm = np.zeros((72, 128, 3), np.uint8)
    moving = [
        pipeline.observe(Frame(calm, i * 0.1, i, lores=rng.integers(0, 255, (240, 320), dtype=np.uint8)))
        for i in range(5)
    ]
    assert all(o.reading is None for o in moving)
