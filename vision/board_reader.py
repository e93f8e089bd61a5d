"""Read a board from one camera frame with a calibration profile.

    reader = BoardReader(Profile.load("board.profile"))
    reading = reader.read(cv2.imread("frame.jpg"))
    reading.to_json()["top"]

The frame is rectified, every checker slot of every point and a row of candidates along the bar are
searched and classified (:mod:`vision.checkers`), the calls become counts with their doubts
(:mod:`vision.stacks`), and 15 a side narrows what it can. Each point slot is also compared with the
board's own empty look there (:class:`vision.checkers.EmptyField`, learned at calibration): a slot that
still looks like its empty self settles a doubtful call as empty, one that looks changed while the slot
model calls it empty keeps the count from being confident. Where the profile trusts it, the strip
network of :mod:`vision.point_counts` counts every whole point and each half of the bar as a second
eye, and a count is sure only when both eyes agree (and the slots plainly tell its colour); a hand the
network sees keeps the cells at its edge unsure, as one the slots see does. Dice found by
:mod:`vision.dice` spoil the slots and the dips between them under them
instead of being read as checkers; where nothing else in the frame is foreign, the network's "covered"
on a point a die lies on is that die. A point the slots cannot read (a slot unlike calibration) is read,
never surely, where the network plainly sees it uncovered and leans to a count its familiar slots allow.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from functools import cached_property

import cv2
import numpy as np

from bgboard.layout import POINT_CELLS, Cell, ImageLayout, Side
from bgboard.position import CHECKERS
from vision.arrivals import DIE_PX, Still
from vision.checkers import (
    DARK,
    EMPTY,
    FIELD_DISC,
    LIGHT,
    Prepared,
    SlotCall,
    SlotModel,
    SlotSampler,
    call_slots,
)
from vision.cube import cube_at, cube_side, cube_strips, find_cube
from vision.dice import find_dice
from vision.dice_field import expected_die_side, search_window
from vision.dice_model import Candidate
from vision.dice_proposals import still_peaks, table_peaks, window_peaks
from vision.dice_verdict import unclear_on_the_bar
from vision.geometry import ROWS, BoardGeometry
from vision.occlusion import foreign_line, foreign_points, lone_spots
from vision.point_counts import (
    BAR_DARK,
    BAR_LIGHT,
    COVERED,
    OPEN,
    colour_lean,
    count_net,
    fuse,
    past_die,
    slot_leans,
    strips,
)
from vision.profile import Profile, ProfileError
from vision.reading import CONFIDENT, BoardReading, CellReading, CubeReading, DieReading
from vision.rectify import Rectifier
from vision.stacks import bar_cells, conserve, point_cell

# a slot this close to the calibration samples (a share of the novelty distance) is no hand's edge
USUAL = 0.7
# a die candidate within this many checker radii of a fixture of the board (Profile.fixtures) is that mark
FIXTURE_REACH = 0.6
# with a hand in the frame, a cell the strip network gives "covered" this much may hide its neighbours' edge
HALF_SEEN = 0.25
# with the network seeing a hand in the frame, a cell it gives "covered" this much may lie under the
# hand's edge (a sure cell of a frame without a hand seldom reaches it)
UNEASY = 0.01
# A stack's first five checkers lie in a column from the row's edge on every table; a sixth goes on in the
# column on some tables and over the first five (a second layer) on others: only a frame can tell.
COLUMN = 5
# The cube found before still lies there while less than this share of its face's core changed: a die
# landing beside it in the tray changes none of it, the cube lifted or turned to another face most of it.
CUBE_UNMOVED = 0.1
# A patch of change where a cube may lie is looked at for the cube when it covers at least a cube's face
# (a moved cube's patch holds its face, the side the camera sees and its shadow: one and a half faces or
# more; a die's, about half a face, and its pips can read as a numeral). Such patches are read, the
# largest first, at the middle and then at the points of a grid a third of a cube's side apart over it,
# nearest the middle first; CUBE_LOOKS reads in all (about 0.4 ms each, the outline search's cost in all):
# a patch of a cube moved within its own length holds about two faces, some twenty points.
CUBE_PATCH = 1.0
CUBE_GRID = 1 / 3
CUBE_LOOKS = 24


@dataclass
class SlotSamples:
    """Features of every slot of one frame: points (24 x K, top row then bottom) and the bar."""

    point_features: np.ndarray  # (24*K) x F
    point_centers: np.ndarray  # found centres, field coordinates
    bar_features: np.ndarray
    bar_centers: np.ndarray
    junction_features: np.ndarray  # 24 x (K-1): between slots j-1 and j, where a second layer sits
    junction_centers: np.ndarray
    prepared: Prepared


@dataclass
class _Slots:
    """One frame's slots as the slot model sees them: each slot's distances to empty, light and dark, and
    how far it looks from anything seen at calibration (``near``)."""

    samples: SlotSamples
    point_d: np.ndarray
    point_near: np.ndarray
    bar_d: np.ndarray
    bar_near: np.ndarray


@dataclass
class _PointEvidence:
    """What tells each point's count: the slots' calls (``spoiled`` under a die), the slots the empty
    field leaves ``doubtful``, the dips' calls, the slots' distances and the strip network's counts."""

    point_calls: list[SlotCall]
    spoiled: list[bool]
    doubtful: np.ndarray
    junctions: list[SlotCall] | None
    point_d: np.ndarray
    counts: np.ndarray | None
    under_die: np.ndarray  # the slots a die lies over, as an array


