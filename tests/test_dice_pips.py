"""Classical pip counting on drawn die faces: every layout, both polarities, turned; see-through pips."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.dice_pips import LAYOUTS, count_pips

FACE = 44  # drawn top face side, px
PITCH = 12  # corner pip offset from the centre, px
BOX = 64  # the detector's box side for such a face


def face(
    value: int,
    angle: float = 0.0,
    body: tuple[int, int, int] = (235, 235, 235),
    pip: tuple[int, int, int] = (25, 25, 25),
    ghost: int | None = None,
) -> np.ndarray:
    """A 120x120 table with one die face at (60, 60); ``ghost`` adds a translucent die's faint far pips."""
    img = np.full((120, 120, 3), 150, np.uint8)
    rot = cv2.getRotationMatrix2D((0, 0), angle, 1.0)[:, :2]
    corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * FACE / 2 @ rot.T + 60
    cv2.fillConvexPoly(img, corners.astype(np.int32), body, cv2.LINE_AA)
    if ghost is not None:
        faint = tuple(int(0.85 * b + 0.15 * p) for b, p in zip(body, pip, strict=True))
        for u, v in LAYOUTS[ghost] @ rot.T * PITCH * 0.8 + 60:
            cv2.circle(img, (int(round(u)), int(round(v))), 3, faint, -1, cv2.LINE_AA)
    for u, v in LAYOUTS[value] @ rot.T * PITCH + 60:
        cv2.circle(img, (int(round(u)), int(round(v))), 4, pip, -1, cv2.LINE_AA)
    return img


@pytest.mark.parametrize("value", range(1, 7))
@pytest.mark.parametrize("angle", [0.0, 17.0, 45.0, 70.0])
def test_dark_pips_on_a_light_die(value: int, angle: float) -> None:
    assert count_pips(face(value, angle), 60.0, 60.0, BOX).value == value


@pytest.mark.parametrize("value", range(1, 7))
def test_light_pips_on_a_dark_and_a_coloured_die(value: int) -> None:
    dark = face(value, 30.0, body=(30, 30, 30), pip=(240, 240, 240))
    red = face(value, 60.0, body=(30, 30, 200), pip=(80, 220, 240))
    assert count_pips(dark, 60.0, 60.0, BOX).value == value
    assert count_pips(red, 60.0, 60.0, BOX).value == value


@pytest.mark.parametrize(("value", "ghost"), [(2, 5), (1, 6), (3, 4)])
def test_faint_see_through_pips_are_not_counted(value: int, ghost: int) -> None:
    img = face(value, 10.0, body=(60, 60, 200), pip=(240, 240, 240), ghost=ghost)
    assert count_pips(img, 60.0, 60.0, BOX).value == value


def test_a_blank_face_or_an_empty_table_has_no_count() -> None:
    assert count_pips(np.full((120, 120, 3), 150, np.uint8), 60.0, 60.0, BOX).value is None
    blank = face(1, 20.0, pip=(235, 235, 235))
    assert count_pips(blank, 60.0, 60.0, BOX).value is None


def test_the_fit_reports_pitch_and_pip_size() -> None:
    got = count_pips(face(5, 20.0), 60.0, 60.0, BOX)
    assert got.residual < 0.1
    assert got.pitch == pytest.approx(PITCH / BOX, rel=0.1)
    assert 0.5 < got.size < 0.9  # pip diameter 9 px over a 12 px pitch
