"""Train the fast dice detector (``vision/models/dice_detect.onnx``) and export it to ONNX.

The detector only says where dice might be; ``dice_value.onnx`` (``tools/train_dice.py``) then reads
each candidate and throws out what is not a die. So this network is tuned for recall and speed: a
frame is shrunk until a die is about ``vision.dice_detect.DIE_PX`` (8) pixels wide, and five 3x3
convolutions (8 then 16 channels: two with stride 2, then dilations 1, 2 and 4 at stride 4) give, at
stride 4, a centre heat map (logit), log(die side / 8 px) and the centre's offset within its cell
(CenterNet-style). About 50 M multiply-adds on a 1280x720 board frame, against 450 M for the first
detector of session 1, which ran at 13 px dice (its training left ``tools/train_dice.py`` with it).

Data recipe (nothing downloaded), the same sources as ``tools/train_dice.py``:

* ``../shared/data/real-dice/``: 200 overhead photographs, 1,487 labelled dice; every 10th photograph
  kept apart (``--holdout 10``), the ones ``tests/test_dice.py`` scores.
* ``../shared/data/real-boards/frame2.jpg`` and ``test4.jpg``: dice-free boards, negatives only
  (8 copies each in the pool of images).
* 240 seeded frames from ``synthetic.render`` (``tools.train_dice.rendered_samples``; kept between runs
  with ``--cache``): dice of every colour, a third cocked, some on checkers or beside the field.

Each training patch (128 px) is cut from an image rescaled so that its dice are 6..20 px (log-uniform;
the detector sees about 8 px dice on a calibrated board and 6..20 px on a photograph without a field),
resized with INTER_LINEAR (70 %, as at run time) or INTER_AREA, turned by quarter turns, flipped and
colour-jittered (hue turned freely, so a colour the photographs lack is still a die). Loss: focal loss
on the heat map, L1 on size and offset at each die's centre cell.

The shipped model came from these runs (torch only here, never at run time; one thread; about 20 and
25 minutes on this 2-core machine shared with two other trainings)::

    /tmp/trainenv/bin/python tools/train_dice_detect.py --holdout 10 --cache /tmp/dice_render240.npz \
        --out /tmp/dd_b --steps 10000
    /tmp/trainenv/bin/python tools/train_dice_detect.py --holdout 10 --cache /tmp/dice_render240.npz \
        --out /tmp/dd_c --steps 8000 --lr 2e-3 --seed 1 --resume /tmp/dd_b
    cp /tmp/dd_c/dice_detect.onnx vision/models/

(``/tmp/dice_render240.npz`` is the cache ``tools/train_dice.py --cache`` wrote; without it the same
``load_rendered`` renders 240 frames afresh with seed ``--seed + 1``.)

The detector shipped since issue 14 went on from that one (``--resume`` takes a folder holding its
``.onnx``) with 500 frames of real dice pasted onto the real boards (``--composites``), 8,000 steps,
about 34 minutes on a loaded machine; its log kept no command line, and the run was, as its notes
say, ``--holdout 10 --composites 500 --resume /tmp/r0 --steps 8000 --out /tmp/tr/d1``. With it and the
new value reader, ``bench.dice`` on the real photographs: recall 0.9906, precision 0.9953.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tools.train_dice import (  # noqa: E402
    DATA,
    NEGATIVE_BOARDS,
    Sample,
    board_composites,
    colour_jitter,
    conv,
    export,
    freeze_norms,
    load_labels,
    load_rendered,
    load_weights,
    to_tensor,
)

STRIDE = 4
PATCH = 128
DIE_RANGE = (6.0, 20.0)  # die side in detector pixels seen in training
NEG_DIE_PX = 22.0  # the die side the dice-free board photographs imply (a 680 px field / 31)


def focal_loss(logit: torch.Tensor, heat: torch.Tensor) -> torch.Tensor:
    p = torch.sigmoid(logit).clamp(1e-4, 1 - 1e-4)
    pos = heat.eq(1).float()
    pos_loss = -torch.log(p) * (1 - p) ** 2 * pos
    neg_loss = -torch.log(1 - p) * p**2 * (1 - heat) ** 4 * (1 - pos)
    return (pos_loss.sum() + neg_loss.sum()) / pos.sum().clamp(min=1)


class FastDetector(nn.Module):
    """Stride-2 stem to stride 4, then dilated 3x3s for context (receptive field about 60 px)."""

    def __init__(self, width: int = 16, stem: int = 8) -> None:
        super().__init__()
        self.body = nn.Sequential(
            conv(3, stem, 2),
            conv(stem, width, 2),
            conv(width, width),
            conv(width, width, dil=2),
            conv(width, width, dil=4),
        )
        self.head = nn.Conv2d(width, 4, 1)
        self.head.bias.data[0] = -4.0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(x))


def patch_and_targets(s: Sample, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A PATCH x PATCH window and its targets: heat (G, G); size, offset x, offset y, mask (4, G, G)."""
    want = math.exp(rng.uniform(math.log(DIE_RANGE[0]), math.log(DIE_RANGE[1])))
    scale = want / (s.typical or NEG_DIE_PX)
    h0, w0 = s.image.shape[:2]
    # cut the source region first: resizing a whole frame per patch would dominate training time
    src = int(math.ceil(PATCH / scale)) + 2
    sx = int(rng.integers(0, max(1, w0 - src + 1)))
    sy = int(rng.integers(0, max(1, h0 - src + 1)))
    region = s.image[sy : sy + src, sx : sx + src]
    interp = cv2.INTER_LINEAR if rng.random() < 0.7 else cv2.INTER_AREA
    img = cv2.resize(region, None, fx=scale, fy=scale, interpolation=interp)
    h, w = img.shape[:2]
    if h < PATCH or w < PATCH:
        img = cv2.copyMakeBorder(img, 0, max(0, PATCH - h), 0, max(0, PATCH - w), cv2.BORDER_REFLECT)
    patch = img[:PATCH, :PATCH].copy()
    dice = s.dice.copy()
    if len(dice):
        dice[:, 1] = (dice[:, 1] - sx) * scale
        dice[:, 2] = (dice[:, 2] - sy) * scale
        dice[:, 3] *= scale
    for _ in range(int(rng.integers(0, 4))):  # quarter turn clockwise: (x, y) -> (P-1-y, x)
        patch = cv2.rotate(patch, cv2.ROTATE_90_CLOCKWISE)
        if len(dice):
            dice[:, 1], dice[:, 2] = PATCH - 1 - dice[:, 2], dice[:, 1].copy()
    if rng.random() < 0.5:
        patch = patch[:, ::-1].copy()
        if len(dice):
            dice[:, 1] = PATCH - 1 - dice[:, 1]
    patch = colour_jitter(patch, rng)
    g = PATCH // STRIDE
    heat = np.zeros((g, g), np.float32)
    size = np.zeros((g, g), np.float32)
    offset = np.zeros((2, g, g), np.float32)
    mask = np.zeros((g, g), np.float32)
    ys, xs = np.mgrid[0:g, 0:g].astype(np.float32)
    for _, cx, cy, side in dice:
        # cell (i, j) stands for the pixel centre STRIDE * (i, j) + 1.5, as vision.dice_detect reads it
        gx, gy = (cx - 1.5) / STRIDE, (cy - 1.5) / STRIDE
        if not (-1 <= gx <= g and -1 <= gy <= g):
            continue
        sigma = max(0.6, side / STRIDE * 0.18)
        heat = np.maximum(heat, np.exp(-((xs - gx) ** 2 + (ys - gy) ** 2) / (2 * sigma**2)))
        ix, iy = int(round(gx)), int(round(gy))
        if 0 <= ix < g and 0 <= iy < g:
            heat[iy, ix] = 1.0
            size[iy, ix] = math.log(side / 8.0)
            offset[:, iy, ix] = (gx - ix, gy - iy)
            mask[iy, ix] = 1.0
    return patch, heat, np.stack([size, offset[0], offset[1], mask])