class SlotGrid:
    """Where to look for checkers on a fitted geometry, and how far to search around each slot."""

    def __init__(self, geometry: BoardGeometry, margin: int) -> None:
        self.geometry = geometry
        self.sampler = SlotSampler(geometry, margin)
        g = geometry
        self.k = g.slots
        self.nominal = np.array(
            [g.slot_center(row, i, k) for row in ROWS for i in range(12) for k in range(self.k)],
            dtype=np.float64,
        )
        self.bar_nominal = np.array(g.bar_centers(), dtype=np.float64)
        self.junction_nominal = np.array(
            [g.slot_center(row, i, j - 0.5) for row in ROWS for i in range(12) for j in range(1, self.k)],
            dtype=np.float64,
        ).reshape(-1, 2)
        # checkers drift up to a third of a checker sideways, less along the stack
        self.point_window = (max(1, round(0.33 * 2 * g.radius_x)), max(1, round(0.22 * g.pitch)))
        self.bar_window = (max(1, round(0.12 * (g.bar_x1 - g.bar_x0) + 1)), max(1, round(0.26 * g.pitch)))

    def sample(self, canonical: np.ndarray) -> SlotSamples:
        prepared = self.sampler.prepare(canonical)
        pf, pc = self.sampler.sample(prepared, self.nominal, self.point_window)
        bf, bc = self.sampler.sample(prepared, self.bar_nominal, self.bar_window)
        jf, jc = self.sampler.sample(prepared, self.junction_nominal, self.point_window)
        return SlotSamples(pf, pc, bf, bc, jf, jc, prepared)


