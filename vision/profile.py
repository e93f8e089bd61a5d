"""The calibration profile: everything the reader learned about one board under one camera.

A versioned JSON file: the image size, the field's corners, the fitted geometry, the orientation, the
learned slot model, and a free-form ``camera`` dict (exposure and white-balance gains saved by the camera
code). Loading validates every part; a bad file raises :class:`ProfileError` naming the problem and the
command that makes a new one.

    >>> p = Profile.from_json(Profile.example().to_json())
    >>> p.orientation.value
    'bottom-right'
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bgboard.layout import Orientation
from vision.arrivals import Still
from vision.checkers import FEATURES, EmptyField, EmptyReference, SlotModel
from vision.geometry import BoardGeometry

VERSION = 1
FORMAT = "bg-referee-calibration"
FIX = "make a new one with: referee calibrate IMAGE --start -o PROFILE (or --known LAYOUT.json)"


class ProfileError(ValueError):
    """A calibration profile that cannot be used; the message says why and how to make a new one."""


@dataclass
class Profile:
    """One board under one camera."""

    image_size: tuple[int, int]  # width, height of the frames it was made from
    corners: tuple[tuple[float, float], ...]  # tl, tr, br, bl of the field in the image
    geometry: BoardGeometry
    margin: int
    orientation: Orientation
    model: SlotModel
    junction_model: SlotModel | None = None  # second-layer checkers in the dips of a stack
    reference: EmptyReference | None = None  # how each slot empty at calibration looked
    bar_reference: EmptyReference | None = None  # the same for the candidates along the bar
    camera: dict = field(default_factory=dict)  # free-form: gains etc. of the camera code
    source: str = ""  # the image it was calibrated on
    notes: list[str] = field(default_factory=list)
    empty_field: EmptyField | None = None  # the board with no checkers, to compare each slot with
    # the point-count network read the calibration frame right: it knows this board and may be used
    counts_trusted: bool = False
    # die-like marks of the board itself (a logo, an inlay) that the dice reader found in the calibration
    # frame, in field coordinates: dice seen there later are the board, not a throw
    fixtures: tuple[tuple[float, float], ...] = ()
    # the dice window of the calibration frame with its clear dice painted out: what was there before
    # any throw, for the first throw's dice to be found in what changed (``vision.arrivals``)
    still: Still | None = None

    def to_json(self) -> dict:
        return {
            "format": FORMAT,
            "version": VERSION,
            "image_size": list(self.image_size),
            "corners": [[round(x, 2), round(y, 2)] for x, y in self.corners],
            "geometry": self.geometry.to_json(),
            "margin": self.margin,
            "orientation": self.orientation.value,
            "model": self.model.to_json(),
            "junction_model": self.junction_model.to_json() if self.junction_model else None,
            "reference": self.reference.to_json() if self.reference else None,
            "bar_reference": self.bar_reference.to_json() if self.bar_reference else None,
            "camera": self.camera,
            "source": self.source,
            "notes": list(self.notes),
            "empty_field": self.empty_field.to_json() if self.empty_field else None,
            "counts_trusted": self.counts_trusted,
            "fixtures": [list(f) for f in self.fixtures],
            "still": self.still.to_json() if self.still else None,
        }

    @classmethod
    def from_json(cls, data: object, where: str = "profile") -> Profile:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ProfileError(f"{where} is not a calibration profile; {FIX}")
        if data.get("version") != VERSION:
            raise ProfileError(
                f"{where} is a version {data.get('version')} profile, this referee reads version "
                f"{VERSION}; {FIX}"
            )
        try:
            size = tuple(int(v) for v in data["image_size"])
            corners = tuple((float(x), float(y)) for x, y in data["corners"])
            if len(size) != 2 or min(size) <= 0 or len(corners) != 4:
                raise ValueError("image size or corners malformed")
            geometry = BoardGeometry.from_json(data["geometry"])
            if geometry.width <= 0 or geometry.height <= 0 or geometry.pitch <= 0:
                raise ValueError("geometry has no size")
            margin = int(data["margin"])
            orientation = Orientation(data["orientation"])
            model = SlotModel.from_json(data["model"])
            junction = SlotModel.from_json(data["junction_model"]) if data.get("junction_model") else None
            for m in (model, junction):
                if m is not None and (not np.all(np.isfinite(m.samples)) or m.samples.shape[1] != FEATURES):
                    raise ValueError("slot model is damaged")
            reference = EmptyReference.from_json(data["reference"]) if data.get("reference") else None
            bar_ref = EmptyReference.from_json(data["bar_reference"]) if data.get("bar_reference") else None
            for ref in (reference, bar_ref):
                if ref is not None and ref.features.shape[1] != FEATURES:
                    raise ValueError("empty-slot reference is damaged")
            empty_field = EmptyField.from_json(data["empty_field"]) if data.get("empty_field") else None
            if empty_field is not None and (
                len(empty_field.empty_below) != 24 * geometry.slots
                or empty_field.image.shape[:2] != (geometry.height + 2 * margin, geometry.width + 2 * margin)
            ):
                raise ValueError("empty field does not match the geometry")
            fixtures = tuple((float(x), float(y)) for x, y in data.get("fixtures", []))
            if not all(math.isfinite(v) for f in fixtures for v in f):
                raise ValueError("a fixture is not a finite point")
            still = Still.from_json(data["still"]) if data.get("still") else None
            camera = data.get("camera") or {}
            if not isinstance(camera, dict):
                raise ValueError("camera settings are not an object")
        except (KeyError, TypeError, ValueError) as e:
            raise ProfileError(f"{where} is damaged ({e}); {FIX}") from None
        notes = [str(n) for n in data.get("notes", [])]
        source = str(data.get("source", ""))
        trusted = data.get("counts_trusted", False) is True
        return cls(
            size,
            corners,
            geometry,
            margin,
            orientation,
            model,
            junction,
            reference,
            bar_ref,
            camera,
            source,
            notes,
            empty_field,
            trusted,
            fixtures,
            still,
        )

    def save(self, path: str | Path) -> None:
        path = Path(path)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(self.to_json(), separators=(",", ":")))
        tmp.replace(path)  # never leave half a profile behind

    @classmethod
    def load(cls, path: str | Path) -> Profile:
        path = Path(path)
        try:
            text = path.read_text()
        except OSError as e:
            raise ProfileError(f"cannot read profile {path}: {e.strerror}; {FIX}") from None
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise ProfileError(f"{path} is not valid JSON (corrupt profile); {FIX}") from None
        return cls.from_json(data, str(path))

    def check_frame(self, width: int, height: int) -> None:
        """Refuses frames of another size: the corners would point at the wrong pixels."""
        if (width, height) != tuple(self.image_size):
            raise ProfileError(
                f"frame is {width}x{height} but the profile was made for {self.image_size[0]}x"
                f"{self.image_size[1]} frames; use the same camera resolution or {FIX}"
            )

    @classmethod
    def example(cls) -> Profile:
        """A tiny valid profile (for tests and documentation)."""
        rng = np.random.default_rng(0)
        feats = rng.normal(size=(6, FEATURES)).astype(np.float32)
        model = SlotModel.fit(feats, np.array([0, 0, 1, 1, 2, 2]))
        geometry = BoardGeometry(320, 280, 152.0, 168.0, 22.0, 11.0, 11.0)
        return cls((640, 480), ((10, 10), (630, 10), (630, 470), (10, 470)), geometry, 24,
                   Orientation.BOTTOM_RIGHT, model)  # fmt: skip
