#!/usr/bin/env python3
"""200-file rounds in turns, wall and CPU: `transfer-rounds.py LIST CURL_CONFIG N BENCH...`.

Runs curl (`curl -Z --parallel-max 8 -K CURL_CONFIG`, the benchmark's curl row) and each BENCH's
`transfer-child --list LIST -j 8` N times, in turns (the order turning every round), each into a fresh folder
that is made and removed outside the timing, and prints for each the median wall time, its first quartile, the
median CPU time (user + system of the process, from wait4) and the wall ratio to curl. LIST and CURL_CONFIG name
the same files on a server already running (the nginx of transfer-bench.sh's configuration is what
docs/bench-transfer.md measured); CURL_CONFIG holds a `url` and an `output` line per file.
"""
import os
import shutil
import statistics
import sys
import tempfile
import time


def main() -> int:
    if len(sys.argv) < 5:
        print(__doc__.splitlines()[0])
        return 64
    url_list, curl_config, binaries = sys.argv[1], sys.argv[2], sys.argv[4:]
    rounds = int(sys.argv[3]) if sys.argv[3].isdigit() else 0
    if not 2 <= rounds <= 10_000 or not os.path.isfile(url_list) or not os.path.isfile(curl_config):
        print("error: N is a count of rounds from 2 to 10000 (quartiles need two), LIST and CURL_CONFIG files")
        return 64
    if missing := [b for b in binaries if not os.access(b, os.X_OK)]:
        print(f"error: not an executable: {missing[0]}")
        return 64
    clients = ["curl"] + binaries
    walls: dict[str, list[float]] = {c: [] for c in clients}
    cpus: dict[str, list[float]] = {c: [] for c in clients}
    work = tempfile.mkdtemp(prefix="transfer-rounds-")
    try:
        for n in range(rounds):
            for k, client in enumerate(clients if n % 2 == 0 else clients[::-1]):
                folder = os.path.join(work, f"r{n}-{k}")
                os.mkdir(folder)
                if client == "curl":
                    argv = ["curl", "-sS", "-f", "-Z", "--parallel-max", "8", "--output-dir", folder, "-K",
                            curl_config]
                else:
                    argv = [client, "transfer-child", "--list", url_list, "--dir", folder, "-j", "8"]
                wall, cpu = timed(argv)
                walls[client].append(wall)
                cpus[client].append(cpu)
                shutil.rmtree(folder)
                for leftover in (folder + ".ledger", folder + ".ledger.lock", folder + ".ledger-activity"):
                    if os.path.exists(leftover):
                        os.remove(leftover)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    floor = statistics.median(walls["curl"])
    for client in clients:
        wall = statistics.median(walls[client])
        print(f"{client}: wall median {wall:.1f} ms (q1 {statistics.quantiles(walls[client], n=4)[0]:.1f}),"
              f" CPU median {statistics.median(cpus[client]):.1f} ms, wall / curl {wall / floor:.3f}")
    return 0


def timed(argv: list[str]) -> tuple[float, float]:
    """Wall and CPU ms of `argv`, its output discarded; raises when it fails."""
    started = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        try:
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    _, status, usage = os.wait4(pid, 0)
    wall = (time.perf_counter() - started) * 1000
    if status != 0:
        raise SystemExit(f"error: {' '.join(argv)} exited with {os.waitstatus_to_exitcode(status)}")
    return wall, (usage.ru_utime + usage.ru_stime) * 1000


if __name__ == "__main__":
    sys.exit(main())