class BoardReader:
    """Reads frames of the board and camera a profile was made for."""

    def __init__(self, profile: Profile, use_dice: bool = True, use_counts: bool = True) -> None:
        self.profile = profile
        self.grid = SlotGrid(profile.geometry, profile.margin)
        g = profile.geometry
        self.rectifier = Rectifier(profile.corners, g.width, g.height, profile.margin)
        self.model: SlotModel = profile.model
        self.junction_model: SlotModel | None = profile.junction_model
        self.reference = profile.reference
        self._find_dice = find_dice if use_dice else None
        # the second eye only for boards whose calibration frame it read right
        self.counter = count_net() if use_counts and profile.counts_trusted else None
        self.dice_error = ""  # why dice are not being read, when they are not
        # the frame the cube was last looked for on (as a still), and what was found
        self._cube_seen: tuple[Still, CubeReading | None] | None = None
        # the cube seen was found by its face alone (where it lay, or where the frame changed), not by its
        # outline
        self._cube_by_face = False
        self._last_still: tuple[np.ndarray, Still] | None = None  # the last frame, made a still of
        self._last_peaks: tuple[np.ndarray, list[Candidate]] | None = None  # and its detector peaks
        self._last_empty: tuple[np.ndarray, np.ndarray] | None = None  # and the point slots it showed empty
        self._turn_empty: tuple[Still, np.ndarray] | None = None  # the same for the turn's still
        self._strips: np.ndarray | None = None
        # slots that the camera does not see at all (the field runs off the frame) are never guessed
        w, h = profile.image_size
        pad = max(g.radius_x, g.radius_y)

        def outside(centers: np.ndarray) -> np.ndarray:
            corners = [centers + [dx, dy] for dx in (-pad, pad) for dy in (-pad, pad)]
            img = np.stack([self.rectifier.to_image(c) for c in corners])
            off = (img[..., 0] < 0) | (img[..., 0] >= w) | (img[..., 1] < 0) | (img[..., 1] >= h)
            return np.asarray(off.any(axis=0))

        self._outside_points = outside(self.grid.nominal)
        self._outside_bar = outside(self.grid.bar_nominal)
        self._outside_junctions = (
            outside(self.grid.junction_nominal) if len(self.grid.junction_nominal) else None
        )

    def read(
        self,
        frame: np.ndarray,
        dice: tuple[DieReading, ...] | None = None,
        expected: ImageLayout | None = None,
        before: Still | None = None,
        same_board: bool = True,
    ) -> BoardReading:
        """One frame (BGR, the profile's size) to a reading; ``dice`` skips the dice search when given.

        ``expected`` is the board the frame should show (the position the referee confirmed before the
        throw): which checker slots it fills says which dice rest on a checker. ``before`` is how the
        table looked before the throw (``vision.arrivals``; the profile's still of the calibration frame
        when not given): only what arrived since can be a die. ``same_board`` says that ``before`` shows
        the checkers where this frame does (not so once a play has begun): only then is a die-sized
        patch of change that no die explains reported as an unreadable die.
        """
        if frame is None or frame.ndim != 3 or frame.shape[2] != 3:
            raise ValueError("expected a colour frame (H x W x 3, BGR)")
        self.profile.check_frame(frame.shape[1], frame.shape[0])
        start = time.perf_counter()
        now = self.still(frame)  # shrunk once for every comparison with a still
        cube = self._cube(frame, now)
        if dice is None:
            found = self._dice(frame, now, expected, before, same_board)
            if self._a_die_after_all(cube, found, now):
                cube = None
            cube = cube or self._cube_among(found, frame, now)
            dice = _clear_on_the_bar(self._off_the_cube(found, cube))
        canonical = self.rectifier.warp(frame)
        slots = self._look(canonical)
        dice = self._not_checkers(dice, slots)
        spoiled = self._under_dice(dice, slots.samples.point_centers)
        under_die = np.array(spoiled, dtype=bool)
        point_d, doubtful = self._empty_field(canonical, slots, under_die)
        point_calls, point_foreign = self._point_calls(slots, point_d, under_die)
        empty = [c.best == EMPTY and not c.novel for c in point_calls]
        self._last_empty = (frame, np.array(empty, dtype=bool))  # for the turn's still (``checkers``)
        bar_calls, bar_foreign = self._bar_calls(slots, dice, cube)
        foreign = bool(point_foreign.any() or bar_foreign.any())
        counts = None
        if self.counter is not None:
            counts = self.counter.probabilities(strips(canonical, self.profile.geometry, self.profile.margin))
        junctions = self._junction_calls(slots.samples, dice)
        points = _PointEvidence(point_calls, spoiled, doubtful, junctions, point_d, counts, under_die)
        cells = self._point_cells(points, _excused(counts, under_die, len(dice), foreign))
        cells |= self._bar_cells(bar_calls, slots.samples.bar_centers, counts)
        cells, notes = conserve(_hand_doubts(cells, counts, foreign))
        if self.dice_error:
            notes.append(f"dice not read: {self.dice_error}")
        elapsed = (time.perf_counter() - start) * 1000
        return BoardReading.of_cells(cells, tuple(dice), elapsed, tuple(notes), cube)

    def still(self, frame: np.ndarray) -> Still:
        """``frame`` as the still a throw is compared with (``vision.arrivals``). The last frame's is
        kept: the frame loop asks again for the frame it has just read (frames are never drawn on)."""
        if self._last_still is not None and self._last_still[0] is frame:
            return self._last_still[1]
        quad = np.asarray(self.profile.corners, dtype=np.float64)
        still = Still.of(frame, search_window(quad, frame.shape), expected_die_side(quad) or 1.0)
        self._last_still = (frame, still)
        return still

    @cached_property
    def calibration_still(self) -> Still | None:
        """The profile's still of the calibration frame with what the dice detector sees die-like on it
        (``vision.dice_proposals.still_peaks``): the table's fixtures, for a throw with no turn's still to
        compare with. Looked at once, on the first throw that needs it."""
        still = self.profile.still
        return None if still is None else replace(still, peaks=still_peaks(still))

    def turn_still(self, frame: np.ndarray) -> Still:
        """The still of a settled frame with no dice on it, that the turn's throw is compared with: with
        what the dice detector saw die-like on it (``vision.dice_proposals.table_peaks``). The frame loop
        asks for it of the frame it has just read, whose still and detector peaks are kept, and whose empty
        point slots are kept with it (``checkers``)."""
        still = replace(self.still(frame), peaks=table_peaks(self._peaks(frame)))
        if self._last_empty is not None and self._last_empty[0] is frame:
            self._turn_empty = (still, self._last_empty[1])
        return still

    def _peaks(self, frame: np.ndarray) -> list[Candidate]:
        """The dice detector's peaks in ``frame`` (``vision.dice_proposals.window_peaks``); the last frame's
        are kept, as its still is."""
        if self._last_peaks is not None and self._last_peaks[0] is frame:
            return self._last_peaks[1]
        peaks = window_peaks(frame, np.asarray(self.profile.corners, dtype=np.float64))
        self._last_peaks = (frame, peaks)
        return peaks

    def arrivals(self, frame: np.ndarray, before: Still) -> int:
        """How many patches of change the size of a die lie in ``frame`` since ``before``."""
        return len(before.blobs(before.changed(frame, self.still(frame))))

    def checkers(self, layout: ImageLayout, still: Still | None = None) -> np.ndarray:
        """The checkers of the first layer of every point ``layout`` fills, as (N, 4) ellipses in the
        field's unit square (centre u, v and radii across and down): where a die on the board would rest
        on a checker (a second layer sits over the first, within the same ellipses). Past a stack's
        first ``COLUMN`` checkers the column goes on only where the frame ``still`` was taken from
        (``turn_still``) showed those slots filled: a table that lays a second layer leaves them empty,
        and a die there lies on the board. Without that frame those slots are ``stacked``'s."""
        return self.slots(layout, still)[0]

    def stacked(self, layout: ImageLayout, still: Still | None = None) -> np.ndarray:
        """The slots past a stack's first ``COLUMN`` checkers that no frame of the turn showed filled or
        empty (there is no ``still``), as ``checkers`` gives them: the table may have laid those checkers
        in the column or over the first five, and only a look at the die can tell whether it rests on one."""
        return self.slots(layout, still)[1]

    def slots(self, layout: ImageLayout, still: Still | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``checkers`` and ``stacked`` of ``layout``, in one pass."""
        g = self.profile.geometry
        empty = self._turn_empty[1] if self._turn_empty is not None and self._turn_empty[0] is still else None
        sure: list[tuple[float, ...]] = []
        unsure: list[tuple[float, ...]] = []
        for n, cell in enumerate(POINT_CELLS):  # the slots' order: top row, then bottom
            assert cell.row is not None
            for k in range(min(abs(layout.value(cell)), g.slots)):
                past = k >= COLUMN
                if past and empty is not None and empty[n * self.grid.k + k]:
                    continue  # the turn's frame showed it empty: this table lays a second layer
                x, y = g.slot_center(cell.row, cell.index, k)
                ellipse = (x / g.width, y / g.height, g.radius_x / g.width, g.radius_y / g.height)
                (unsure if past and empty is None else sure).append(ellipse)
        return _ellipses(sure), _ellipses(unsure)

    def _look(self, canonical: np.ndarray) -> _Slots:
        """Every slot of the rectified frame as the slot model sees it."""
        samples = self.grid.sample(canonical)
        point_d, point_near = self.model.measure(samples.point_features)
        bar_d, bar_near = self.model.measure(samples.bar_features)
        return _Slots(samples, point_d, point_near, bar_d, bar_near)

    def _empty_field(
        self, canonical: np.ndarray, slots: _Slots, under_die: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The point slots' distances once each is compared with the board's own empty look there, and
        which slots that comparison leaves doubtful. A slot that still looks like its empty self settles a
        doubtful call as empty (never surely); one that looks changed keeps an "empty" call from being
        confident. Slots that look like nothing seen at calibration (a hand) or lie under a die are left
        to the slot model."""
        point_d = slots.point_d
        field = self.profile.empty_field
        if field is None:
            return point_d, np.zeros(len(point_d), dtype=bool)
        g = self.profile.geometry
        diffs = field.differences(canonical, self.grid.nominal, FIELD_DISC * g.radius_x, self.profile.margin)
        doubtful = field.doubtful(point_d, diffs)
        was_checker = point_d.argmin(axis=1) != EMPTY
        adjusted = field.adjust(point_d, diffs, (slots.point_near < USUAL * self.model.novelty) & ~under_die)
        # the empty field overruling the slot model settles the count, never makes it sure
        doubtful |= was_checker & (adjusted.argmin(axis=1) == EMPTY)
        return adjusted, doubtful

    def _point_calls(
        self, slots: _Slots, point_d: np.ndarray, under_die: np.ndarray
    ) -> tuple[list[SlotCall], np.ndarray]:
        """Every point slot's call, and which slots something foreign (a hand, an arm, a cup) covers.

        Foreign things are judged on the slot model's own call (the empty field sees a hand as "not
        empty"); a die is no hand: the slots under it are spoiled (anything may be there), not foreign.
        """
        novelty = self.model.novelty
        model_empty = slots.point_d.argmin(axis=1) == EMPTY
        near = np.where(under_die, 0.0, slots.point_near)
        score = near / novelty
        if self.reference is not None:
            # a slot that reads empty but no longer looks like it did empty at calibration is covered
            changed = self.reference.changed(self.model.standardise(slots.samples.point_features))
            score = np.where(model_empty & ~under_die, np.maximum(score, changed), score)
        foreign = foreign_points(score.reshape(2, 12, self.grid.k), 1.0).ravel()
        return call_slots(point_d, novelty, self._outside_points | foreign, near), foreign

    def _bar_calls(
        self, slots: _Slots, dice: tuple[DieReading, ...], cube: CubeReading | None
    ) -> tuple[list[SlotCall], np.ndarray]:
        """Every bar candidate's call, and which candidates something foreign covers. A die on the bar is
        no hand either (what is under it may be anything, and is not counted), nor is the cube found
        lying on it (a taker puts it at the bar's end); a lone novel spot that no neighbour backs (a
        glint, the bar's end) hides that spot only, not the bar."""
        novelty = self.model.novelty
        samples, bar_d = slots.samples, slots.bar_d
        score = slots.bar_near / novelty
        if self.profile.bar_reference is not None:
            changed = self.profile.bar_reference.changed(self.model.standardise(samples.bar_features))
            score = np.where(bar_d.argmin(axis=1) == EMPTY, np.maximum(score, changed), score)
        covered = np.array(self._under_dice(dice, samples.bar_centers), dtype=bool)
        if cube is not None:
            h = cube_side(np.asarray(self.profile.corners, dtype=np.float64)) / 2
            (x, y), g = cube.center, self.profile.geometry
            covered |= under_box((x - h, y - h, x + h, y + h), samples.bar_centers, self.rectifier, g)
        score = np.where(covered, 0.0, score)
        foreign = foreign_line(score, 1.0)
        pitch = self.profile.geometry.pitch
        lone = lone_spots(score, 1.0, samples.bar_centers, 0.25 * pitch) & foreign & ~self._outside_bar
        calls = call_slots(bar_d, novelty, self._outside_bar | (foreign & ~lone), slots.bar_near)
        spoilt = _spoil(calls, covered.tolist())
        return [
            _HIDDEN if alone and not under else c
            for c, under, alone in zip(spoilt, covered, lone, strict=True)
        ], foreign

    def _junction_calls(self, samples: SlotSamples, dice: tuple[DieReading, ...]) -> list[SlotCall] | None:
        """The calls of the dips between two checkers of a stack, where a second layer sits (None when the
        profile learned no second layer). A die over a dip spoils it as it does the slots: anything may
        be there, and a die is no hand."""
        jm = self.junction_model
        if jm is None or self.grid.k <= 1:
            return None
        junction_d, junction_near = jm.measure(samples.junction_features)
        calls = call_slots(junction_d, jm.novelty, self._outside_junctions, junction_near)
        return _spoil(calls, self._under_dice(dice, samples.junction_centers))

    def _point_cells(self, e: _PointEvidence, excused: np.ndarray) -> dict[Cell, CellReading]:
        """Each point's count from its slots, joined with the strip network's count where it is used."""
        k = self.grid.k
        leans = slot_leans(e.point_d[:, LIGHT], e.point_d[:, DARK]) if e.counts is not None else None
        cells = {}
        for n, name in enumerate(POINT_CELLS):  # the slots' and strips' order: top row, then bottom
            slots = slice(n * k, (n + 1) * k)
            upper = e.junctions[n * (k - 1) : (n + 1) * (k - 1)] if e.junctions is not None else None
            calls, wild = e.point_calls[slots], e.spoiled[slots]
            cell = point_cell(calls, wildcard=wild, upper=upper, doubtful=e.doubtful[slots].tolist())
            if e.counts is not None and leans is not None:
                network = (e.counts[n], leans[slots], e.under_die[slots], bool(excused[n]))
                cell = _with_network(cell, calls, wild, upper, *network)
            cells[name] = cell
        return cells

    def _bar_cells(
        self, calls: list[SlotCall], centers: np.ndarray, counts: np.ndarray | None
    ) -> dict[Cell, CellReading]:
        """Each colour's checkers on the bar; each half of the bar holds one colour, so the network's
        count there needs no colour."""
        g = self.profile.geometry
        light, dark = bar_cells(calls, centers, 0.75 * g.pitch, middle=g.height / 2)
        if counts is not None:
            light = fuse(light, counts[BAR_LIGHT], 1, known=True)
            dark = fuse(dark, counts[BAR_DARK], 1, known=True)
        return {Cell.bar_of(Side.LIGHT): light, Cell.bar_of(Side.DARK): dark}

    def _dice(
        self,
        frame: np.ndarray,
        now: Still,
        expected: ImageLayout | None = None,
        before: Still | None = None,
        same_board: bool = True,
    ) -> tuple[DieReading, ...]:
        if self._find_dice is None:
            return ()
        quad = np.asarray(self.profile.corners, dtype=np.float64)
        checkers, stacked = self.slots(expected, before) if expected is not None else (None, None)
        try:
            # the turn's own still shows the board the frame does; the calibration's, another position
            still, same = (before, same_board) if before is not None else (self.calibration_still, False)
            found = self._find_dice(
                frame,
                field_quad=quad,
                checkers=checkers,
                stacked=stacked,
                still=still,
                same_board=same,
                now=now,
                peaks=self._peaks(frame),
                calibration=before is None,
            )
            return tuple(found)
        except (ValueError, RuntimeError) as e:
            # a dice failure must not cost the board reading; a reader that cannot start is not retried
            self.dice_error = str(e)
            self._find_dice = None
            return ()

    def _cube(self, frame: np.ndarray, now: Still) -> CubeReading | None:
        """The cube where it lies. It seldom moves, and looking for it costs as much as the dice: a cube
        found before is kept while its own place did not change (a table has one cube: what changed
        elsewhere on the bar or in the trays is a die or a hand, however square it looks), and looked
        for again once it was lifted, moved or turned to another face; with none found before, it is
        looked for when something die-sized changed where a cube may lie (the bar, the trays).

        Looking for it is the outline search (``vision.cube.find_cube``); where that misses (the cube's
        outline runs into the checkers or the tray's rim it lies against), the face is read where the
        cube lay (turned where it lies) and then where the strips changed since it was last looked for
        (on the first frame, since calibration): a moved cube lies where the frame changed."""
        quad = np.asarray(self.profile.corners, dtype=np.float64)
        seen = self._cube_seen
        cube = last = None
        changed = None
        if seen is not None:
            then, cube = seen
            changed = then.changed(frame, now)
            if changed is not None:
                if cube is not None and then.share(changed, *cube.center, cube_side(quad)) < CUBE_UNMOVED:
                    return cube
                if cube is None and not _moved_in(changed, self._cube_mask(then)):
                    return None
                # lifted, moved or turned, or something new where one may lie: looked for
                cube, last = None, cube
        # with the light or the camera moved nothing can be said: the search may miss a cube that still
        # lies where it lay (pushed against the checkers, its outline runs into theirs)
        found = find_cube(frame, quad)
        by_face = found is None
        if found is None and last is not None:
            found = cube_at(frame, quad, last.center)  # turned where it lies
        if found is None:
            # what changed since the cube was last looked for or, on the first frame, since calibration
            since = seen[0] if seen is not None else self.profile.still
            if since is not None and seen is None:
                changed = since.changed(frame, now)
            if since is not None and changed is not None:
                found = self._cube_where_changed(frame, changed, since)
        self._cube_by_face = by_face and found is not None
        cube = found or cube
        self._cube_seen = (now, cube)
        return cube

    def _a_die_after_all(self, cube: CubeReading | None, dice: tuple[DieReading, ...], now: Still) -> bool:
        """Whether the cube seen is a die that the dice reader reads plainly on the field, beside the bar:
        one found by its face alone (where it lay, or where the frame changed: a die's pips can read as a
        numeral), or by its outline with no face read (a die lying square beside the bar's end has the
        outline of a cube a little small, and no numeral). A cube lies on the bar or in a tray, where the
        dice reader may read its face as a die's too. Then no cube is seen."""
        if cube is None or not (self._cube_by_face or cube.value is None):
            return False
        if not any(d.value is not None and d.half is not None for d in self._at_the_cube(dice, cube)):
            return False
        self._cube_seen, self._cube_by_face = (now, None), False
        return True

    def _cube_where_changed(self, frame: np.ndarray, changed: np.ndarray, then: Still) -> CubeReading | None:
        """The cube the outline search missed, where a patch of the strips it may lie in changed since
        ``then`` and the square there shows a cube's numeral. A cube moved after a take changes the
        frame where it now lies; its outline may run into what it lies against (a tray's rim, the
        checkers at the bar's end), its face does not. Each patch is read at its middle, then at the
        points of a grid over it nearest the middle (a cube moved within its own length leaves one
        patch where it lay and where it lies, its face off the middle)."""
        quad = np.asarray(self.profile.corners, dtype=np.float64)
        side = cube_side(quad)
        solid = _solid(changed & (self._cube_mask(then) > 0))
        n, labels, stats, centres = cv2.connectedComponentsWithStats(solid)
        big = [k for k in range(1, n) if stats[k, cv2.CC_STAT_AREA] >= CUBE_PATCH * (side * then.scale) ** 2]
        step = max(1, round(CUBE_GRID * side * then.scale))
        grid = labels[::step, ::step]
        looks: list[tuple[float, float]] = []
        for k in sorted(big, key=lambda k: -stats[k, cv2.CC_STAT_AREA]):
            cx, cy = centres[k]
            ys, xs = np.nonzero(grid == k)
            points = sorted(
                zip(xs * step, ys * step, strict=True), key=lambda p: math.hypot(p[0] - cx, p[1] - cy)
            )
            looks += [(float(cx), float(cy)), *((float(x), float(y)) for x, y in points)]
        for px, py in looks[:CUBE_LOOKS]:
            if cube := cube_at(
                frame, quad, (px / then.scale + then.window[0], py / then.scale + then.window[1])
            ):
                return cube
        return None

    def _cube_among(self, dice: tuple[DieReading, ...], frame: np.ndarray, now: Still) -> CubeReading | None:
        """The cube the outline search missed, among the ``dice``: a find on the bar or beyond the field
        (where a die is thrown again anyway) that the value reader could not read as a die's face, and
        whose own face reads a cube's value. Kept as the cube seen. (A die's pips read as a cube's
        numeral for about one die in fifty: a die read plainly stays a die.)"""
        quad = np.asarray(self.profile.corners, dtype=np.float64)
        for die in dice:
            if die.half is None and die.value is None and (cube := cube_at(frame, quad, die.center)):
                self._cube_seen = (now, cube)
                return cube
        return None

    def _cube_mask(self, still: Still) -> np.ndarray:
        """The strips where a cube may lie, at the scale of ``still``."""
        if self._strips is None or self._strips.shape != (still.image.shape[0], still.image.shape[1]):
            mask = np.zeros(still.image.shape[:2], np.uint8)
            x0, y0 = still.window[:2]
            for poly in cube_strips(np.asarray(self.profile.corners, dtype=np.float64)):
                small = ((poly - (x0, y0)) * still.scale).round().astype(np.int32)
                cv2.fillPoly(mask, [small], 255)
            self._strips = mask
        return self._strips

    def _off_the_cube(self, dice: tuple[DieReading, ...], cube: CubeReading | None) -> tuple[DieReading, ...]:
        """``dice`` without the cube: its face can read as a die's (a 2 as a single pip)."""
        if cube is None:
            return dice
        at = self._at_the_cube(dice, cube)
        return tuple(d for d in dice if d not in at)

    def _at_the_cube(self, dice: tuple[DieReading, ...], cube: CubeReading) -> list[DieReading]:
        """The finds among ``dice`` that lie on the cube (within three quarters of its side)."""
        reach = 0.75 * cube_side(np.asarray(self.profile.corners, dtype=np.float64))
        return [d for d in dice if math.dist(d.center, cube.center) <= reach]

    def _not_checkers(self, dice: tuple[DieReading, ...], slots: _Slots) -> tuple[DieReading, ...]:
        """``dice`` without those that are the board's own look: a die candidate centred on a slot that
        plainly shows a checker like the calibration's checkers, or on one of the profile's fixtures.

        Some checkers carry a pattern (a swirl, a logo, a glint on a rim) and some boards a logo or an
        inlay that the dice reader takes for a die. Such a "die" never goes away and would stall every
        roll at that table. A real die on a checker hides part of it, so its slot looks like no checker
        seen at calibration (novel) and the die stays; one landing on a fixture is not seen, and the
        referee waits for a die it can see, as it does for a die out of view.
        """
        if not dice:
            return dice
        centers = np.vstack([slots.samples.point_centers, slots.samples.bar_centers])
        distances = np.vstack([slots.point_d, slots.bar_d])
        near = np.concatenate([slots.point_near, slots.bar_near])
        unseen = np.concatenate([self._outside_points, self._outside_bar])
        g = self.profile.geometry
        fixtures = np.array(self.profile.fixtures, dtype=np.float64).reshape(-1, 2)
        kept = []
        for die in dice:
            at = self.rectifier.to_field(np.array([die.center]))[0]
            gap = np.hypot(*(centers - at).T)
            n = int(gap.argmin())
            if gap[n] <= 0.5 * g.radius_x:
                # the slot's call as the slot model alone makes it (one row: calls are made row by row)
                (call,) = call_slots(
                    distances[n : n + 1], self.model.novelty, unseen[n : n + 1], near[n : n + 1]
                )
                if _plainly_checker(call):
                    continue
            if len(fixtures) and np.hypot(*(fixtures - at).T).min() <= FIXTURE_REACH * g.radius_x:
                continue
            kept.append(die)
        return tuple(kept)

    def _under_dice(self, dice: tuple[DieReading, ...], centers: np.ndarray) -> list[bool]:
        spoiled = np.zeros(len(centers), dtype=bool)
        for die in dice:
            spoiled |= under_box(die.box, centers, self.rectifier, self.profile.geometry)
        return spoiled.tolist()


def under_box(
    box: tuple[float, float, float, float], centers: np.ndarray, rectifier: Rectifier, g: BoardGeometry
) -> np.ndarray:
    """Which slot ``centers`` (canonical px) a checker would share with ``box`` (x0, y0, x1, y1 in image
    px, such as a die's): what is seen in those slots may be anything."""
    x0, y0, x1, y1 = box
    corners = rectifier.to_field(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]))
    (bx0, by0), (bx1, by1) = corners.min(axis=0), corners.max(axis=0)
    cx, cy = np.asarray(centers, dtype=np.float64).reshape(-1, 2).T
    across = (bx0 - g.radius_x < cx) & (cx < bx1 + g.radius_x)
    return across & (by0 - g.radius_y < cy) & (cy < by1 + g.radius_y)


