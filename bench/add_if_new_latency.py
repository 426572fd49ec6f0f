#!/usr/bin/env python3
"""Step 3 of bench/add_if_new.sh: add-if-new latency, item by item.

  bench/add_if_new_latency.py BINARY DB LIST [EXTRA...]

One `simfind query --db DB --add-if-new -` process; each path of LIST is
written, then its answer row read before the next is written, so that every
item is its own batch (lock, lookup, insert, commit with its sync to disk).
Prints wall ms per item (p50, p99, max), items/s, and the process's CPU
seconds (user + sys, from wait4).
"""
import math
import os
import subprocess
import sys
import time


def pct(values, p):
    values = sorted(values)
    return values[max(1, math.ceil(p * len(values))) - 1]


def main():
    binary, db, listing, *extra = sys.argv[1:]
    items = [line.rstrip("\n") for line in open(listing) if line.strip()]
    proc = subprocess.Popen(
        [binary, "query", "--db", db, "--add-if-new", "-", "-q", *extra],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    proc.stdout.readline()  # the header
    times = []
    start = time.perf_counter()
    for item in items:
        t = time.perf_counter()
        proc.stdin.write(item.encode() + b"\n")
        proc.stdin.flush()
        proc.stdout.readline()
        times.append((time.perf_counter() - t) * 1000)
    wall = time.perf_counter() - start
    proc.stdin.close()
    proc.stdout.read()
    _, _, usage = os.wait4(proc.pid, 0)
    print(
        f"3. one at a time: {len(items)} items, {len(items) / wall:.0f} items/s, "
        f"ms per item p50 {pct(times, 0.5):.2f}, p99 {pct(times, 0.99):.2f}, "
        f"max {max(times):.2f}; {usage.ru_utime + usage.ru_stime:.2f} s CPU in {wall:.2f} s wall"
    )


if __name__ == "__main__":
    main()
