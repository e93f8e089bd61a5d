"""Find the doubling cube: on the bar (centre, near the top or bottom edge) or in a side tray.

The field quad is rectified (with a margin for the trays either side); the cube is the most
square-looking light block of cube size on the bar or in a tray. Its face is read only where a
numeral matches a drawn template clearly; otherwise ``value`` is None (the session keeps the cube
value it knows from the game).

    >>> import numpy as np
    >>> quad = np.array([[100, 50], [500, 50], [500, 350], [100, 350]], np.float32)
    >>> find_cube(np.full((400, 600, 3), 90, np.uint8), quad) is None
    True
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.reading import CubeReading

FIELD_PX = 600  # rectified field width
CUBE_IN_FIELD = 0.058  # cube edge / field width (a 27 mm cube on a ~46 cm field)
TRAY = 0.13  # how far beyond the field's sides the trays reach, in field widths
BAR = 0.06  # half-width of the strip searched on the bar, in field widths
FACES = (2, 4, 8, 16, 32, 64)


def _rectify(image: np.ndarray, quad: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """The field and its trays, rectified; plus the homography back to the image and field height."""
    q = quad.astype(np.float32)
    width = (np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3])) / 2
    height = (np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1])) / 2
    fh = FIELD_PX * height / max(float(width), 1.0)
    off = TRAY * FIELD_PX
    dst = np.array([[off, 0], [off + FIELD_PX, 0], [off + FIELD_PX, fh], [off, fh]], np.float32)
    h = cv2.getPerspectiveTransform(q, dst)
    size = (int(FIELD_PX + 2 * off), int(round(fh)))
    flat = cv2.warpPerspective(image, h, size, flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
    return flat, np.linalg.inv(h), float(fh)


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
            ring = cv2.dilate(inner, np.ones((7, 7), np.uint8)) - inner
            inside = float(cv2.mean(roi, inner)[0])
            around = float(cv2.mean(roi, ring)[0])
            found.append((cx, cy, (w + h) / 2, abs(inside - around)))
    return found


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


def find_cube(image: np.ndarray, field_quad: np.ndarray) -> CubeReading | None:
    """The doubling cube near the field, or None when none is seen.

    ``location`` is "centre", "top" or "bottom" on the bar, or "tray" beside the field.
    """
    quad = np.asarray(field_quad, dtype=np.float32).reshape(-1, 2)
    if quad.shape != (4, 2):
        raise ValueError("field_quad must be 4 corners (tl, tr, br, bl) as [[x, y], ...]")
    flat, back, fh = _rectify(image, quad)
    gray = cv2.cvtColor(flat, cv2.COLOR_BGR2GRAY)
    side = CUBE_IN_FIELD * FIELD_PX
    off = TRAY * FIELD_PX

    def where(cx: float, cy: float) -> bool:
        u = (cx - off) / FIELD_PX
        return abs(u - 0.5) < BAR or u < -0.02 or u > 1.02

    best = None
    for cx, cy, s, score in _squares(gray, side, where):
        on_bar = abs((cx - off) / FIELD_PX - 0.5) < BAR
        if score >= 25 and (best is None or score > best[3]):
            best = (cx, cy, s, score, on_bar)
    if best is None:
        return None
    cx, cy, s, _, on_bar = best
    if on_bar:
        v = cy / fh
        location = "top" if v < 0.3 else "bottom" if v > 0.7 else "centre"
    else:
        location = "tray"
    half = int(s / 2)
    crop = gray[max(0, int(cy) - half) : int(cy) + half, max(0, int(cx) - half) : int(cx) + half]
    value = _read_face(crop) if crop.size else None
    x, y = cv2.perspectiveTransform(np.array([[[cx, cy]]], np.float32), back)[0, 0]
    return CubeReading(location, (round(float(x), 1), round(float(y), 1)), value)