def _solid(changed: np.ndarray) -> np.ndarray:
    """``changed`` (bool or 0/1) without its thin strokes (a clock's digits, a shadow's edge), as uint8."""
    return cv2.morphologyEx(changed.astype(np.uint8), cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))


def _moved_in(changed: np.ndarray, mask: np.ndarray) -> bool:
    """Whether a solid patch of change, a third of a die or more, lies in ``mask`` (the thin strokes of a
    clock's digits do not count)."""
    return int(np.count_nonzero((_solid(changed) > 0) & (mask > 0))) >= 0.3 * DIE_PX * DIE_PX


def _excused(counts: np.ndarray | None, under_die: np.ndarray, dice: int, foreign: bool) -> np.ndarray:
    """The strips whose "covered" the network may owe to a die on them: where the slots see nothing
    foreign in the whole frame (dice they know of are no hand) and each strip the network finds even half
    covered holds a die, no more of them than dice. A cup or a hand is wider than a point and casts its
    doubt on the strips beside it too."""
    if counts is None:
        return np.zeros(0, dtype=bool)
    excused = np.zeros(len(counts), dtype=bool)
    if not foreign:
        has_die = np.append(under_die.reshape(24, -1).any(axis=1), [False, False])
        uneasy = counts[:, COVERED] >= HALF_SEEN
        if (has_die | ~uneasy).all() and uneasy.sum() <= dice:
            excused = has_die & (counts[:, COVERED] >= OPEN)
    return excused


