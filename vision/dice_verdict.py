"""One found die as the referee reads it: its face, or why it may not count (it leans, it cannot be
read surely enough, it rests on a checker, it lies beyond the field or at its edge), with the thresholds
that decide."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from bgboard.layout import Half
from vision import dice_field, dice_footing, dice_model, dice_reads
from vision.reading import DieReading

# Beyond the field a candidate must be surer than this to be a die.
OUTSIDE_DIE_PROBABILITY = 0.95
# A die whose footprint the image shows less than this many die sides beyond the field's edge lies at the
# edge, in or out, and the table is asked. A die's centre is found up to a third of a side off (a faint
# peak, ``dice_second_look.SECOND_LOOK``), and its footprint with it; a die lying flat beyond the field
# has the rim's wall between it and the field, its footprint half a side beyond the edge at least.
EDGE_DOUBT = 1 / 3
# A die whose best face has less probability than this is reported unreadable.
READABLE = 0.5
# The fewest pixels across a die at which real dice are read as surely as the readers' target asks: fewer
# blur a pip into its neighbour or into a dark die's body. At a die's labelled box 99 % of the dice the
# networks never trained on read right from 28 px (``bench.dice_size``); thrown on the real boards, a
# face read below READABLE was the die's about one time in two up to 29 px a die, four in five from 30
# (``bench.semireal``). On a field that gives a die fewer, such a face is not named to the table.
CLEAR_DIE_PX = 30
# A die of a pair lying against each other is read in a crop as wide as their patch of change (a die and
# the blur's spread; a looser crop takes in the other die's pips), and its face counts only at this
# confidence: the crop still holds an edge of the other die, and a face read unsurely there is more
# often wrong. Between READABLE and this the table is asked about the face.
PAIR_READABLE = 0.7
# A pip count confirms a face the network is unsure of only from this many pips. One or two pips are
# what a die whose pips fade into it shows (a dark see-through die's red pips), to the count and to the
# network alike: on real dice thrown on the boards such counts agreed with the network's face as often
# when it was wrong as when it was right. The face is then asked about instead.
CONFIRMING_PIPS = 3
# A die lying against another: the other die's edge and side in its crop look like a lean to the value
# reader (a rendered pair of flat dice gets 0.4 to 0.8 of its belief on "cocked"), so the flags network,
# judging the die in the board plane, decides where it is sure. Under CROWDED_FLAT the die lies flat and
# its face is read among the flat faces alone; it leans only from CROWDED_LEAN (and where the value
# reader finds "cocked" likelier than every face). The network's P seldom lies between the two; a
# leaning die propped against the other can lie there (0.16 to 0.21 for a rendered one), and such a die
# keeps the value reader's doubt (flat) or is asked about (a lean).
CROWDED_FLAT = 0.1
CROWDED_LEAN = 0.9


def reading(
    image: np.ndarray,
    c: dice_model.Candidate,
    p: np.ndarray,
    look: dice_footing.Look,
    checker_mask: np.ndarray | None,
    on_checker_valid: bool,
    half_of_a_pair: bool = False,
    crowded: bool = False,
    few_pixels: bool = False,
) -> DieReading | None:
    """One found die as the referee reads it; None for a find beyond the field that is no clear die.
    ``half_of_a_pair``: one of two small dice lying against each other, whose crop holds a little of the
    other: its face counts only when surely read (``PAIR_READABLE``); an unsure one is asked about
    where it is read at ``READABLE`` or more, or the flags network sees it lean (the table is asked
    whether every die lies flat), and waited on otherwise. ``crowded``:
    another die lies within ``dice_pairs.CROPPED_IN`` die sides (as the two of a pair do). Such a die (or
    a half of a pair) that the flags network is sure lies flat (``CROWDED_FLAT``) is read by its flat
    faces alone (``dice_reads.as_flat``): the other die's edge in its crop looks to the value reader like
    a lean. One it sees lean leans only where it is sure of it (``CROWDED_LEAN``) and the value reader
    finds "cocked" likelier than every face; otherwise the table is asked whether it lies flat.
    ``few_pixels``: the field gives a die fewer than ``CLEAR_DIE_PX`` pixels, and a face read below
    ``READABLE`` is not named."""
    against_another = half_of_a_pair or crowded
    if against_another and look.cocked and (dice_reads.cocked_odds(p) <= 0.0 or look.p_cocked < CROWDED_LEAN):
        # the other die's edge and side beside a flat die look like a lean to the flags network: unless
        # it is sure of the lean and the value reader, too, finds "cocked" likelier than every face, the
        # table is asked about the face, and never told to throw again on that look alone
        look = replace(look, cocked=False, doubtful=True)
    elif against_another and look.p_cocked < CROWDED_FLAT:
        # the other way round: the flags network is sure the die lies flat, so the "cocked" the value
        # reader sees is the other die in its crop
        p = dice_reads.as_flat(p)
    value = dice_reads.likeliest_face(p)
    die_p = 1.0 - float(p[0])
    confidence = look.p_cocked if look.cocked else float(p[value]) / die_p
    unreadable = not look.cocked and confidence < (PAIR_READABLE if half_of_a_pair else READABLE)
    likeliest: int | None = None if look.cocked else value
    if look.doubtful:
        # a die the flags network sees cocked, with a face up: whether it counts is the table's call, so
        # it is reported unreadable with its likeliest face (pips cannot tell a lean). The table asked
        # throws a leaning die again and plays flat dice showing another face, which names the roll
        unreadable, confidence = True, min(confidence, 1.0 - look.p_cocked)
    elif half_of_a_pair:
        if unreadable and confidence < READABLE:
            # the other die's pips are in the crop (and would be in a pip count): no face is likely
            # enough to name. Between READABLE and PAIR_READABLE the face is asked about
            likeliest = None
    elif unreadable:
        pips = dice_reads.pip_count(image, c)
        if pips == value and pips >= CONFIRMING_PIPS:
            unreadable = False  # the network is unsure but the pips, counted the classical way, agree
        elif (pips is not None and pips != value) or few_pixels:
            # the two disagree, or the die has too few pixels for a face read below READABLE to be more
            # than a coin toss: no face is likely enough to ask the table about (the referee waits, and
            # the play names the roll)
            likeliest = None
    outside, at_edge, half, on_checker = False, False, None, False
    if look.foot is not None:
        u, v = look.foot
        outside = not (0.0 <= u <= 1.0 and 0.0 <= v <= 1.0)
        if outside and (look.cocked or unreadable or die_p < OUTSIDE_DIE_PROBABILITY):
            # trays hold the cube, clocks and score cards: beyond the field only a clear die counts
            return None
        at_edge = outside and look.beyond < EDGE_DOUBT
        if at_edge:
            outside, u = False, min(max(u, 0.0), 1.0)
        on_bar = abs(u - 0.5) < dice_field.BAR_HALF
        half = None if outside or on_bar else (Half.LEFT if u < 0.5 else Half.RIGHT)
        if checker_mask is not None:
            on_checker = dice_field.touches_checker_mask(checker_mask, c.x, c.y, c.side)
        elif not outside:
            on_checker = look.resting
        if on_checker_valid and not look.cocked:
            on_checker = False
    return DieReading(
        value=None if (look.cocked or unreadable) else value,
        center=(float(c.x), float(c.y)),
        box=c.box,
        confidence=confidence,
        cocked=look.cocked,
        on_checker=on_checker,
        outside_field=outside,
        unreadable=unreadable,
        half=half,
        likeliest=likeliest,
        at_edge=at_edge,
    )


def unclear_on_the_bar(die: DieReading) -> bool:
    """Whether ``die`` is a find on the bar that is no clear die: cocked, or read less surely than
    ``READABLE``. The bar holds the cube, centred or pushed to its end, and a cube whose face the reader
    cannot make out reads as such a find: there, as beyond the field, only a clear die counts.

    >>> unclear_on_the_bar(DieReading(None, (0.0, 0.0), (0.0, 0.0, 1.0, 1.0), 0.4, unreadable=True))
    True
    >>> unclear_on_the_bar(DieReading(None, (0.0, 0.0), (0.0, 0.0, 1.0, 1.0), 0.4, half=Half.LEFT))
    False
    """
    clear = die.value is not None and die.confidence >= READABLE
    return die.half is None and not die.outside_field and not clear
