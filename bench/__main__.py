"""`make bench`: every benchmark in turn, each printing its own figures.

`python -m bench` runs them all with their default sizes; `python -m bench rules dice` runs some.
Each is also a module of its own (`python -m bench.rules --help`).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import time

ALL = [
    "rules",
    "notation",
    "game",
    "render",
    "boards",
    "dice",
    "dice_unlike",
    "dice_size",
    "semireal",
    "console",
    "e2e",
    "teach",
    "soak",
]


def main(names: list[str]) -> int:
    failed = []
    for name in names or ALL:
        if importlib.util.find_spec(f"bench.{name}") is None:
            print(f"== bench.{name}: not present, skipped")
            continue
        print(f"== bench.{name}", flush=True)
        t0 = time.perf_counter()
        # a process each, so one benchmark's caches and threads do not colour the next one's timings
        rc = subprocess.call([sys.executable, "-m", f"bench.{name}"])
        print(f"== bench.{name}: exit {rc} after {time.perf_counter() - t0:.0f} s", flush=True)
        if rc:
            failed.append(name)
    if failed:
        print(f"benchmarks that missed a target or failed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