def _with_network(
    cell: CellReading,
    calls: list[SlotCall],
    spoiled: list[bool],
    upper: list[SlotCall] | None,
    p: np.ndarray,
    leans: np.ndarray,
    under_die: np.ndarray,
    excused: bool,
) -> CellReading:
    """A point's slot reading joined with the strip network's probabilities ``p`` for it. The colour is
    the slots' lean over the slots the network says are filled (those a die spoils tell nothing); a point
    the slots cannot read offers what its familiar slots allow. Where the network's "covered" is the die
    on the point (``excused``), a count agreed past it is no sure thing."""
    seen = _seen(calls, spoiled, upper) if not cell.readable else ()
    n = min(int(p[:COVERED].argmax()), len(calls))
    lean = colour_lean(leans[:n][~under_die[:n]])
    if excused and cell.readable:
        cell = fuse(cell, past_die(p), lean, seen=seen)
        return CellReading(cell.count, min(cell.confidence, CONFIDENT - 0.05), cell.plausible)
    return fuse(cell, p, lean, seen=seen)


def _plainly_checker(call: SlotCall) -> bool:
    """A call that can only be a checker, of one colour, and looks like the checkers of calibration."""
    return call.best != EMPTY and call.possible == frozenset({call.best}) and not call.novel


def _under_a_die(call: SlotCall) -> SlotCall:
    """A bar slot a die candidate overlaps but that plainly shows a checker (the dice reader's candidates
    include checkers' rims now and then): the checker is counted, never surely."""
    return replace(call, confidence=min(call.confidence, 0.5))


