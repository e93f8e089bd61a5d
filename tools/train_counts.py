"""Train the point-count network (``vision/models/point_counts.onnx``) on rendered boards.

Data recipe (nothing downloaded, nothing from ``../shared``): "clubs" as in ``bench.boards``
(``synthetic.random_scenes.club``: every board style of ``synthetic.render`` under a random camera,
calibrated on its rendered starting position
exactly as ``referee calibrate --start`` does), and frames of positions from random games with dice,
light changes, noise, blur, JPEG and, in a quarter of them, hands, arms or cups; ``--tall`` makes plays
build the tallest stack more often, ``--bar`` moves one to four checkers of a side onto the bar in that
share of frames (random games hit too seldom for the bar strips). Each frame is rectified with the
club's own profile and cut into its 26 strips (:func:`vision.point_counts.strips`: 24 points, the bar's
light and dark halves); the label is the number of checkers there, or "covered" where a hand, arm or cup
hides a quarter of a checker slot or more (strips only grazed are left out).
The benchmark's clubs come from seed 7; training uses other seeds.

Augmentation: the three colour channels permuted and scaled (so that no checker or point colour is
special), brightness and contrast, a pixel or two of shift, mirror images.

The shipped model is the earlier points-only model (24 strips a frame; its runs, with the code of that
time, were ``data --clubs 80 --seed 101``, ``--clubs 40 --seed 202 --tall 0.5``, ``--clubs 40 --seed 303
--tall 0.7``, then ``train`` 5000 steps, 4000 at 1.5e-3 and 3000 at 1e-3, each resumed from the last)
trained on with the bar strips. ``--resume`` takes the exported ``.onnx`` (its batch norms folded into
the convolutions, kept fixed while training on). On this 2-core machine shared with other work: data
2, 1 and 2 minutes, training 7 minutes; each data file's last five clubs are held out and their strips
scored every 500 steps: 0.923 of held-out strips right at the start (bar strips 0.06), 0.996 at the end
(bar 0.994)::

    .venv/bin/python tools/train_counts.py data --clubs 60 --frames 30 --seed 111 --tall 0.3 --bar 0.3 \
        -o /tmp/counts_a.npz
    .venv/bin/python tools/train_counts.py data --clubs 30 --frames 30 --seed 222 --tall 0.7 --bar 0.3 \
        -o /tmp/counts_b.npz
    .venv/bin/python tools/train_counts.py data --clubs 60 --frames 30 --seed 333 --tall 0.15 --bar 0.2 \
        -o /tmp/counts_c.npz
    /tmp/trainenv/bin/python tools/train_counts.py train /tmp/counts_a.npz /tmp/counts_b.npz \
        /tmp/counts_c.npz --steps 5000 --lr 1.5e-3 --seed 5 --resume vision/models/point_counts.onnx \
        -o /tmp/m1
    cp /tmp/m1/point_counts.onnx vision/models/

(torch is needed for ``train`` only, never at run time.)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.point_counts import CLASSES, COVERED, NET_H, NET_W, POINTS, normalise, strips  # noqa: E402

if TYPE_CHECKING:
    from bgboard.layout import Board


def onto_bar(board: Board, rng: np.random.Generator) -> Board:
    """The board with one to four checkers of one side taken off random points onto the bar (hits are
    rarer in random games than a bar strip needs)."""
    from bgboard.layout import Board

    sides = [list(board.light), list(board.dark)]
    side = sides[int(rng.integers(2))]
    for _ in range(int(rng.integers(1, 5))):
        held = [i for i in range(24) if side[i] > 0]
        if not held:
            break
        i = held[int(rng.integers(len(held)))]
        side[i] -= 1
        side[24] += 1
    return Board(tuple(sides[0]), tuple(sides[1]))


def make_data(clubs: int, frames: int, seed: int, out: Path, tall: float, bar: float) -> None:
    from bgboard.layout import CELLS
    from calibration.learn import calibrate
    from synthetic.random_play import random_boards
    from synthetic.random_scenes import club, club_frame
    from synthetic.render import STYLES
    from vision.rectify import Rectifier

    rng = np.random.default_rng(seed)
    boards = (onto_bar(b, rng) if rng.random() < bar else b for b in random_boards(10**9, rng, tall))
    xs, ys, groups = [], [], []
    t0 = time.time()
    styles = list(STYLES)
    for c in range(clubs):
        board = club(styles[c % len(styles)], rng)
        p = calibrate(board.start.image, board.corners, start=True)
        rect = Rectifier(p.corners, p.geometry.width, p.geometry.height, p.margin)
        for f in range(frames):
            frame = club_frame(board, next(boards), rng, occlude=f % 4 == 3)
            assert frame.layout is not None
            s = strips(rect.warp(frame.image), p.geometry, p.margin)
            lay = frame.layout
            counts = [abs(v) for v in (*lay.top, *lay.bottom)] + [lay.bar_light, lay.bar_dark]
            # a covered point is a class of its own; a grazed one may go either way and is left out
            label = [
                COVERED if name in frame.occluded else -1 if name in frame.partly_occluded else counts[k]
                for k, name in enumerate(CELLS)  # the strips' order
            ]
            # one frame's strips are normalised together at run time, so they are kept together
            xs.append(s)
            ys.append(np.array(label, np.int64))
            groups.append(c)
        print(f"club {c + 1}/{clubs} ({board.style}) {time.time() - t0:.0f} s", flush=True)
    np.savez_compressed(out, x=np.stack(xs), y=np.stack(ys), club=np.array(groups))


def build_net():
    """The strip network (torch): about 1.8 M multiply-adds a strip, all 26 strips of a frame in a few
    milliseconds on a Pi 5."""
    from torch import nn

    def conv(cin: int, cout: int) -> nn.Sequential:
        return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())

    return nn.Sequential(
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

    net = build_net()
    # a model resumed from its ONNX file has its batch norms folded into the convolutions: they stay
    # fixed (identity statistics) while it trains on
    frozen_norms = resume is not None and resume.suffix == ".onnx"
    if frozen_norms:
        net.load_state_dict(state_from_onnx(resume, net.state_dict()))
    elif resume is not None:
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
        if frozen_norms:
            for m in net.modules():
                if isinstance(m, nn.BatchNorm2d):
                    m.eval()
        loss = nn.functional.cross_entropy(net(bx), by, label_smoothing=0.02)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % 500 == 0 or step == steps - 1:
            acc, bar_acc = evaluate(net, x[held], y[held])
            print(
                f"step {step} loss {loss.item():.3f} held-out strips right {acc:.4f} "
                f"(bar {bar_acc:.4f}) {time.time() - t0:.0f} s",
                flush=True,
            )
            export(net, out)  # a usable model at every report, for a run cut short


def export(net, out: Path) -> None:
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


def evaluate(net, x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Shares of strips counted right: all of them, and the bar's alone."""
    import torch

    net.eval()
    right = np.zeros(x.shape[1])
    total = np.zeros(x.shape[1])
    with torch.no_grad():
        for frame_x, frame_y in zip(x, y, strict=True):
            pred = net(torch.from_numpy(normalise(frame_x))).argmax(1).numpy()
            ok = frame_y >= 0
            right += (pred == frame_y) & ok
            total += ok
    return right.sum() / max(total.sum(), 1), right[POINTS:].sum() / max(total[POINTS:].sum(), 1)


