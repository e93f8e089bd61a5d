"""Find the playing field in a frame: corners given by hand, four ArUco markers, or the field's outline.

Markers come from ``DICT_4X4_50``, ids 0, 1, 2, 3 stuck just outside the field's top-left, top-right,
bottom-right and bottom-left corners (``referee markers`` prints the sheet); each marker's corner nearest
the field's centre is taken as the field corner.

    >>> parse_corners("10,20 300,20 300,200 10,200")
    [(10.0, 20.0), (300.0, 20.0), (300.0, 200.0), (10.0, 200.0)]
"""

from __future__ import annotations

import re

import cv2
import numpy as np

from vision.rectify import check_corners, quad_aspect

MARKER_DICT = cv2.aruco.DICT_4X4_50
MARKER_IDS = (0, 1, 2, 3)  # tl, tr, br, bl


class FieldNotFound(ValueError):
    """Neither markers nor an outline gave the field; the message says to pass --corners."""


def parse_corners(text: str) -> list[tuple[float, float]]:
    """Reads ``"x,y x,y x,y x,y"`` (top-left, top-right, bottom-right, bottom-left)."""
    pairs = re.findall(r"(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)", text)
    rest = re.sub(r"(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)", "", text).strip(" ;")
    if len(pairs) != 4 or rest:
        raise ValueError(
            f"cannot read corners {text!r}: give four x,y pairs separated by spaces, "
            'top-left, top-right, bottom-right, bottom-left, e.g. "211,26 890,26 870,648 238,660"'
        )
    corners = [(float(x), float(y)) for x, y in pairs]
    check_corners(corners)
    return corners


def order_corners(points: np.ndarray) -> np.ndarray:
    """Four points as top-left, top-right, bottom-right, bottom-left."""
    p = np.asarray(points, dtype=np.float32).reshape(4, 2)
    s, d = p.sum(axis=1), p[:, 0] - p[:, 1]
    return np.array([p[np.argmin(s)], p[np.argmax(d)], p[np.argmax(s)], p[np.argmin(d)]], dtype=np.float32)


def find_markers(frame: np.ndarray) -> list[tuple[float, float]] | None:
    """The field corners from ArUco markers 0..3, or None when not all four are seen."""
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    detector = cv2.aruco.ArucoDetector(
        cv2.aruco.getPredefinedDictionary(MARKER_DICT), cv2.aruco.DetectorParameters()
    )
    corners, ids, _ = detector.detectMarkers(gray)
    if ids is None:
        return None
    found = {
        int(i): c.reshape(4, 2) for i, c in zip(ids.ravel(), corners, strict=True) if int(i) in MARKER_IDS
    }
    if len(found) != 4:
        return None
    centre = np.mean([found[i].mean(axis=0) for i in MARKER_IDS], axis=0)
    inner = [found[i][np.argmin(np.linalg.norm(found[i] - centre, axis=1))] for i in MARKER_IDS]
    try:
        return [(float(x), float(y)) for x, y in check_corners(inner)]
    except ValueError:
        return None


# what the playing field looks like from overhead, as the outline finder checks a candidate
FIELD_ASPECT = (0.85, 1.5)  # width over height of 24 points and the bar (trays and frame excluded)
MIN_FRACTION = 0.15  # of the frame: a field smaller than this is too small to read anyway
END_TEXTURE = 0.7  # its outermost columns vary along their length at least this much of the median column
BAR_OFF_CENTRE = 0.02  # of the width: where the bar's middle may lie from the field's (rendered: 0.003)
CANNY = ((40, 120), (20, 60), (80, 200))  # edge thresholds tried: light boards, dark boards, strong edges


def _quads(gray: np.ndarray, min_area: float) -> list[np.ndarray]:
    """Every convex four-sided outline (top-left first) in the frame's edges at a few thresholds."""
    found: list[np.ndarray] = []
    for lo, hi in CANNY:
        edges = cv2.dilate(cv2.Canny(gray, lo, hi), np.ones((3, 3), np.uint8))
        contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        for c in contours:
            hull = cv2.convexHull(c)
            area = cv2.contourArea(hull)
            if area < min_area or area > 0.98 * gray.size:
                continue
            approx = cv2.approxPolyDP(hull, 0.02 * cv2.arcLength(hull, True), True)
            if len(approx) == 4:
                q = order_corners(approx)
                if not any(np.abs(q - other).max() < 8 for other in found):
                    found.append(q)
    return found


def _halves(quads: list[np.ndarray]) -> list[np.ndarray]:
    """Two outlines side by side of one height and size (the field's halves, the bar between them),
    joined into the field they make."""
    joined = []
    for a in quads:
        for b in quads:
            height, width = a[3][1] - a[0][1], a[1][0] - a[0][0]
            beside = a[1][0] < b[0][0] + 0.02 * width and b[0][0] - a[1][0] < 0.3 * width
            alike = (
                abs(height - (b[3][1] - b[0][1])) < 0.15 * height and abs(a[0][1] - b[0][1]) < 0.1 * height
            )
            if beside and alike and 0.7 < cv2.contourArea(a) / cv2.contourArea(b) < 1.4:
                joined.append(np.array([a[0], b[1], b[2], a[3]], np.float32))
    return joined


