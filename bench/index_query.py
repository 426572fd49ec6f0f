#!/usr/bin/env python3
"""Step 5 of bench/index.sh: `simfind query` latency, one process per query.

  bench/index_query.py DB QUERIES_LIST MODE BINARY [BASELINE]

Each document of QUERIES_LIST (one path a line) is queried 3 times in a row
with `--verify MODE` (the first runs warm the cache; the last counts), by
BINARY and, if given, BASELINE alternately, query by query, so that both see
the same load. Prints, per binary, wall ms per process (p50, p99, max) and CPU
ms per process (user + sys from wait4, which the load does not inflate: p50,
p99, mean), and whether both binaries wrote byte-identical output for every
query.
"""
import math
import os
import subprocess
import sys
import time


def pct(values, p):
    values = sorted(values)
    return values[max(1, math.ceil(p * len(values))) - 1]


def run(binary, query, db, mode):
    """(wall ms, CPU ms, stdout) of one `simfind query` process."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [binary, "query", query, "--db", db, "--verify", mode, "-q"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    out = proc.stdout.read()
    _, _, usage = os.wait4(proc.pid, 0)
    wall = (time.perf_counter() - start) * 1000
    return wall, (usage.ru_utime + usage.ru_stime) * 1000, out


def main():
    db, listing, mode, *binaries = sys.argv[1:]
    queries = [line.rstrip("\n") for line in open(listing) if line.strip()]
    times = {b: [] for b in binaries}
    differ = []
    for q in queries:
        outs = []
        for b in binaries:
            for _ in range(3):
                wall, cpu, out = run(b, q, db, mode)
            times[b].append((wall, cpu))
            outs.append(out)
        if len(set(outs)) > 1:
            differ.append(q)
    for b in binaries:
        wall = [w for w, _ in times[b]]
        cpu = [c for _, c in times[b]]
        print(
            f"5. query ({mode} verification) {b}, {len(queries)} documents, ms per process: "
            f"wall median {pct(wall, 0.5):.1f}, p99 {pct(wall, 0.99):.1f}, max {max(wall):.1f}; "
            f"CPU (user + sys) median {pct(cpu, 0.5):.2f}, p99 {pct(cpu, 0.99):.2f}, "
            f"mean {sum(cpu) / len(cpu):.2f}"
        )
    if len(binaries) > 1:
        same = len(queries) - len(differ)
        print(f"   outputs byte-identical between the binaries: {same} of {len(queries)} queries")
        for q in differ[:10]:
            print(f"   DIFFERS: {q}")


if __name__ == "__main__":
    main()
