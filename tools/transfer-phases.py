#!/usr/bin/env python3
"""Where a transfer-child run spends its start and its end: `transfer-phases.py LIST N BENCH...`.

Runs `BENCH transfer-child --list LIST --dir DIR -j 8` N times for each BENCH (builds in turns, the order turning
every round; a fresh folder each), each against a stamp of the
wall clock taken just before it starts, and reads the commit times the run's ledger recorded: when the ledger was
created, when the first facts were committed, when the last were, and how long the process took to exit after its
last commit (the tail: the last fold of the log, the switch to rollback-journal mode, the exit). Prints medians,
minimums and maximums in ms. LIST holds URLs of a server already running (the nginx of transfer-bench.sh's
configuration serving 200 files of 1 MiB is what docs/bench-transfer.md measured). Commit times are whole ms.
"""
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time


def main() -> int:
    if len(sys.argv) < 4:
        print(__doc__.splitlines()[0])
        return 64
    url_list, binaries = sys.argv[1], sys.argv[3:]
    rounds = int(sys.argv[2]) if sys.argv[2].isdigit() else 0
    if not 1 <= rounds <= 10_000 or not os.path.isfile(url_list):
        print("error: N is a count of rounds from 1 to 10000, and LIST a file of URLs")
        return 64
    if missing := [b for b in binaries if not os.access(b, os.X_OK)]:
        print(f"error: not an executable: {missing[0]}")
        return 64
    work = tempfile.mkdtemp(prefix="transfer-phases-")
    names = ["created", "first facts", "last facts", "exit", "tail (exit - last facts)"]
    rows: dict[str, list[list[float]]] = {b: [] for b in binaries}
    try:
        for n in range(rounds):
            for binary in binaries if n % 2 == 0 else binaries[::-1]:
                run(binary, url_list, os.path.join(work, f"run{n}-{binaries.index(binary)}"), rows[binary])
    except subprocess.CalledProcessError as failed:
        print(f"error: {' '.join(failed.cmd)} exited with {failed.returncode}")
        return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for binary in binaries:
        print(binary)
        for k, name in enumerate(names):
            values = [r[k] for r in rows[binary]]
            print(f"  {name:26s} median {statistics.median(values):7.1f}  min {min(values):7.1f}"
                  f"  max {max(values):7.1f}")
    return 0


def run(binary: str, url_list: str, folder: str, rows: list[list[float]]) -> None:
    """One run of `binary` into `folder` (removed after), its figures appended to `rows`."""
    os.mkdir(folder)
    started = time.time() * 1000
    subprocess.run(
        [binary, "transfer-child", "--list", url_list, "--dir", folder, "-j", "8"],
        check=True, stdout=subprocess.DEVNULL)
    ended = time.time() * 1000
    db = sqlite3.connect(f"file:{folder}.ledger?mode=ro", uri=True)
    times = [r[0] for r in db.execute("SELECT time FROM events ORDER BY seq")]
    db.close()
    rows.append([times[0] - started, times[2] - started, times[-1] - started, ended - started,
                 ended - times[-1]])
    shutil.rmtree(folder)


if __name__ == "__main__":
    sys.exit(main())
