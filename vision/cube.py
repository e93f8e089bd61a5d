"""Find the doubling cube: on the bar (centre, near the top or bottom edge) or in a side tray.

The strips of the field where a cube may lie are rectified (the bar, and the trays either side); the
cube is the square block of cube size that stands out most from its surroundings there. Its face is
read only where a numeral matches a drawn template clearly; otherwise ``value`` is None (the session
keeps the cube value it knows from the game).

    >>> import numpy as np
    >>> quad = np.array([[100, 50], [500, 50], [500, 350], [100, 350]], np.float32)
    >>> find_cube(np.full((400, 600, 3), 90, np.uint8), quad) is None
    True
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from vision.reading import CubePlace, CubeReading

FIELD_PX = 600  # rectified field width searched: a cube is about 35 px there
FACE_PX = 40  # a found cube's face is read at this size
CUBE_IN_FIELD = 0.058  # cube edge / field width (a 27 mm cube on a ~46 cm field)
TRAY = 0.13  # how far beyond the field's sides the trays reach, in field widths
BAR = 0.06  # half-width of the strip searched on the bar, in field widths
FACES = (2, 4, 8, 16, 32, 64)


def cube_side(field_quad: np.ndarray) -> float:
    """A cube's side in image px on a field of these corners (tl, tr, br, bl)."""
    q = np.asarray(field_quad, dtype=np.float64).reshape(4, 2)
    return float(CUBE_IN_FIELD * (np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3])) / 2)


def _field_map(quad: np.ndarray) -> tuple[np.ndarray, float]:
    """The homography from the image to the rectified field (``FIELD_PX`` wide, trays either side) and
    the rectified field's height."""
    q = quad.astype(np.float32)
    width = (np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3])) / 2
    height = (np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1])) / 2
    fh = FIELD_PX * height / max(float(width), 1.0)
    off = TRAY * FIELD_PX
    dst = np.array([[off, 0], [off + FIELD_PX, 0], [off + FIELD_PX, fh], [off, fh]], np.float32)
    return cv2.getPerspectiveTransform(q, dst), float(fh)


def _strips(fh: float) -> list[tuple[CubePlace, int, int, float, float]]:
    """The rectified strips a cube may lie in: (place, x0, x1 of the strip with half a cube to spare,
    lo, hi of the centres that count), in rectified px: the bar, and the trays either side."""
    off, side = TRAY * FIELD_PX, CUBE_IN_FIELD * FIELD_PX
    mid = off + FIELD_PX / 2
    spare = side / 2 + 4
    regions = [
        (CubePlace.TRAY, 0.0, off - 0.02 * FIELD_PX),
        (CubePlace.BAR, mid - BAR * FIELD_PX, mid + BAR * FIELD_PX),
        (CubePlace.TRAY, off + 1.02 * FIELD_PX, 2 * off + FIELD_PX),
    ]
    full = 2 * off + FIELD_PX
    return [
        (place, int(max(0.0, lo - spare)), int(min(full, hi + spare)), lo, hi) for place, lo, hi in regions
    ]


def _squares(gray: np.ndarray, side: float, where) -> list[tuple[float, float, float, float]]:
    """Square outlines of about ``side`` px whose centre passes ``where(cx, cy)``.

    Each is (cx, cy, side, score) with score = contrast between the inside and a ring around it.
    """
    found = []
    pad = int(side)
    for lo, hi in ((40, 120), (20, 60)):
        edges = cv2.Canny(cv2.GaussianBlur(gray, (3, 3), 0), lo, hi)
        edges = cv2.dilate(edges, np.ones((2, 2), np.uint8))
        contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        for c in contours:
            _, _, bw, bh = cv2.boundingRect(c)  # a square's box is 1 to 1.42 times its side
            if max(bw, bh) < 0.65 * side or min(bw, bh) > 2.1 * side:
                continue
            (cx, cy), (w, h), _ = cv2.minAreaRect(c)
            if not (0.65 * side <= min(w, h) and max(w, h) <= 1.45 * side):
                continue
            if max(w, h) / max(min(w, h), 1) > 1.3 or not where(cx, cy):
                continue
            hull = cv2.convexHull(c)
            if cv2.contourArea(hull) < 0.86 * w * h:  # a checker (round) fills pi/4 of its box
                continue
            x0, y0 = max(0, int(cx) - pad), max(0, int(cy) - pad)
            roi = gray[y0 : int(cy) + pad, x0 : int(cx) + pad]
            inner = np.zeros_like(roi)
            cv2.drawContours(inner, [hull - np.array([x0, y0])], -1, 255, -1)
            ring = cv2.dilate(inner, _RING) - inner
            inside = float(cv2.mean(roi, inner)[0])
            around = float(cv2.mean(roi, ring)[0])
            found.append((cx, cy, (w + h) / 2, abs(inside - around)))
    return found


