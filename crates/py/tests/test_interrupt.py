"""Ctrl-C stops a long `dedupe` or `minhash` promptly, with KeyboardInterrupt."""

import signal
import subprocess
import sys
import time

import pytest

# A dedupe (or minhash) that takes many seconds on one thread: many bands (a
# long signature each) over texts from a small vocabulary (many candidates).
LONG = r"""
import random, sys
import simfind

rng = random.Random(1)
words = [f"w{i}" for i in range(5000)]
texts = [" ".join(rng.choices(words, k=150)) for _ in range(20000)]
print("started", flush=True)
try:
    simfind.CALL(texts, threshold=0.1, bands=200, rows=5, threads=1)
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(3)
print("finished", flush=True)
"""


@pytest.mark.parametrize("call", ["dedupe", "minhash"])
def test_keyboard_interrupt_stops_the_call_promptly(call):
    # A shell starts a background job with SIGINT ignored, and Python then
    # installs no KeyboardInterrupt handler: a test run as `cmd &` would send
    # a signal the child never sees. The test is about a signal that arrives.
    child = subprocess.Popen(
        [sys.executable, "-c", LONG.replace("CALL", call)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        assert child.stdout.readline() == "started\n"
        time.sleep(1)
        assert child.poll() is None, f"{call} ended before the interrupt: make it longer"
        child.send_signal(signal.SIGINT)
        sent = time.monotonic()
        out, err = child.communicate(timeout=30)
        waited = time.monotonic() - sent
    finally:
        child.kill()
    assert out == "interrupted\n", (out, err)
    assert child.returncode == 3, err
    # The work checks between records; a few seconds leaves room for a
    # loaded machine.
    assert waited < 5, f"it took {waited:.1f} s to stop"


# A simfind.datasketch bulk as one native call (the Python generator would
# otherwise give Python a chance between its chunks): tens of seconds.
LONG_BULK = r"""
import sys
import simfind.datasketch as sd

sd.MinHash._CHUNK = 10**9
sets = [[b"%d %d" % (i, j) for j in range(100)] for i in range(10000)]
sets = sets * 200  # the same lists again: 200 M tokens, little memory
print("started", flush=True)
try:
    sd.MinHash.bulk(sets, num_perm=256, scheme="legacy")
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(3)
print("finished", flush=True)
"""


def test_keyboard_interrupt_stops_a_datasketch_bulk_promptly():
    child = subprocess.Popen(
        [sys.executable, "-c", LONG_BULK],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        assert child.stdout.readline() == "started\n"
        time.sleep(1)
        assert child.poll() is None, "the bulk ended before the interrupt: make it longer"
        child.send_signal(signal.SIGINT)
        sent = time.monotonic()
        out, err = child.communicate(timeout=60)
        waited = time.monotonic() - sent
    finally:
        child.kill()
    assert out == "interrupted\n", (out, err)
    assert child.returncode == 3, err
    # It checks between groups of about 65536 tokens (milliseconds).
    assert waited < 5, f"it took {waited:.1f} s to stop"
