#!/usr/bin/env python3
"""Run `simfind scan` and the anchor tools on the same files in one run; print a table.

  bench/compare.py DIR [--truth TRUTH.csv] [--tools rensa,gaoya,datasketch]
                   [--k 5] [--bands 20] [--rows 5] [--threshold 0.8]
                   [--reps 3] [--anchor-reps 1] [--modes classic,oph]
                   [--simfind PATH] [--no-build] [--out DIR] [-- extra simfind args]

DIR is a corpus's `files/` directory (e.g. ../shared/data/debian-docs/files); when
--truth is absent, DIR/../truth_char5.csv is used if it exists.

What is measured, in this order, all in one invocation so ratios compare like with like:
  1. `cat` of every regular file under DIR (sorted, symlinks skipped, via xargs -0),
     once to warm the page cache, then --reps times; the median is the floor.
  2. `simfind scan DIR --k K --bands B --rows R --threshold T` (release build; built
     with `cargo build --release` unless --no-build), once per mode in --modes
     (`oph` adds `--minhash oph`; a mode the binary does not know is skipped), --reps
     times each, median wall time; peak RSS is the max of /usr/bin/time -v's
     "Maximum resident set size". Its CSV paths are printed as walked (DIR's spelling +
     relative path): the DIR prefix is stripped before scoring.
  3. the anchors: ../shared/anchors/bench.sh DIR -t TOOLS -r ANCHOR_REPS -g TRUTH
     -- --k K --bands B --rows R --threshold T  (PYTHON, default
     target/anchors-venv/bin/python, which bench/setup-anchors.sh builds from
     ../shared/anchors/requirements.txt: run first when it is missing).
Precision/recall: ../shared/anchors/score_pairs.py PRED TRUTH --min-sim T.

Columns: tool, wall s (median), MB/s (input bytes / 1e6 / wall), CPU s (user + sys, from
/usr/bin/time -v; on a loaded machine the steadier figure), peak RSS MB, pairs,
precision, recall, speed-up (the tool's wall / simfind's wall, per simfind mode), and
× cat (wall / cat's wall). The 1-minute load average before each measurement is
printed: this is a shared 2-core machine; above ~2 other jobs competed.
"""
import argparse
import csv
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def find_shared():
    env = os.environ.get("SIMFIND_SHARED")
    if env:
        return env
    d = ROOT
    while True:
        parent = os.path.dirname(d)
        if os.path.isdir(os.path.join(parent, "shared", "anchors")):
            return os.path.join(parent, "shared")
        if parent == d:
            sys.exit("compare.py: shared/ not found beside the project (set SIMFIND_SHARED)")
        d = parent


def loadavg():
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


def regular_files(root):
    """Sorted regular files under root, symlinks neither followed nor listed."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in filenames:
            p = os.path.join(dirpath, name)
            if os.path.isfile(p) and not os.path.islink(p):
                out.append(p)
    out.sort()
    return out


def parse_time_v(path):
    d = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("Maximum resident set size"):
                d["rss_kb"] = int(line.split(": ", 1)[1])
            elif line.startswith("User time (seconds)"):
                d["user"] = float(line.split(": ", 1)[1])
            elif line.startswith("System time (seconds)"):
                d["sys"] = float(line.split(": ", 1)[1])
            elif line.startswith("Exit status"):
                d["status"] = int(line.split(": ", 1)[1])
    return d


def timed(cmd, stdout, time_file=None, stdin=None):
    """Wall seconds (perf_counter) of cmd; under /usr/bin/time -v when time_file is set."""
    if time_file:
        cmd = ["/usr/bin/time", "-v", "-o", time_file] + cmd
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=stdout, stdin=stdin, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t0
    return wall, p.returncode, p.stderr.decode(errors="replace")


def score(here_shared, pred, truth, t):
    out = subprocess.run(
        [sys.executable, os.path.join(here_shared, "anchors", "score_pairs.py"), pred, truth,
         "--min-sim", str(t)],
        capture_output=True, text=True, check=True).stdout
    kv = dict(x.split("=", 1) for x in out.split())
    return float(kv["precision"]), float(kv["recall"])


def strip_paths(src, dst, root):
    """simfind's CSV (header, first two columns = paths as walked) → a,b relative to root."""
    prefixes = [root.rstrip("/") + "/", os.path.abspath(root).rstrip("/") + "/"]

    def rel(p):
        for pre in prefixes:
            if p.startswith(pre):
                return p[len(pre):]
        return p

    n = 0
    with open(src, newline="", encoding="utf-8", errors="surrogateescape") as f, \
            open(dst, "w", newline="", encoding="utf-8", errors="surrogateescape") as g:
        rd = csv.reader(f)
        wr = csv.writer(g, lineterminator="\n")
        wr.writerow(["a", "b"])
        next(rd, None)  # header
        for row in rd:
            if len(row) >= 2:
                a, b = sorted((rel(row[0]), rel(row[1])))
                wr.writerow([a, b])
                n += 1
    return n