_RING = np.ones((7, 7), np.uint8)  # the ring around a square that its contrast is measured against


@lru_cache(maxsize=32)
def _template(text: str, side: int) -> np.ndarray:
    img = np.zeros((side, side), np.uint8)
    scale = 0.9 if len(text) == 1 else 0.7
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, scale, 2)
    cv2.putText(
        img, text, ((side - tw) // 2, (side + th) // 2), cv2.FONT_HERSHEY_DUPLEX, scale, 255, 2, cv2.LINE_AA
    )
    return img


def _read_face(gray: np.ndarray) -> int | None:
    """The numeral on a cube face crop, or None when no face template matches clearly."""
    side = 40
    face = cv2.resize(gray, (side, side), interpolation=cv2.INTER_AREA)
    ink = cv2.threshold(face, 0, 255, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)[1]
    # a margin lets the numeral match a few pixels off centre: the found square is rough
    ink = cv2.copyMakeBorder(ink, 4, 4, 4, 4, cv2.BORDER_CONSTANT, value=0)
    best, second, value = 0.0, 0.0, None
    for v in FACES:
        t = _template(str(v), side)
        for k in range(4):
            score = float(cv2.matchTemplate(ink, np.rot90(t, k).copy(), cv2.TM_CCOEFF_NORMED).max())
            if score > best:
                if value != v:
                    second = best
                best, value = score, v
            elif value != v:
                second = max(second, score)
    return value if best > 0.6 and best - second > 0.1 else None


def cube_strips(field_quad: np.ndarray) -> list[np.ndarray]:
    """The strips where a cube may lie (the bar, the trays either side), as polygons in image px."""
    quad = np.asarray(field_quad, dtype=np.float32).reshape(4, 2)
    to_field, fh = _field_map(quad)
    back = np.linalg.inv(to_field)
    out = []
    for _, x0, x1, _, _ in _strips(fh):
        m = CUBE_IN_FIELD * FIELD_PX
        rect = np.array([[[x0, -m], [x1, -m], [x1, fh + m], [x0, fh + m]]], np.float32)
        out.append(cv2.perspectiveTransform(rect, back)[0])
    return out


def find_cube(image: np.ndarray, field_quad: np.ndarray) -> CubeReading | None:
    """The doubling cube on the bar or beside the field, or None when none is seen.

    Only the strips where a cube may lie are rectified and searched: the bar and the trays either side.
    """
    quad = np.asarray(field_quad, dtype=np.float32).reshape(-1, 2)
    if quad.shape != (4, 2):
        raise ValueError("field_quad must be 4 corners (tl, tr, br, bl) as [[x, y], ...]")
    to_field, fh = _field_map(quad)
    side = CUBE_IN_FIELD * FIELD_PX
    best = None
    # a cube pushed to the bar's end overhangs the field's edge: the strips reach a cube beyond it
    m = int(round(side))
    for place, x0, x1, lo, hi in _strips(fh):
        shift = np.array([[1, 0, -x0], [0, 1, m], [0, 0, 1]], np.float64)
        strip = cv2.warpPerspective(
            image, shift @ to_field, (x1 - x0, int(round(fh)) + 2 * m), flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REPLICATE,
        )  # fmt: skip
        gray = cv2.cvtColor(strip, cv2.COLOR_BGR2GRAY)
        for cx, cy, s, score in _squares(gray, side, lambda cx, cy: lo <= cx + x0 <= hi):  # noqa: B023
            if score >= 25 and (best is None or score > best[3]):
                best = (cx + x0, cy - m, s, score, place)
    if best is None:
        return None
    cx, cy, s, _, place = best
    back = np.linalg.inv(to_field)
    h = s / 2
    square = np.array([[[cx - h, cy - h], [cx + h, cy - h], [cx + h, cy + h], [cx - h, cy + h]]], np.float32)
    corners = cv2.perspectiveTransform(square, back)[0]
    out = np.array([[0, 0], [FACE_PX, 0], [FACE_PX, FACE_PX], [0, FACE_PX]], np.float32)
    face = cv2.warpPerspective(image, cv2.getPerspectiveTransform(corners, out), (FACE_PX, FACE_PX))
    value = _read_face(cv2.cvtColor(face, cv2.COLOR_BGR2GRAY))
    x, y = cv2.perspectiveTransform(np.array([[[cx, cy]]], np.float32), back)[0, 0]
    return CubeReading(place, (round(float(x), 1), round(float(y), 1)), float(cy / fh), value)