def _looks_like_field(frame: np.ndarray, quad: np.ndarray, width: int = 320) -> bool:
    """Rectified, a field has its bar in the middle and points at both ends: its outermost columns vary
    along their length (they cross a point's triangle) as much as its median column, where a tray or
    the board's frame is plain."""
    from vision.geometry import find_bar
    from vision.rectify import Rectifier

    corners = [(float(x), float(y)) for x, y in quad]
    height = round(width / min(1.8, max(0.6, quad_aspect(corners))))
    canonical = Rectifier(corners, width, height, 0).warp(frame)
    lab = cv2.cvtColor(canonical, cv2.COLOR_BGR2LAB)
    spread = lab[..., 0].astype(np.float32).std(axis=0)
    end = max(3, width // 20)
    texture = min(spread[:end].mean(), spread[-end:].mean()) / max(float(np.median(spread)), 1e-6)
    x0, x1 = find_bar(lab)
    return bool(texture >= END_TEXTURE and abs((x0 + x1) / 2 - width / 2) <= BAR_OFF_CENTRE * width)


def _edge_support(edges: np.ndarray, quad: np.ndarray) -> float:
    """The share of its weakest side that lies on the frame's edges (a side cutting across a tray or a
    hand has little)."""
    h, w = edges.shape
    t = np.linspace(0.05, 0.95, 60)[:, None]
    shares = []
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        p = np.rint(a + t * (b - a)).astype(int)
        inside = (p[:, 0] >= 0) & (p[:, 0] < w) & (p[:, 1] >= 0) & (p[:, 1] < h)
        shares.append(float(edges[p[inside, 1], p[inside, 0]].mean()) if inside.any() else 0.0)
    return min(shares)


def find_outline(frame: np.ndarray, min_fraction: float = MIN_FRACTION) -> list[tuple[float, float]] | None:
    """The playing field's outline, or None when nothing in the frame looks like one.

    Candidates are the frame's four-sided outlines and pairs of them that make the field's two halves.
    One counts as the field when it has the field's proportions, its bar in the middle and points at
    both ends (not a plain tray or frame: that is how the board's outer frame is told from its field,
    and a wrong cut from the right one); of the largest
    such, the one whose sides lie best on the frame's edges is taken. A half field, the outer frame with
    its trays, or a view with a hand across the board's rim finds none: then the markers or --corners.
    """
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    gray = cv2.GaussianBlur(gray, (5, 5), 0)
    colour = frame if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    quads = _quads(gray, min_fraction * gray.size)
    fields = []
    for q in quads + _halves(_quads(gray, 0.5 * min_fraction * gray.size)):
        aspect = quad_aspect([(float(x), float(y)) for x, y in q])
        area = cv2.contourArea(q)
        if area < min_fraction * gray.size or not FIELD_ASPECT[0] <= aspect <= FIELD_ASPECT[1]:
            continue
        if _looks_like_field(colour, q):
            fields.append((area, q))
    if not fields:
        return None
    largest = max(area for area, _ in fields)
    edges = cv2.dilate(cv2.Canny(gray, 40, 120), np.ones((5, 5), np.uint8)) > 0
    best = max((q for area, q in fields if area >= 0.8 * largest), key=lambda q: _edge_support(edges, q))
    return [(float(x), float(y)) for x, y in best]


def find_field(frame: np.ndarray) -> tuple[list[tuple[float, float]], str]:
    """The field corners and how they were found ("markers" or "outline")."""
    corners = find_markers(frame)
    if corners is not None:
        return corners, "markers"
    corners = find_outline(frame)
    if corners is not None:
        return corners, "outline"
    raise FieldNotFound(
        "could not find the playing field: no ArUco markers 0-3 (print them with `referee markers`) and no "
        'clear outline; pass the corners with --corners "x,y x,y x,y x,y" (top-left, top-right, '
        "bottom-right, bottom-left)"
    )


def marker_sheet(size_px: int = 1600, marker_px: int = 300) -> np.ndarray:
    """A printable sheet (grey image) of markers 0..3, labelled with their corner."""
    sheet = np.full((size_px, size_px), 255, np.uint8)
    dictionary = cv2.aruco.getPredefinedDictionary(MARKER_DICT)
    names = ("0 top-left", "1 top-right", "2 bottom-right", "3 bottom-left")
    pad = (size_px // 2 - marker_px) // 2
    for i, name in zip(MARKER_IDS, names, strict=True):
        img = cv2.aruco.generateImageMarker(dictionary, i, marker_px)
        r, c = divmod(i, 2)
        if i in (2, 3):  # lay the sheet out like the board: br bottom right, bl bottom left
            c = 1 - c
        y, x = r * size_px // 2 + pad, c * size_px // 2 + pad
        sheet[y : y + marker_px, x : x + marker_px] = img
        cv2.putText(sheet, name, (x, y + marker_px + 40), cv2.FONT_HERSHEY_SIMPLEX, 1.0, 0, 2)
    title = "bg-referee field markers (ArUco 4x4_50): put each just outside its field corner"
    cv2.putText(sheet, title, (30, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.8, 0, 2)
    return sheet