# a slot that may hold anything: empty, light or dark, not novel (a die over it is no hand)
_HIDDEN = SlotCall(EMPTY, frozenset({EMPTY, LIGHT, DARK}), 0.5, False)


def _spoil(calls: list[SlotCall], under: list[bool]) -> list[SlotCall]:
    """``calls`` with those ``under`` a die spoiled: a plain checker stays, unsure; anything else may hold
    anything, and is no foreign thing (a die's look is novel and would make the whole point unreadable).

        >>> odd = SlotCall(EMPTY, frozenset({EMPTY}), 0.9, True)
        >>> _spoil([odd, odd], [True, False])[0].novel, _spoil([odd, odd], [True, False])[1].novel
        (False, True)
    """
    return [
        _under_a_die(c) if spoilt and _plainly_checker(c) else _HIDDEN if spoilt else c
        for c, spoilt in zip(calls, under, strict=True)
    ]


def _seen(calls: list[SlotCall], spoiled: list[bool], upper: list[SlotCall] | None) -> tuple[int, ...]:
    """The counts a point's slot ``calls`` (and the dips' ``upper``) allow when each novel one may hold
    anything, as under a die: what the familiar slots show, whatever the novel ones hide.

        >>> one = SlotCall(LIGHT, frozenset({LIGHT}), 0.99, False)
        >>> free = SlotCall(EMPTY, frozenset({EMPTY}), 0.99, False)
        >>> odd = SlotCall(EMPTY, frozenset({EMPTY}), 0.9, True)
        >>> _seen([one, odd, free, free], [False] * 4, None)
        (1, 2)
    """
    wild = [sp or c.novel for c, sp in zip(calls, spoiled, strict=True)]
    tame = [replace(c, novel=False) for c in calls]
    up = [
        replace(c, novel=False, possible=frozenset({EMPTY, LIGHT, DARK})) if c.novel else c
        for c in upper or []
    ]
    return point_cell(tame, wildcard=wild, upper=up or None).plausible


