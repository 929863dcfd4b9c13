#!/usr/bin/env python3
"""Two commands timed in turns: `interleaved.py N CMD_A CMD_B [PREP_A PREP_B]`.

Runs each command N times through the shell, A and B alternating and the order turning every round (so neither
always runs right after the other), an optional preparation command before each run (not timed). Prints the median,
quartiles and minimum wall time of each, and the ratios B/A. Used for the before/after figures of docs/store.md
(issue 24): release builds of two commits, side by side, on a machine whose load swings.
"""
import statistics
import subprocess
import sys
import time


def main() -> int:
    if len(sys.argv) not in (4, 6):
        print(__doc__.splitlines()[0])
        return 64
    rounds = int(sys.argv[1])
    commands = sys.argv[2:4]
    preparations = sys.argv[4:6] if len(sys.argv) == 6 else [None, None]
    walls: list[list[float]] = [[], []]
    for n in range(rounds):
        for k in ((0, 1) if n % 2 == 0 else (1, 0)):
            if preparations[k]:
                subprocess.run(preparations[k], shell=True, check=True)
            start = time.perf_counter()
            done = subprocess.run(commands[k], shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            walls[k].append((time.perf_counter() - start) * 1000)
            if done.returncode != 0:
                print(f"failed ({done.returncode}): {commands[k]}")
                return 1
    for k in (0, 1):
        q = statistics.quantiles(walls[k], n=4)
        print(f"{'AB'[k]}: median {statistics.median(walls[k]):.1f} ms (q1 {q[0]:.1f}, q3 {q[2]:.1f},"
              f" min {min(walls[k]):.1f})  {commands[k]}")
    medians = statistics.median(walls[1]) / statistics.median(walls[0])
    print(f"B/A: medians {medians:.2f}, minimums {min(walls[1]) / min(walls[0]):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