def state_from_onnx(path: Path, like: dict) -> dict:
    """A state dict for the network from its exported ONNX file (``torch.onnx.export`` folds each batch
    norm into the convolution before it): the convolutions take the folded weights, the norms become
    identities carrying the folded biases. Read with a few lines of protobuf, so no ``onnx`` package."""
    import torch

    weights = [v for _, v in sorted(_onnx_initializers(path).items(), key=lambda kv: _order(kv[0]))]
    state = {k: v.clone() for k, v in like.items()}
    convs = [k for k, v in like.items() if k.endswith(".weight") and v.ndim == 4]
    linears = [k for k, v in like.items() if k.endswith(".weight") and v.ndim == 2]
    it = iter(weights)
    for conv in convs:
        w, b = next(it), next(it)
        norm = conv.replace(".0.weight", ".1.")
        state[conv] = torch.from_numpy(w.copy())
        state[norm + "weight"] = torch.ones_like(like[norm + "weight"])
        state[norm + "bias"] = torch.from_numpy(b.copy())
        state[norm + "running_mean"] = torch.zeros_like(like[norm + "running_mean"])
        # var + eps == 1: the norm passes its input through unscaled
        state[norm + "running_var"] = torch.full_like(like[norm + "running_var"], 1 - 1e-5)
    for lin in linears:
        state[lin] = torch.from_numpy(next(it).copy())
        state[lin.replace("weight", "bias")] = torch.from_numpy(next(it).copy())
    return state