def _hand_doubts(
    cells: dict[Cell, CellReading], counts: np.ndarray | None, foreign: bool
) -> dict[Cell, CellReading]:
    """The cells (in the strips' order: top row, bottom row, bar light, bar dark) with the doubts a hand
    in the frame casts. A hand is in the frame when the slots found something ``foreign`` or the strip
    network sees a point or bar half covered; then the cells beside one that is unreadable or that the
    network half thinks covered (a hand's edge) are no sure thing (:func:`_near_foreign`). And when the
    network sees the hand itself, a cell it is even a little uneasy about (``UNEASY``) may lie under the
    hand's edge: the slots see the checkers beside the edge well, the network the edge over the point.

        >>> p = np.zeros((3, 17)); p[:, 1] = 1; p[0, COVERED] = 0.9; p[2, COVERED] = 0.02
        >>> sure = CellReading(1, 0.99, (1,))
        >>> top0, top5, top9 = (Cell.parse(f"top-{i}") for i in (0, 5, 9))
        >>> out = _hand_doubts({top0: CellReading(0, 0.0, ()), top5: sure, top9: sure}, p, False)
        >>> out[top5].certain, out[top9].certain
        (True, False)
    """
    hand = counts is not None and bool((counts[:, COVERED] >= 0.5).any())
    if not (foreign or hand):
        return cells
    seen_covered = _half_covered(list(cells), counts) if counts is not None else set()
    out = _near_foreign(cells, seen_covered)
    if hand and counts is not None:
        doubt = CONFIDENT - 0.05
        for name, p in zip(cells, counts, strict=True):
            c = out[name]
            if c.certain and p[COVERED] >= UNEASY:
                out[name] = CellReading(c.count, doubt, c.plausible)
    return out


