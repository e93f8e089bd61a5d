"""``referee markers``: write the ArUco marker sheet to print (PNG or PDF).

$ referee markers -o markers.pdf
wrote markers.pdf: ArUco DICT_4X4_50 ids 0-3 (top-left, top-right, bottom-right, bottom-left)

Cut the four markers out and lay each just outside its corner of the playing field; `referee calibrate`
without --corners then finds the field from them.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee.cli import CommandError

if TYPE_CHECKING:
    import numpy as np


def add_parser(sub: Any) -> None:
    p = sub.add_parser("markers", help="write the ArUco marker sheet to print (PNG or PDF)",
                       description=__doc__.split("\n\n", 2)[2] if __doc__ else None)  # fmt: skip
    p.add_argument("-o", "--output", default="markers.png", help="a .png or .pdf file (default markers.png)")
    p.add_argument("--size", type=int, default=1600, help="sheet size in pixels (default 1600)")
    p.set_defaults(run=run)


def write_pdf(gray: np.ndarray, path: Path) -> None:
    """A one-page PDF holding the grey image at A4 width (no PDF library needed)."""
    h, w = gray.shape
    page = 595.0  # A4 width in points
    scale = (page - 72) / w
    dw, dh = w * scale, h * scale
    content = f"q {dw:.2f} 0 0 {dh:.2f} 36 {842 - 36 - dh:.2f} cm /Im0 Do Q".encode()
    image = gray.tobytes()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /XObject << /Im0 5 0 R >> >> "
        b"/Contents 4 0 R >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 8 "
        b"/Length %d >>\nstream\n" % (w, h, len(image)) + image + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    path.write_bytes(bytes(out))


def run(args: argparse.Namespace) -> int:
    import cv2

    from calibration.field import marker_sheet

    if not 400 <= args.size <= 8000:
        raise CommandError(f"--size {args.size} is not 400..8000 pixels")
    path = Path(args.output)
    sheet = marker_sheet(args.size, args.size * 3 // 16)
    try:
        if path.suffix.lower() == ".pdf":
            write_pdf(sheet, path)
        elif path.suffix.lower() == ".png":
            if not cv2.imwrite(str(path), sheet):
                raise CommandError(f"cannot write {path}")
        else:
            raise CommandError(f"{path}: write a .png or a .pdf")
    except OSError as e:
        raise CommandError(f"cannot write {path}: {e.strerror}") from None
    print(f"wrote {path}: ArUco DICT_4X4_50 ids 0-3 (top-left, top-right, bottom-right, bottom-left)")
    return 0
