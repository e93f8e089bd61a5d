"""The strip network: where strips are cut, what it counts on rendered boards, how it joins the slots."""

from __future__ import annotations

import numpy as np
import pytest
from rendered_fixtures import tournament_club

from bgboard.layout import ImageLayout
from synthetic.random_play import random_boards
from synthetic.random_scenes import club_frame
from synthetic.render import render, scene_from_layout
from vision.point_counts import (
    BAR_DARK,
    BAR_LIGHT,
    COLOUR_MARGIN,
    COVERED,
    STRIP_H,
    colour_lean,
    count_net,
    fuse,
    past_die,
    slot_leans,
    strips,
)
from vision.reading import CONFIDENT, CellReading
from vision.rectify import Rectifier


def probs(n: int, p: float = 0.995) -> np.ndarray:
    out = np.full(COVERED + 1, (1 - p) / COVERED)
    out[n] = p
    return out


def test_agreeing_network_settles_an_open_stack() -> None:
    got = fuse(CellReading(7, 0.5, (5, 6, 7, 8)), probs(7))
    assert got.certain and got.count == 7


def test_network_count_the_slots_only_allow_is_taken_but_not_sure() -> None:
    got = fuse(CellReading(5, 0.5, (5, 6, 7, 8)), probs(7))
    assert got.count == 7 and not got.certain and set(got.plausible) == {5, 6, 7, 8}


def test_network_contradicting_a_sure_reading_takes_its_certainty_away() -> None:
    cell = CellReading(-2, 0.99, (-2,))
    got = fuse(cell, probs(3))
    assert got.count == -2 and not got.certain and -3 in got.plausible


def test_unsure_network_changes_nothing() -> None:
    cell = CellReading(3, 0.6, (3, 4))
    assert fuse(cell, probs(4, p=0.45)) == cell


def test_a_covered_point_is_unreadable_unless_the_slots_are_sure() -> None:
    assert not fuse(CellReading(2, 0.6, (2, 3)), probs(COVERED, p=0.8)).readable
    sure = fuse(CellReading(2, 0.99, (2,)), probs(COVERED, p=0.8))
    assert sure.readable and sure.count == 2 and not sure.certain


def test_an_unfamiliar_point_is_read_only_when_plainly_uncovered() -> None:
    unreadable = CellReading(0, 0.0, ())
    got = fuse(unreadable, probs(3), colour=1)
    assert got.readable and got.count == 3 and not got.certain
    assert not fuse(unreadable, probs(3), colour=0).readable  # no colour, no count
    half_covered = probs(3, p=0.9)
    half_covered[COVERED] = 0.05
    assert not fuse(unreadable, half_covered, colour=1).readable


def test_an_unfamiliar_point_is_read_on_a_lean_only_where_its_familiar_slots_allow_it() -> None:
    unreadable = CellReading(0, 0.0, ())
    lean = probs(7, p=0.8)
    got = fuse(unreadable, lean, colour=1, seen=(5, 6, 7, 8))
    assert got.readable and got.count == 7 and not got.certain and got.plausible == (5, 6, 7, 8)
    assert not fuse(unreadable, lean, colour=1, seen=(5, 6)).readable  # the slots rule it out
    assert not fuse(unreadable, probs(7, p=0.45), colour=1, seen=(7,)).readable  # no lean
    covered = probs(7, p=0.8)
    covered[COVERED] = 0.05
    assert not fuse(unreadable, covered, colour=1, seen=(7,)).readable  # the network is uneasy


def test_a_die_on_a_strip_gives_up_the_networks_covered() -> None:
    p = np.zeros(COVERED + 1)
    p[5], p[6], p[COVERED] = 0.1, 0.3, 0.6
    q = past_die(p)
    assert q[COVERED] == 0 and abs(q.sum() - 1) < 1e-9 and int(q.argmax()) == 6
    assert fuse(CellReading(-6, 0.9, (-6, -5)), q).readable
    assert not fuse(CellReading(-6, 0.9, (-6, -5)), p).readable


def test_colour_from_the_nearer_checker_is_never_sure() -> None:
    # the slots saw nothing; the network counts two: the count is taken, the colour is a guess
    got = fuse(CellReading(0, 0.6, (0,)), probs(2), colour=-1)
    assert got.count == -2 and not got.certain
    assert got.confidence < CONFIDENT


