"""Train the point-count network (``vision/models/point_counts.onnx``) on rendered boards.

Data recipe (nothing downloaded, nothing from ``../shared``): "clubs" as in ``bench.boards`` (every
board style of ``vision.render`` under a random camera, calibrated on its rendered starting position
exactly as ``referee calibrate --start`` does), and frames of positions from random games with dice,
light changes, noise, blur, JPEG and, in a quarter of them, hands, arms or cups. Each frame is
rectified with the club's own profile and cut into its 24 point strips (:func:`vision.point_counts.strips`);
the label is the number of checkers on the point, or "covered" where a hand, arm or cup hides a quarter
of a checker slot or more (strips only grazed are left out).
The benchmark's clubs come from seed 7; training uses other seeds.

Augmentation: the three colour channels permuted and scaled (so that no checker or point colour is
special), brightness and contrast, a pixel or two of shift, mirror images.

The shipped model came from these runs (on this 2-core machine shared with other work: data 11, 2 and
4 minutes, training 12, 10 and 9 minutes; each data file's last five clubs are held out and their strips
scored every 500 steps: 0.993, then 0.995, then 0.995 of held-out strips right)::

    .venv/bin/python tools/train_counts.py data --clubs 80 --frames 30 --seed 101 -o /tmp/counts3.npz
    .venv/bin/python tools/train_counts.py data --clubs 40 --frames 30 --seed 202 --tall 0.5 \
        -o /tmp/counts_tall.npz
    .venv/bin/python tools/train_counts.py data --clubs 40 --frames 30 --seed 303 --tall 0.7 \
        -o /tmp/counts_tall2.npz
    /tmp/trainenv/bin/python tools/train_counts.py train /tmp/counts3.npz --steps 5000 -o /tmp/m3
    /tmp/trainenv/bin/python tools/train_counts.py train /tmp/counts3.npz /tmp/counts_tall.npz \
        --steps 4000 --lr 1.5e-3 --resume /tmp/m3/point_counts.pt -o /tmp/m4
    /tmp/trainenv/bin/python tools/train_counts.py train /tmp/counts3.npz /tmp/counts_tall.npz \
        /tmp/counts_tall2.npz --steps 3000 --lr 1e-3 --resume /tmp/m4/point_counts.pt -o /tmp/m5
    cp /tmp/m5/point_counts.onnx vision/models/

(torch is needed for ``train`` only, never at run time.)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.point_counts import CLASSES, COVERED, NET_H, NET_W, normalise, strips  # noqa: E402


def make_data(clubs: int, frames: int, seed: int, out: Path, tall: float) -> None:
    from bench.boards import frame_for, make_club, random_boards
    from vision.rectify import Rectifier
    from vision.render import STYLES

    rng = np.random.default_rng(seed)
    boards = random_boards(10**9, rng, tall)
    xs, ys, groups = [], [], []
    t0 = time.time()
    styles = list(STYLES)
    for c in range(clubs):
        club = make_club(styles[c % len(styles)], rng)
        p = club.profile
        rect = Rectifier(p.corners, p.geometry.width, p.geometry.height, p.margin)
        for f in range(frames):
            frame = frame_for(club, next(boards), rng, occlude=f % 4 == 3)
            assert frame.layout is not None
            s = strips(rect.warp(frame.image), p.geometry, p.margin)
            counts = [abs(v) for v in (*frame.layout.top, *frame.layout.bottom)]
            names = [f"{r}-{i}" for r in ("top", "bottom") for i in range(12)]
            # a covered point is a class of its own; a grazed one may go either way and is left out
            label = [
                COVERED if name in frame.occluded else -1 if name in frame.partly_occluded else counts[k]
                for k, name in enumerate(names)
            ]
            # one frame's strips are normalised together at run time, so they are kept together
            xs.append(s)
            ys.append(np.array(label, np.int64))
            groups.append(c)
        print(f"club {c + 1}/{clubs} ({club.style}) {time.time() - t0:.0f} s", flush=True)
    np.savez_compressed(out, x=np.stack(xs), y=np.stack(ys), club=np.array(groups))


def train(data: list[Path], steps: int, out: Path, seed: int, lr: float, resume: Path | None) -> None:
    import torch
    from torch import nn

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    xs, ys, helds = [], [], []
    for path in data:
        d = np.load(path)
        xs.append(d["x"])
        ys.append(d["y"])
        # each file's last few clubs are kept apart to see how the network does on cameras it never saw
        helds.append(d["club"] >= d["club"].max() - 4)
    x, y, held = np.concatenate(xs), np.concatenate(ys), np.concatenate(helds)
    print(f"frames {len(x)}, training {int((~held).sum())}, held out {int(held.sum())}")

    def conv(cin: int, cout: int) -> nn.Sequential:
        return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())

    # about 1.8 M multiply-adds a strip: all 24 points of a frame in a few milliseconds on a Pi 5
    net = nn.Sequential(
        conv(3, 12),  # 56 x 16
        nn.MaxPool2d(2),
        conv(12, 24),  # 28 x 8
        nn.MaxPool2d(2),
        conv(24, 32),  # 14 x 4
        conv(32, 32),
        nn.AvgPool2d((1, 4)),  # 14 x 1: the count lies along the point
        nn.Flatten(),
        nn.Linear(32 * 14, 64),
        nn.ReLU(),
        nn.Dropout(0.1),
        nn.Linear(64, CLASSES),
    )
    if resume is not None:
        net.load_state_dict(torch.load(resume))
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps)
    train_idx = np.nonzero(~held)[0]

    def augment(frame: np.ndarray) -> np.ndarray:
        f = frame[..., rng.permutation(3)].astype(np.float32)
        f *= rng.uniform(0.75, 1.25, size=3)
        f = (f - 128) * rng.uniform(0.8, 1.2) + 128 + rng.uniform(-25, 25)
        if rng.random() < 0.5:
            f = f[:, :, ::-1]
        dx, dy = rng.integers(-2, 3, size=2)
        f = np.roll(f, (int(dy), int(dx)), axis=(1, 2))
        return np.clip(f, 0, 255).astype(np.uint8)

    t0 = time.time()
    for step in range(steps):
        batch_x, batch_y = [], []
        for i in rng.choice(train_idx, size=6):
            frame_x = normalise(augment(x[i]))
            ok = y[i] >= 0
            batch_x.append(frame_x[ok])
            batch_y.append(y[i][ok])
        bx = torch.from_numpy(np.concatenate(batch_x))
        by = torch.from_numpy(np.concatenate(batch_y))
        net.train()
        loss = nn.functional.cross_entropy(net(bx), by, label_smoothing=0.02)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % 500 == 0 or step == steps - 1:
            acc = evaluate(net, x[held], y[held])
            print(
                f"step {step} loss {loss.item():.3f} held-out strips right {acc:.4f} {time.time() - t0:.0f} s"
            )
            export(net, out)  # a usable model at every report, for a run cut short


def export(net, out: Path) -> None:  # type: ignore[no-untyped-def]
    import torch

    net.eval()
    out.mkdir(parents=True, exist_ok=True)
    torch.save(net.state_dict(), out / "point_counts.pt")
    torch.onnx.export(
        net,
        torch.zeros(1, 3, NET_H, NET_W),
        str(out / "point_counts.onnx"),
        input_names=["strip"],
        output_names=["logits"],
        dynamic_axes={"strip": {0: "n"}, "logits": {0: "n"}},
        opset_version=13,
        dynamo=False,
    )


def evaluate(net, x: np.ndarray, y: np.ndarray) -> float:  # type: ignore[no-untyped-def]
    import torch

    net.eval()
    right = total = 0
    with torch.no_grad():
        for frame_x, frame_y in zip(x, y, strict=True):
            pred = net(torch.from_numpy(normalise(frame_x))).argmax(1).numpy()
            ok = frame_y >= 0
            right += int((pred[ok] == frame_y[ok]).sum())
            total += int(ok.sum())
    return right / max(total, 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("data", help="render and cut the training strips")
    a.add_argument("--clubs", type=int, default=60)
    a.add_argument("--frames", type=int, default=30)
    a.add_argument("--seed", type=int, default=101)
    a.add_argument("--tall", type=float, default=0.15, help="share of plays that build the tallest stack")
    a.add_argument("-o", "--out", type=Path, required=True)
    t = sub.add_parser("train", help="train and export the network")
    t.add_argument("data", type=Path, nargs="+")
    t.add_argument("--resume", type=Path, help="start from this point_counts.pt")
    t.add_argument("--steps", type=int, default=6000)
    t.add_argument("--seed", type=int, default=1)
    t.add_argument("--lr", type=float, default=3e-3)
    t.add_argument("-o", "--out", type=Path, required=True)
    args = ap.parse_args()
    if args.cmd == "data":
        make_data(args.clubs, args.frames, args.seed, args.out, args.tall)
    else:
        train(args.data, args.steps, args.out, args.seed, args.lr, args.resume)


if __name__ == "__main__":
    main()
