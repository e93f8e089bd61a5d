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

from vision.rectify import check_corners

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


def find_outline(frame: np.ndarray, min_fraction: float = 0.15) -> list[tuple[float, float]] | None:
    """The largest convex quadrilateral outline covering at least ``min_fraction`` of the frame."""
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    gray = cv2.GaussianBlur(gray, (5, 5), 0)
    edges = cv2.Canny(gray, 40, 120)
    edges = cv2.dilate(edges, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    area_min = min_fraction * gray.shape[0] * gray.shape[1]
    best, best_area = None, 0.0
    for c in contours:
        hull = cv2.convexHull(c)
        area = cv2.contourArea(hull)
        if area < area_min or area <= best_area:
            continue
        approx = cv2.approxPolyDP(hull, 0.02 * cv2.arcLength(hull, True), True)
        if len(approx) == 4 and area < 0.98 * gray.shape[0] * gray.shape[1]:
            best, best_area = approx, area
    if best is None:
        return None
    return [(float(x), float(y)) for x, y in order_corners(best)]


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