def _half_covered(names: list[Cell], counts: np.ndarray) -> set[Cell]:
    """The cells (``names`` in the strips' order) the strip network gives "covered" ``HALF_SEEN`` or more.

    >>> p = np.zeros((2, 17)); p[:, 0] = 1; p[1] = 0.3
    >>> _half_covered([Cell.parse("top-0"), Cell.parse("top-1")], p)
    {Cell.parse('top-1')}
    """
    return {n for n, p in zip(names, counts, strict=True) if p[COVERED] >= HALF_SEEN}


def _near_foreign(
    cells: dict[Cell, CellReading], covered: set[Cell] | None = None
) -> dict[Cell, CellReading]:
    """Cells a hand seen elsewhere in the frame may still cover, kept from being confident.

    A hand's edge over the bar can look like the bar's own cloth, and one over a point next to an
    unreadable one (or one the strip network sees ``covered``) like that point's empty triangle: a count
    read there is a guess, never a sure thing.
    The bar, which a reaching hand crosses most, stays open upwards (15 a side closes it later).

        >>> top0, top1, bar = Cell.parse("top-0"), Cell.parse("top-1"), Cell.parse("bar-light")
        >>> c = _near_foreign({top0: CellReading(0, 0.0, ()), top1: CellReading(0, 0.99, (0,)),
        ...                    bar: CellReading(0, 0.99, (0,))})
        >>> c[top1].certain, c[bar].plausible[-1]
        (False, 15)
    """
    out = dict(cells)
    doubt = CONFIDENT - 0.05
    for name, c in cells.items():
        if not c.readable:
            continue
        if name.is_bar:
            wider = tuple(range(min(c.plausible), CHECKERS + 1))
            out[name] = CellReading(c.count, min(c.confidence, doubt), wider)
            continue
        if any(not cells[b].readable or b in (covered or ()) for b in name.beside() if b in cells):
            out[name] = CellReading(c.count, min(c.confidence, doubt), c.plausible)
    return out


__all__ = ["BoardReader", "ProfileError", "SlotGrid", "SlotSamples"]


def _ellipses(found: list[tuple[float, ...]]) -> np.ndarray:
    """Slot ellipses (u, v, ru, rv) as an (N, 4) array, (0, 4) for none."""
    return np.array(found, dtype=np.float64).reshape(-1, 4)


def _clear_on_the_bar(dice: tuple[DieReading, ...]) -> tuple[DieReading, ...]:
    """``dice`` without the finds on the bar that are no clear die (``dice_verdict.unclear_on_the_bar``:
    the cube, whose face the reader cannot make out). A die that lies on the bar is thrown again whatever
    it shows, and the die left on the field says so."""
    return tuple(d for d in dice if not unclear_on_the_bar(d))