def parse_anchor_table(path):
    """bench.sh's table.md → {tool: {wall, rss_mb, pairs, precision, recall}}."""
    res = {}
    with open(path) as f:
        lines = [l for l in f if l.startswith("|")]
    hdr = [c.strip() for c in lines[0].strip().strip("|").split("|")]
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        row = dict(zip(hdr, cells))
        tool = row["tool"]
        wall_key = next(k for k in hdr if k.startswith("wall_s"))
        pr_key = next(k for k in hdr if k.startswith("P/R"))
        try:
            wall = float(row[wall_key].split()[0])
        except ValueError:
            res[tool] = {"failed": row[wall_key] if row[wall_key] != "-" else row.get("MB/s", "FAIL")}
            continue
        p, r = (row[pr_key].split("/") + ["nan", "nan"])[:2] if row[pr_key] != "-" else ("nan", "nan")
        res[tool] = {"wall": wall, "rss_mb": float(row["rss_MB"]), "pairs": int(row["pairs"]),
                     "precision": float(p), "recall": float(r), "load": row.get("loadavg", "")}
    return res


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--truth")
    ap.add_argument("--tools", default="rensa,gaoya,datasketch",
                    help="anchor engines for bench.sh -t; empty string for none")
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--bands", type=int, default=20)
    ap.add_argument("--rows", type=int, default=5)
    ap.add_argument("--threshold", type=float, default=0.8)
    ap.add_argument("--reps", type=int, default=3, help="repetitions of cat and simfind (median)")
    ap.add_argument("--anchor-reps", type=int, default=1)
    ap.add_argument("--modes", default="classic,oph")
    ap.add_argument("--simfind", help="binary (default: target/release/simfind, built first)")
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--out", help="keep CSVs and logs here (default: a temporary directory)")
    a = ap.parse_args(argv)

    shared = find_shared()
    tools = [t for t in a.tools.split(",") if t]
    env = dict(os.environ)
    if tools and "PYTHON" not in env:
        # the repo's own anchors venv, built (idempotently) by its script before
        # anything is timed, so a fresh machine needs no venv made by hand
        env["PYTHON"] = subprocess.run(
            ["bash", os.path.join(HERE, "setup-anchors.sh")], env=dict(env, SIMFIND_SHARED=shared),
            check=True, stdout=subprocess.PIPE, text=True).stdout.strip()
    root = a.dir
    if not os.path.isdir(root):
        sys.exit(f"compare.py: no such directory: {root}")
    truth = a.truth
    if truth is None:
        cand = os.path.join(os.path.dirname(os.path.abspath(root.rstrip("/"))), "truth_char5.csv")
        truth = cand if os.path.exists(cand) else None
    out = a.out or tempfile.mkdtemp(prefix="simfind-compare-")
    os.makedirs(out, exist_ok=True)

    simfind = a.simfind or os.path.join(ROOT, "target", "release", "simfind")
    if not a.simfind and not a.no_build:
        print("building release binary ...", file=sys.stderr)
        subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)

    files = regular_files(root)
    nbytes = sum(os.path.getsize(p) for p in files)
    mb = nbytes / 1e6
    listing = os.path.join(out, "files.list0")
    with open(listing, "wb") as f:
        f.write(b"".join(os.fsencode(p) + b"\0" for p in files))
    print(f"# {root}: {len(files)} files, {mb:.1f} MB; k={a.k} bands={a.bands} rows={a.rows} "
          f"t={a.threshold}; reps={a.reps}; nproc={os.cpu_count()}; "
          f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}", file=sys.stderr)

    # 1. cat, hot cache
    def cat_once():
        with open(listing, "rb") as lst, open(os.devnull, "wb") as null:
            w, rc, err = timed(["xargs", "-0", "cat"], null, stdin=lst)
        if rc != 0:
            sys.exit(f"compare.py: cat failed: {err}")
        return w

    cat_once()
    load = loadavg()
    cat_walls = [cat_once() for _ in range(a.reps)]
    cat_wall = statistics.median(cat_walls)
    print(f"cat: {cat_wall:.3f} s (runs {', '.join('%.3f' % w for w in cat_walls)}; load {load})",
          file=sys.stderr)

    # 2. simfind
    help_text = subprocess.run([simfind, "scan", "--help"], capture_output=True, text=True).stdout
    rows = {}
    base = [simfind, "scan", root, "--k", str(a.k), "--bands", str(a.bands), "--rows", str(a.rows),
            "--threshold", str(a.threshold)] + extra
    for mode in [m for m in a.modes.split(",") if m]:
        cmd = list(base)
        if mode != "classic" or "--minhash" in help_text:
            if "--minhash" not in help_text:
                print(f"simfind {mode}: binary has no --minhash; skipped", file=sys.stderr)
                continue
            cmd += ["--minhash", mode]
        walls, rss, loads, cpus = [], [], [], []
        csv_path = os.path.join(out, f"simfind-{mode}.csv")
        for rep in range(a.reps):
            loads.append(loadavg())
            tf = os.path.join(out, f"simfind-{mode}.r{rep}.time")
            with open(csv_path, "wb") as f:
                w, rc, err = timed(cmd, f, time_file=tf)
            if rc not in (0, 1):
                sys.exit(f"compare.py: {' '.join(cmd)} exited {rc}:\n{err}")
            walls.append(w)
            tv = parse_time_v(tf)
            rss.append(tv.get("rss_kb", 0))
            cpus.append(tv.get("user", 0.0) + tv.get("sys", 0.0))
        rel_csv = os.path.join(out, f"simfind-{mode}.rel.csv")
        pairs = strip_paths(csv_path, rel_csv, root)
        p, r = score(shared, rel_csv, truth, a.threshold) if truth else (float("nan"),) * 2
        rows[f"simfind {mode}"] = {"wall": statistics.median(walls), "rss_mb": max(rss) / 1024,
                                   "cpu": statistics.median(cpus),
                                   "pairs": pairs, "precision": p, "recall": r,
                                   "load": ",".join(loads), "runs": walls}
        print(f"simfind {mode}: {statistics.median(walls):.3f} s (runs "
              f"{', '.join('%.3f' % w for w in walls)}; load {','.join(loads)}) "
              f"rss {max(rss) / 1024:.0f} MB pairs {pairs} P/R {p:.4f}/{r:.4f}", file=sys.stderr)

    # 3. anchors
    if tools:
        adir = os.path.join(out, "anchors")
        cmd = ["bash", os.path.join(shared, "anchors", "bench.sh"), root, "-t", ",".join(tools),
               "-r", str(a.anchor_reps), "-o", adir]
        if truth:
            cmd += ["-g", truth, "-m", str(a.threshold)]
        cmd += ["--", "--k", str(a.k), "--bands", str(a.bands), "--rows", str(a.rows),
                "--threshold", str(a.threshold)]
        subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
        anchors = parse_anchor_table(os.path.join(adir, "table.md"))
        for tool, r in anchors.items():
            tf = os.path.join(adir, f"{tool}.r1.time")
            if "failed" not in r and os.path.exists(tf):
                tv = parse_time_v(tf)
                r["cpu"] = tv.get("user", 0.0) + tv.get("sys", 0.0)
        rows.update(anchors)

    # table
    sim_modes = [k for k in rows if k.startswith("simfind ")]
    hdr = ["tool", "wall s", "MB/s", "CPU s", "peak RSS MB", "pairs", "precision", "recall"]
    hdr += [f"{m} speed-up" for m in sim_modes] + ["× cat", "load"]
    lines = ["| " + " | ".join(hdr) + " |", "|" + "---|" * len(hdr)]
    lines.append("| cat | %.3f | %.0f | - | - | - | - | - | %s | 1.00 | %s |" % (
        cat_wall, mb / cat_wall, " | ".join("-" for _ in sim_modes), load))
    for tool, r in rows.items():
        if "failed" in r:
            lines.append(f"| {tool} | {r['failed']} |" + " - |" * (len(hdr) - 2))
            continue
        ups = ["-" if tool == m else "%.1f×" % (r["wall"] / rows[m]["wall"]) for m in sim_modes]
        cpu = "%.2f" % r["cpu"] if "cpu" in r else "-"
        lines.append("| %s | %.3f | %.2f | %s | %.0f | %d | %.4f | %.4f | %s | %.2f | %s |" % (
            tool, r["wall"], mb / r["wall"], cpu, r["rss_mb"], r["pairs"], r["precision"], r["recall"],
            " | ".join(ups), r["wall"] / cat_wall, r.get("load", "")))
    table = "\n".join(lines)
    print(table)
    with open(os.path.join(out, "table.md"), "w") as f:
        f.write(table + "\n")
    print(f"(CSVs, logs and table.md in {out})", file=sys.stderr)
    if not a.out:
        # keep the small table, drop the bulky CSVs of a throwaway run
        for name in os.listdir(out):
            if name.endswith(".csv") or name == "files.list0":
                os.remove(os.path.join(out, name))
        shutil.rmtree(os.path.join(out, "anchors"), ignore_errors=True)


if __name__ == "__main__":
    main()
