"""Speed of the synthetic board renderer: ``python -m bench.render``.

Prints medians for a clean frame, a rough frame (hand, arm, cup, light, noise, blur, JPEG) and a frame
whose camera and style are new (the cached background and warp maps are built), each as a ratio to a
plain ``cv2.warpPerspective`` of a 1280x720 frame measured in the same run, so the figure survives a
busy machine.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from bgboard.layout import ImageLayout
from synthetic.random_scenes import random_scene
from synthetic.render import STYLES, Camera, DieSpec, HandSpec, render, scene_from_layout

MID_GAME = ImageLayout((-4, -1, -2, 0, -2, 0, 0, 0, 0, 0, 0, 0), (0, 1, 1, -6, 3, 2, 2, 2, 2, 2, 0, 0))


def _median_ms(fn: Callable[[int], object], reps: int) -> float:
    times = []
    for i in range(reps):
        t = time.perf_counter()
        fn(i)
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


def _save_examples(folder: Path) -> None:
    """One random, realistic frame per style (with truth drawn beside it) for a person to look at."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(2026)
    for k, style in enumerate(sorted(STYLES)):
        frame = render(random_scene(MID_GAME, rng, style=style, occlusion=0.5), seed=k)
        marked = frame.image.copy()
        cv2.polylines(marked, [np.round(frame.field_quad).astype(np.int32)], True, (0, 255, 0), 1)
        for die in frame.dice:
            x0, y0, x1, y1 = (round(v) for v in die.box)
            cv2.rectangle(marked, (x0, y0), (x1, y1), (255, 0, 255), 1)
        cv2.imwrite(str(folder / f"{style}.png"), frame.image)
        cv2.imwrite(str(folder / f"{style}-truth.png"), marked)
        print(f"wrote {folder / style}.png (occluded: {', '.join(sorted(frame.occluded)) or 'none'})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=15, help="frames per case (default 15)")
    parser.add_argument("--save", metavar="DIR", help="also write one random frame per style as PNG to DIR")
    args = parser.parse_args(argv)
    if args.save:
        _save_examples(Path(args.save))
    size = (1280, 720)
    camera = Camera(tilt_deg=12, rotation_deg=2, distortion=0.06)
    dice = (DieSpec(3, 0.7, 0.3), DieSpec(5, 0.8, 0.45, cocked=True))
    clean = scene_from_layout(MID_GAME, dice=dice, camera=camera)
    rough = scene_from_layout(
        MID_GAME,
        style="wood",
        dice=dice,
        camera=camera,
        hands=(HandSpec("arm", 0.3, 0.35, angle=10, blur=0.04), HandSpec("cup", 0.85, 0.2)),
        light=0.9,
        shading=0.5,
        glare=0.3,
        noise=0.02,
        blur=0.8,
        jpeg_quality=80,
        tint=0.5,
    )
    image = np.random.default_rng(0).integers(0, 256, (size[1], size[0], 3), dtype=np.uint8)
    homography = np.array([[1.0, 0.02, 5.0], [0.01, 1.0, 3.0], [1e-5, 2e-5, 1.0]])
    render(clean, size)
    render(rough, size)

    def warp(_: int) -> None:
        cv2.warpPerspective(image, homography, size)

    cameras = [Camera(tilt_deg=float(t), rotation_deg=1.0) for t in range(1, 1 + max(3, args.reps // 5))]
    ref = _median_ms(warp, args.reps * 2)
    rows = [
        (
            "clean frame (start of a game, 2 dice)",
            _median_ms(lambda i: render(clean, size, seed=i), args.reps),
        ),
        (
            "rough frame (arm, cup, light, noise, JPEG)",
            _median_ms(lambda i: render(rough, size, seed=i), args.reps),
        ),
        (
            "new camera (background + maps built)",
            _median_ms(lambda i: render(scene_from_layout(MID_GAME, camera=cameras[i]), size), len(cameras)),
        ),
    ]
    ref = (ref + _median_ms(warp, args.reps * 2)) / 2
    print(f"reference cv2.warpPerspective 1280x720: {ref:.2f} ms median")
    for name, ms in rows:
        print(f"{name:45s} {ms:8.1f} ms median  {ms / ref:6.1f} x warpPerspective")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