def test_a_fair_lean_of_the_network_picks_among_the_slots_doubts_only() -> None:
    lean = probs(6, p=0.8)
    got = fuse(CellReading(-5, 0.7, (-7, -6, -5)), lean)
    assert got.count == -6 and not got.certain and got.plausible == (-7, -6, -5)
    # a count the slots rule out stays out, and a lean under half changes nothing
    assert fuse(CellReading(-5, 0.7, (-5, -4)), lean).count == -5
    assert fuse(CellReading(-5, 0.7, (-7, -6, -5)), probs(6, p=0.45)).count == -5


def test_a_lone_checker_takes_the_nearer_checkers_colour_when_the_slots_allow_both() -> None:
    # the slots' best count (-2) is not the network's (1); their plausible counts allow 1 or -1
    got = fuse(CellReading(-2, 0.5, (-3, -2, -1, 0, 1)), probs(1), colour=1)
    assert got.count == 1 and not got.certain
    # where they allow only one colour for that count, that colour is taken
    assert fuse(CellReading(-2, 0.5, (-3, -2, -1, 0)), probs(1), colour=1).count == -1


def test_a_count_both_eyes_agree_on_is_sure_only_when_the_slots_tell_its_colour() -> None:
    # rendered seed 10, suede/3/14: one light checker the slots called dark by a hair (log ratio 0.1),
    # light still plausible; the network, colourless, was sure of one checker
    cell = CellReading(-1, 0.63, (-1, 0, 1))
    got = fuse(cell, probs(1), colour=-0.1)
    assert got.count == -1 and not got.certain and got.plausible == (-1, 1)
    # a lean the other way than the slots' best count settles nothing either
    assert not fuse(cell, probs(1), colour=0.8).certain
    # the slots plainly see dark: settled
    assert fuse(cell, probs(1), colour=-1.5 * COLOUR_MARGIN).certain
    # where the slots rule the other colour out, the lean does not matter
    assert fuse(CellReading(-3, 0.6, (-3, -2, 0)), probs(3), colour=-0.05).certain


def test_colour_lean_weighs_the_filled_slots() -> None:
    light, dark = np.array([1.0, 1.0, 2.0]), np.array([3.0, 1.0, 1.0])
    assert colour_lean(slot_leans(light, dark)) == pytest.approx((np.log(3) + 0 - np.log(2)) / 3)
    assert colour_lean(slot_leans(light[:0], dark[:0])) == 0.0  # no slot seen: no colour
    # a colour never seen at calibration is far, not infinitely far
    assert colour_lean(slot_leans(np.array([1.0]), np.array([np.inf]))) == 10.0


def test_a_bar_half_knows_its_colour() -> None:
    # the slots found nothing they know on the bar: a plainly uncovered, sure count is read, not surely
    got = fuse(CellReading(0, 0.0, ()), probs(2), colour=1, known=True)
    assert got.readable and got.count == 2 and not got.certain
    # both eyes agree on an open bar count: settled
    settled = fuse(CellReading(2, 0.9, (1, 2)), probs(2), colour=1, known=True)
    assert settled.plausible == (2,) and settled.certain
    # the network sure of another count: taken, never sure
    other = fuse(CellReading(1, 0.9, (1, 2)), probs(2), colour=1, known=True)
    assert other.count == 2 and not other.certain


@pytest.fixture(scope="module")
def club():
    return tournament_club()


