#!/usr/bin/env python3
"""paused.py ACTION CMD...: runs CMD (a `simfind dedupe … --pause-at N`),
waits until it says it paused before action N, runs the shell command
ACTION with $PID set to CMD's process id, then lets CMD go on (if ACTION
left it alive); CMD's stderr is passed through. Exits with CMD's exit code,
128+N if signal N ended it, or 98 if CMD ended without pausing (a broken
--pause-at, which the case reports as such, never a missed race)."""
import os, signal, subprocess, sys

action, cmd = sys.argv[1], sys.argv[2:]


def defaults():
    for s in (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)


child = subprocess.Popen(cmd, stdin=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=defaults)
paused = False
for line in child.stderr:
    sys.stderr.buffer.write(line)
    if b"paused before action" in line:
        paused = True
        break
if paused:
    subprocess.run(["sh", "-c", action], env=dict(os.environ, PID=str(child.pid)))
    try:
        child.stdin.write(b"\n")
        child.stdin.close()
    except BrokenPipeError:
        pass
sys.stderr.buffer.write(child.stderr.read())
code = child.wait()
if not paused:
    print("paused.py: the command never paused", file=sys.stderr)
    sys.exit(98)
sys.exit(128 - code if code < 0 else code)