def train(
    samples: list[Sample], steps: int, rng: np.random.Generator, lr: float, batch: int, start: Path | None
) -> FastDetector:
    net = FastDetector()
    if start:
        load_weights(net, start)
    opt = torch.optim.AdamW([p for p in net.parameters() if p.requires_grad], lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps)
    t0 = time.time()
    for step in range(steps):
        net.train()
        freeze_norms(net)
        items = [patch_and_targets(samples[int(rng.integers(len(samples)))], rng) for _ in range(batch)]
        x = to_tensor([b[0] for b in items])
        heat = torch.from_numpy(np.stack([b[1] for b in items]))
        sm = torch.from_numpy(np.stack([b[2] for b in items]))
        out = net(x)
        lh = focal_loss(out[:, 0], heat)
        mask = sm[:, 3:4]
        # size and sub-cell offset only where a die's centre falls (L1, as CenterNet)
        lr_ = (torch.abs(out[:, 1:4] - sm[:, 0:3]) * mask).sum(dim=(0, 2, 3)) / mask.sum().clamp(min=1)
        ls, lo = lr_[0], lr_[1] + lr_[2]
        loss = lh + ls + lo
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % 100 == 0:
            print(
                f"{step}/{steps} heat {lh.item():.3f} size {ls.item():.3f} offset {lo.item():.3f} "
                f"{time.time() - t0:.0f}s",
                flush=True,
            )
    return net.eval()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA)
    # no default: a run writes beside its log, and replaces a shipped network only when copied over it
    ap.add_argument("--out", type=Path, required=True, help="the folder the trained network is written to")
    ap.add_argument("--holdout", type=int, default=0, help="keep every Nth photograph apart (0: use all)")
    ap.add_argument("--steps", type=int, default=2500)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=4e-3, help="peak learning rate")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rendered", type=int, default=240, help="rendered board frames to add")
    ap.add_argument("--cache", type=Path, help="keep the rendered frames in this .npz between runs")
    ap.add_argument(
        "--composites", type=int, default=400, help="frames of real dice pasted on the real boards"
    )
    ap.add_argument(
        "--resume",
        type=Path,
        help="a folder with dice_detect.pt (or .onnx) from an earlier run to go on from",
    )
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    rng = np.random.default_rng(args.seed)
    labels = load_labels(args.data / "real-dice" / "labels.csv")
    names = sorted(labels)
    held = {n for i, n in enumerate(names) if args.holdout and i % args.holdout == 0}
    names = [n for n in names if n not in held]
    samples = []
    for n in names:
        img = cv2.imread(str(args.data / "real-dice" / "images" / n))
        dice = [
            (v, (x0 + x1) / 2, (y0 + y1) / 2, ((x1 - x0) + (y1 - y0)) / 2) for v, x0, y0, x1, y1 in labels[n]
        ]
        samples.append(Sample(img, dice))
    negs = [Sample(cv2.imread(str(args.data / "real-boards" / n)), []) for n in NEGATIVE_BOARDS]
    rendered = load_rendered(args.rendered, args.seed + 1, args.cache)
    args.out.mkdir(parents=True, exist_ok=True)
    start = None
    if args.resume:  # a folder with dice_detect.pt or, failing that, dice_detect.onnx
        start = args.resume / "dice_detect.pt"
        start = start if start.exists() else start.with_suffix(".onnx")
    composites = board_composites(args.data, args.composites, args.seed + 3, held)
    net = train(samples + rendered + negs * 8 + composites, args.steps, rng, args.lr, args.batch, start)
    torch.save(net.state_dict(), args.out / "dice_detect.pt")
    export(net, (1, 3, PATCH, PATCH), args.out / "dice_detect.onnx", free_size=True)


if __name__ == "__main__":
    main()
