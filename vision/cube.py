"""Find the doubling cube: on the bar (centre, near the top or bottom edge) or in a side tray.

The strips of the field where a cube may lie are rectified (the bar, and the trays either side); the
cube is the square block of cube size that stands out most from its surroundings there. Its face is
read where the marks on it (darker or lighter than the face, at any turn) match one face value's drawn
numeral clearly and no other value's; otherwise ``value`` is None (the session keeps the cube value it
knows from the game).

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


# A face's numeral is compared with drawn numerals of every face value in these fonts, turned every
# TURN degrees (a cube lies at any angle), both scaled into a NORM x NORM box (cubes' fonts differ in
# size and weight).
FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_TRIPLEX)
TURN = 10
NORM = 24
# A numeral is read when it matches a value's drawing at least this well (normalised correlation) and
# every other value's at least MARGIN worse: a logo, a glare or a shadow matches no drawing clearly.
# (Numerals read match at 0.86 or more; a cream disc behind a dark numeral, taken with the numeral's
# shape cut out of it, matched an 8 at 0.76.)
MATCH = 0.84
MARGIN = 0.12
# Ink is what differs from the face (darker or lighter), inside it (a part touching the crop's edge is
# the cube's side or the table), covering this share of the face: a numeral's strokes.
INK_SHARE = (0.03, 0.35)


def _boxed(mask: np.ndarray) -> np.ndarray | None:
    """``mask``'s marks scaled, keeping their shape, into the NORM x NORM box: zero mean, unit length."""
    ys, xs = np.nonzero(mask)
    if len(xs) < 4:
        return None
    crop = mask[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1].astype(np.float32)
    f = (NORM - 2) / max(crop.shape)
    w, h = max(1, round(crop.shape[1] * f)), max(1, round(crop.shape[0] * f))
    box = np.zeros((NORM, NORM), np.float32)
    x0, y0 = (NORM - w) // 2, (NORM - h) // 2
    box[y0 : y0 + h, x0 : x0 + w] = cv2.resize(crop, (w, h), interpolation=cv2.INTER_AREA)
    v = cv2.GaussianBlur(box, (3, 3), 0).ravel()  # a stroke a pixel off still overlaps
    v -= v.mean()
    n = float(np.linalg.norm(v))
    return v / n if n > 0 else None


