"""Read an image file only when it is whole: a cut-off JPEG or a damaged PNG is an error, not a picture.

OpenCV decodes what it can of a truncated JPEG and fills the rest with grey, without saying so; a
referee reading that grey as a board (or dice in its noise) would be wrong with confidence. So the file's
own structure is checked first: a JPEG's segments must lead to its end-of-image marker, and a PNG's chunks
must all be present with their checksums right, up to ``IEND``. Other formats are left to OpenCV.

    >>> import cv2, numpy as np, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "f.jpg")
    >>> _ = cv2.imwrite(path, np.zeros((8, 8, 3), np.uint8))
    >>> read_image(path).shape
    (8, 8, 3)
    >>> _ = open(path, "r+b").truncate(os.path.getsize(path) // 2)
    >>> read_image(path)  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    ImageFileError: f.jpg: the JPEG is cut off (no end-of-image marker): copy the file again
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import cv2
import numpy as np

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


class ImageFileError(ValueError):
    """An image file that is missing, unreadable, cut off or damaged; the message names the file."""


def jpeg_problem(data: bytes) -> str | None:
    """Why ``data`` (a JPEG, starting with SOI) is not whole, or None.

    The segments before the first scan each carry their length; after a scan comes entropy-coded data in
    which a 0xFF byte is followed by 0x00 (a stuffed byte), a restart marker, or the next marker.
    """
    i, n = 2, len(data)
    while i < n:
        if data[i] != 0xFF:
            return "a segment does not start where the one before it ends"
        while i < n and data[i] == 0xFF:  # fill bytes may pad a marker
            i += 1
        if i >= n:
            break
        marker = data[i]
        i += 1
        if marker == 0xD9:
            return None  # end of image
        if 0xD0 <= marker <= 0xD7 or marker == 0x01:
            continue  # restart markers and TEM carry no length
        if i + 2 > n:
            break
        (length,) = struct.unpack(">H", data[i : i + 2])
        if length < 2:
            return "a segment has an impossible length"
        i += length
        if marker == 0xDA:  # start of scan: skip its entropy-coded data to the next real marker
            while True:
                j = data.find(b"\xff", i)
                if j < 0 or j + 1 >= n:
                    i = n
                    break
                follower = data[j + 1]
                if follower == 0x00 or 0xD0 <= follower <= 0xD7 or follower == 0xFF:
                    i = j + 1 if follower == 0xFF else j + 2
                    continue
                i = j
                break
    return "the JPEG is cut off (no end-of-image marker)"


def png_problem(data: bytes) -> str | None:
    """Why ``data`` (a PNG, starting with its signature) is not whole, or None: every chunk is there and
    its CRC is right, up to IEND."""
    i, n = len(PNG_SIGNATURE), len(data)
    while i + 8 <= n:
        length, kind = struct.unpack(">I4s", data[i : i + 8])
        end = i + 8 + length + 4
        if end > n:
            return "the PNG is cut off"
        (crc,) = struct.unpack(">I", data[end - 4 : end])
        if zlib.crc32(data[i + 4 : end - 4]) != crc:
            return f"the PNG is damaged (its {kind.decode('latin-1')} chunk fails its checksum)"
        if kind == b"IEND":
            return None
        i = end
    return "the PNG is cut off (no IEND chunk)"


def image_problem(data: bytes) -> str | None:
    """Why the bytes of an image file are not a whole picture, or None (formats other than JPEG and PNG
    are left to the decoder)."""
    if not data:
        return "the file is empty"
    if data.startswith(b"\xff\xd8"):
        return jpeg_problem(data)
    if data.startswith(PNG_SIGNATURE):
        return png_problem(data)
    return None


def decode_image(data: bytes, name: str) -> np.ndarray:
    """A whole image file's bytes as a BGR array; :class:`ImageFileError` naming ``name`` otherwise."""
    problem = image_problem(data)
    if problem is not None:
        raise ImageFileError(f"{name}: {problem}: copy the file again or take a new picture")
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise ImageFileError(
            f"{name}: cannot read it as an image (empty, damaged or not a picture): give a JPEG or PNG"
        )
    return image


def read_image(path: str | Path) -> np.ndarray:
    """The picture in ``path`` as a BGR array, or :class:`ImageFileError` saying what is wrong."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ImageFileError(f"{path}: no such file") from None
    except OSError as e:
        raise ImageFileError(f"{path}: cannot read it ({e.strerror or e})") from None
    return decode_image(data, path.name if path.parent == Path(".") else str(path))