def test_strips_put_each_points_edge_first(club) -> None:
    p = club.profile
    rect = Rectifier(p.corners, p.geometry.width, p.geometry.height, p.margin)

    def cut(top: tuple[int, ...], bottom: tuple[int, ...]) -> np.ndarray:
        layout = ImageLayout(top, bottom)
        frame = render(scene_from_layout(layout, style=club.style, camera=club.camera, noise=0.0), seed=1)
        return strips(rect.warp(frame.image), p.geometry, p.margin).astype(np.float32)

    none = (0,) * 12
    empty = cut(none, none)
    one = cut((0, 0, 0, 1, *(0,) * 8), (*(0,) * 8, 1, 0, 0, 0))
    change = np.abs(one - empty).mean(axis=(2, 3))  # strip x length
    changed = change.mean(axis=1)
    # only the two strips with a checker change, and each at its first (edge) end
    assert set(np.argsort(changed)[-2:]) == {3, 20}
    for k in (3, 20):
        assert change[k, : STRIP_H // 4].mean() > 5 * change[k, STRIP_H // 2 :].mean()


def test_bar_strips_start_at_the_middle(club) -> None:
    p = club.profile
    rect = Rectifier(p.corners, p.geometry.width, p.geometry.height, p.margin)

    def cut(bar_light: int, bar_dark: int) -> np.ndarray:
        layout = ImageLayout((0,) * 12, (0,) * 12, bar_light, bar_dark)
        frame = render(scene_from_layout(layout, style=club.style, camera=club.camera, noise=0.0), seed=1)
        return strips(rect.warp(frame.image), p.geometry, p.margin).astype(np.float32)

    empty = cut(0, 0)
    for light, dark, k in ((1, 0, BAR_LIGHT), (0, 1, BAR_DARK)):
        change = np.abs(cut(light, dark) - empty).mean(axis=(2, 3))
        assert int(change.mean(axis=1).argmax()) == k
        assert change[k, : STRIP_H // 4].mean() > 5 * change[k, STRIP_H // 2 :].mean()


def _network_counts(club, image: np.ndarray) -> np.ndarray:
    """The count network's likeliest count of each strip of ``image``, rectified with the club's profile."""
    net = count_net()
    assert net is not None
    p = club.profile
    rect = Rectifier(p.corners, p.geometry.width, p.geometry.height, p.margin)
    return net.probabilities(strips(rect.warp(image), p.geometry, p.margin)).argmax(axis=1)


@pytest.mark.skipif(count_net() is None, reason="the point-count model is not installed")
def test_network_counts_rendered_points(club) -> None:
    rng = np.random.default_rng(12)
    right = total = 0
    for board in random_boards(6, rng):
        frame = club_frame(club.board, board, rng, occlude=False)
        assert frame.layout is not None
        got = _network_counts(club, frame.image)
        lay = frame.layout
        truth = [abs(v) for v in (*lay.top, *lay.bottom)] + [lay.bar_light, lay.bar_dark]
        right += int((got == truth).sum())
        total += len(truth)
    assert right >= total - 2


@pytest.mark.skipif(count_net() is None, reason="the point-count model is not installed")
def test_network_counts_checkers_on_the_bar(club) -> None:
    top, bottom = (0, -2, 0, 0, 3, 0, -5, 0, 0, 0, 0, 4), (0, 0, 2, 0, -3, 0, 5, 0, 0, 0, 0, -4)
    for light, dark in ((1, 0), (0, 2), (2, 3)):
        # checkers off the points onto the bar
        lay = ImageLayout(
            top[:4] + (3 - light,) + top[5:], bottom[:4] + (-3 + dark,) + bottom[5:], light, dark
        )
        frame = render(scene_from_layout(lay, style=club.style, camera=club.camera, noise=0.005), seed=2)
        got = _network_counts(club, frame.image)
        assert (got[BAR_LIGHT], got[BAR_DARK]) == (light, dark)


def test_profile_keeps_whether_the_network_knows_the_board(club) -> None:
    from vision.board_reader import BoardReader
    from vision.profile import Profile

    p = club.profile
    again = Profile.from_json(p.to_json())
    assert again.counts_trusted == p.counts_trusted
    again.counts_trusted = False
    assert BoardReader(again, use_dice=False).counter is None
    # a profile written before the network existed reads as not trusting it
    old = p.to_json()
    del old["counts_trusted"]
    assert Profile.from_json(old).counts_trusted is False


@pytest.mark.skipif(count_net() is None, reason="the point-count model is not installed")
def test_network_is_trusted_on_a_rendered_board_it_reads_right(club) -> None:
    from vision.board_reader import BoardReader

    assert club.profile.counts_trusted
    assert BoardReader(club.profile, use_dice=False).counter is not None


def test_a_missing_count_model_says_what_to_do(tmp_path) -> None:
    from vision.onnx_net import ModelError
    from vision.point_counts import CountNet

    with pytest.raises(ModelError, match="point-count model .*reinstall"):
        CountNet(tmp_path / "missing.onnx")
