#!/usr/bin/env python3
"""CPU time of builds of dledger, in turns: `interleaved-cpu.py N DIR_A,DIR_B ARGS...`.

Runs `DIR/dledger ARGS...` N times for each directory, alternating (the order turning every round), and prints the
median CPU time (user + system, from wait4) of each. For before/after figures on a machine whose load swings
(docs/benchmarks.md, issue 24): CPU time moves less with the load than wall time does.
"""
import os
import statistics
import sys


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__.splitlines()[0])
        return 64
    rounds = int(sys.argv[1])
    builds = sys.argv[2].split(",")
    args = sys.argv[3:]
    cpu: dict[str, list[float]] = {b: [] for b in builds}
    for n in range(rounds):
        for build in builds if n % 2 == 0 else builds[::-1]:
            program = os.path.join(build, "dledger")
            pid = os.fork()
            if pid == 0:
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, 1)
                os.dup2(null, 2)
                os.execv(program, [program] + args)
            _, status, usage = os.wait4(pid, 0)
            if status != 0:
                print(f"failed ({status}): {program} {' '.join(args)}")
                return 1
            cpu[build].append((usage.ru_utime + usage.ru_stime) * 1000)
    print(" ".join(args), " ".join(f"{b}: {statistics.median(cpu[b]):.1f} ms" for b in builds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