def _order(name: str) -> tuple[int, int, str]:
    """Initializers in network order: the folded convolutions (``onnx::Conv_<n>``) come first, by n,
    then the linear layers (``<index>.weight``/``.bias``)."""
    if name.startswith("onnx::Conv_"):
        return (0, int(name.rsplit("_", 1)[1]), "")
    index, kind = name.split(".")
    return (1, int(index), "0" if kind == "weight" else "1")


def _onnx_initializers(path: Path) -> dict[str, np.ndarray]:
    """Float tensors stored in an ONNX model's graph (ModelProto.graph = 7, GraphProto.initializer = 5,
    TensorProto dims = 1, name = 8, raw_data = 9)."""
    out = {}
    for field, graph in _fields(path.read_bytes()):
        if field != 7:
            continue
        for gfield, tensor in _fields(graph):
            if gfield != 5:
                continue
            dims, name, raw = [], "", b""
            for tfield, value in _fields(tensor):
                if tfield == 1:
                    dims += [value] if isinstance(value, int) else _packed(value)
                elif tfield == 8:
                    name = value.decode()
                elif tfield == 9:
                    raw = value
            out[name] = np.frombuffer(raw, np.float32).reshape(dims)
    return out


def _varint(b: bytes, i: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        c = b[i]
        i += 1
        value |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return value, i


def _packed(b: bytes) -> list[int]:
    out, i = [], 0
    while i < len(b):
        v, i = _varint(b, i)
        out.append(v)
    return out


def _fields(b: bytes):
    """(field number, int or bytes) of one protobuf message."""
    i = 0
    while i < len(b):
        key, i = _varint(b, i)
        kind = key & 7
        if kind == 0:
            value, i = _varint(b, i)
        elif kind == 2:
            n, i = _varint(b, i)
            value, i = b[i : i + n], i + n
        else:  # fixed 64 / 32 bit
            size = 8 if kind == 1 else 4
            value, i = b[i : i + size], i + size
        yield key >> 3, value


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("data", help="render and cut the training strips")
    a.add_argument("--clubs", type=int, default=60)
    a.add_argument("--frames", type=int, default=30)
    a.add_argument("--seed", type=int, default=101)
    a.add_argument("--tall", type=float, default=0.15, help="share of plays that build the tallest stack")
    a.add_argument("--bar", type=float, default=0.0, help="share of boards given extra checkers on the bar")
    a.add_argument("-o", "--out", type=Path, required=True)
    t = sub.add_parser("train", help="train and export the network")
    t.add_argument("data", type=Path, nargs="+")
    t.add_argument("--resume", type=Path, help="start from this point_counts.pt or .onnx")
    t.add_argument("--steps", type=int, default=6000)
    t.add_argument("--seed", type=int, default=1)
    t.add_argument("--lr", type=float, default=3e-3)
    t.add_argument("-o", "--out", type=Path, required=True)
    args = ap.parse_args()
    if args.cmd == "data":
        make_data(args.clubs, args.frames, args.seed, args.out, args.tall, args.bar)
    else:
        train(args.data, args.steps, args.out, args.seed, args.lr, args.resume)


if __name__ == "__main__":
    main()