@lru_cache(maxsize=1)
def _drawings() -> tuple[np.ndarray, np.ndarray]:
    """Every face value drawn in every font at every turn, boxed: (K, NORM * NORM) and their values."""
    vecs, values = [], []
    side = 96
    for value in FACES:
        text = str(value)
        for font in FONTS:
            img = np.zeros((side, side), np.uint8)
            (tw, th), _ = cv2.getTextSize(text, font, 1.4, 3)
            cv2.putText(img, text, ((side - tw) // 2, (side + th) // 2), font, 1.4, 255, 3, cv2.LINE_AA)
            for angle in range(0, 360, TURN):
                m = cv2.getRotationMatrix2D((side / 2, side / 2), angle, 1.0)
                v = _boxed(cv2.warpAffine(img, m, (side, side)) > 127)
                if v is not None:
                    vecs.append(v)
                    values.append(value)
    return np.stack(vecs), np.array(values)


def _inks(face: np.ndarray) -> list[np.ndarray]:
    """The marks on a face crop that may be its numeral: the parts darker than the face, and those
    lighter, that lie inside the crop, where they cover a numeral's share of it."""
    h, w = face.shape
    smooth = cv2.GaussianBlur(face, (3, 3), 0)
    dark = cv2.threshold(smooth, 0, 255, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)[1]
    found = []
    for mask in (dark, 255 - dark):
        n, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
        inside = [
            k
            for k in range(1, n)
            if stats[k, cv2.CC_STAT_LEFT] > 0
            and stats[k, cv2.CC_STAT_TOP] > 0
            and stats[k, cv2.CC_STAT_LEFT] + stats[k, cv2.CC_STAT_WIDTH] < w
            and stats[k, cv2.CC_STAT_TOP] + stats[k, cv2.CC_STAT_HEIGHT] < h
            and stats[k, cv2.CC_STAT_AREA] >= 0.01 * h * w
        ]
        ink = np.isin(labels, inside)
        if INK_SHARE[0] <= ink.mean() <= INK_SHARE[1]:
            found.append(ink)
    return found


def _read_face(gray: np.ndarray) -> int | None:
    """The numeral on a cube face crop (grey), or None when none matches a face value's drawing clearly.

    >>> face = np.full((40, 40), 40, np.uint8)
    >>> _ = cv2.putText(face, "8", (12, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.9, 230, 2, cv2.LINE_AA)
    >>> _read_face(face), _read_face(np.full((40, 40), 40, np.uint8))
    (8, None)
    """
    face = cv2.resize(gray, (FACE_PX, FACE_PX), interpolation=cv2.INTER_AREA)
    drawings, values = _drawings()
    best, value = -1.0, None
    for ink in _inks(face):
        v = _boxed(ink)
        if v is None:
            continue
        scores = drawings @ v
        by_value = {int(f): float(scores[values == f].max()) for f in FACES}
        top = max(by_value, key=by_value.__getitem__)
        others = max(s for f, s in by_value.items() if f != top)
        if by_value[top] >= MATCH and by_value[top] - others >= MARGIN and by_value[top] > best:
            best, value = by_value[top], top
    return value


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
    value = _face_value(image, to_field, (cx, cy), s)
    if value is None:
        # the outline may hold the side the camera sees too (a cube off the camera's nadir), and the
        # square read for its face then holds the rim: read again at a cube's own size
        value = _face_value(image, to_field, (cx, cy), side)
    return _reading(to_field, fh, (cx, cy), place, value)


def cube_at(image: np.ndarray, field_quad: np.ndarray, center: tuple[float, float]) -> CubeReading | None:
    """The cube lying at image point ``center`` when the cube-sized square there shows a face value's
    numeral; None otherwise (a die, whose pips seldom read as one, or a face not legible).

    The dice reader can take a cube its outline search missed (at the bar's end, its edges running
    into the checkers beside it) for a die: on the bar or beyond the field, where no die counts, a find
    whose face reads a cube's value is the cube.
    """
    quad = np.asarray(field_quad, dtype=np.float32).reshape(4, 2)
    to_field, fh = _field_map(quad)
    ((cx, cy),) = cv2.perspectiveTransform(np.array([[center]], np.float32), to_field)[0].tolist()
    side = CUBE_IN_FIELD * FIELD_PX
    value = _face_value(image, to_field, (cx, cy), side)
    if value is None:
        return None
    off = TRAY * FIELD_PX
    place = CubePlace.BAR if off <= cx <= off + FIELD_PX else CubePlace.TRAY
    return _reading(to_field, fh, (cx, cy), place, value)


def _face_value(
    image: np.ndarray, to_field: np.ndarray, centre: tuple[float, float], side: float
) -> int | None:
    """The face read off the square of ``side`` rectified px centred at rectified ``centre``."""
    cx, cy = centre
    h = side / 2
    square = np.array([[[cx - h, cy - h], [cx + h, cy - h], [cx + h, cy + h], [cx - h, cy + h]]], np.float32)
    corners = cv2.perspectiveTransform(square, np.linalg.inv(to_field))[0]
    out = np.array([[0, 0], [FACE_PX, 0], [FACE_PX, FACE_PX], [0, FACE_PX]], np.float32)
    face = cv2.warpPerspective(image, cv2.getPerspectiveTransform(corners, out), (FACE_PX, FACE_PX))
    return _read_face(cv2.cvtColor(face, cv2.COLOR_BGR2GRAY))


def _reading(
    to_field: np.ndarray, fh: float, centre: tuple[float, float], place: CubePlace, value: int | None
) -> CubeReading:
    """The cube found at rectified ``centre`` as a reading: its centre back in image px."""
    cx, cy = centre
    x, y = cv2.perspectiveTransform(np.array([[[cx, cy]]], np.float32), np.linalg.inv(to_field))[0, 0]
    return CubeReading(place, (round(float(x), 1), round(float(y), 1)), float(cy / fh), value)
