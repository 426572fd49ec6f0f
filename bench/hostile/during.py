#!/usr/bin/env python3
"""during.py PATH ACTION CMD...: runs CMD and, once it holds PATH open (a
descriptor or a mapping of PATH, or of a file under PATH if it is a
directory), runs the shell command ACTION with $PID set to CMD's process id;
exits with CMD's exit code, 128+N if signal N ended it, or 99 if CMD ended
before it held PATH (the window was missed: the caller may retry)."""
import os, signal, subprocess, sys, time

path, action, cmd = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3:]


def defaults():
    # A background job of a non-interactive shell ignores SIGINT and
    # SIGQUIT; the command under test gets the default dispositions.
    for s in (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1):
        signal.signal(s, signal.SIG_DFL)


child = subprocess.Popen(cmd, start_new_session=True, preexec_fn=defaults)


def holds(pid):
    links = []
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                links.append(os.readlink(f"/proc/{pid}/fd/{fd}"))
            except OSError:
                pass
        with open(f"/proc/{pid}/maps") as maps:
            links += [line.split(None, 5)[-1].strip() for line in maps if "/" in line]
    except OSError:
        return False
    return any(l == path or l.startswith(path + "/") for l in links)


while child.poll() is None and not holds(child.pid):
    time.sleep(0.002)
if child.poll() is not None:
    sys.exit(99)
subprocess.run(["sh", "-c", action], env=dict(os.environ, PID=str(child.pid)))
code = child.wait()
sys.exit(128 - code if code < 0 else code)
