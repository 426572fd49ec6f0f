"""The native Python API's speed and memory against datasketch and rensa, and
against the `simfind` command, on the same texts (docs/PERFORMANCE.md, "The
Python package against datasketch and rensa"; issue 35).

    target/engines/venv/bin/python bench/python_native.py [--corpora debian,django,short]
        [--tools simfind,cli,datasketch,rensa,rensa-c] [--short-n 1000000] [--reps 1]

(bench/python_native.sh runs it with the engines' venv and this build's
command.) Every tool runs in a subprocess of its own, one at a time, so that
its peak RSS (the child's `ru_maxrss`, from `os.wait4`) and CPU time (user +
sys, every thread) are its alone. In the child the texts are read first, as a
Python list of str, and not timed; the RSS they take is reported beside the
peak. Then the timed work, from that list to the verified pairs:

- simfind: one call, `simfind.dedupe(texts, k=5, bands=20, rows=5,
  threshold=0.8, method="lsh", seed=1)` (the call's own pool: all cores);
- datasketch 2.0: what its user writes: each text normalised and cut into
  character 5-grams in Python (the definition of ../shared/data's truth, so
  the sets are simfind's), `MinHash.bulk` of their UTF-8 bytes,
  `MinHashLSH(params=(20, 5))` filled in an insertion session and queried with
  every text, candidates verified by exact Jaccard of the Python sets (one
  core: datasketch has no threads);
- rensa (`RMinHash`): the same shingle sets, `RMinHash.from_token_sets` (Rust,
  rayon), `RMinHashLSH(0.8, 100, 20)` `insert_many` + `query_all`, the same
  verification;
- rensa-c (`CMinHash`): the same sets, `CMinHash.from_token_sets`, and
  rensa's LSH for it, the inline `CMinHashDeduplicator(0.8, 100)` (`add_pairs`
  then `get_duplicate_sets`; it chooses its own bands), the same verification
  (not run on more than RENSA_C_MAX short texts: its lookup is superlinear);
- cli: `simfind scan` with the same options on the same texts as the command
  reads them: the corpus's files for debian/django, a JSON Lines file of the
  short texts (`--input jsonl`), written before and not timed. Its wall time is
  the process's; its CPU and RSS from `wait4` too.

Each child writes its pairs; precision and recall are computed against exact
truth: ../shared/data's `truth_char5.csv` (pairs with Jaccard >= 0.8) for the
two docs corpora; for the short texts, every pair within a generated family
whose exact Jaccard (Python sets) reaches 0.8. Texts of different families are
random word sequences from a 20,000-word vocabulary, far below 0.8 (a pair any
tool reports across families would show as a precision below 1).

The short texts: `--short-n` texts of 8 to 24 words (fixed seed), 15 % of them
edits of an earlier text (one to three words replaced, dropped or appended).
"""

import argparse
import json
import os
import pathlib
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
K, BANDS, ROWS, T, SEED = 5, 20, 5, 0.8, 1
TOOLS = ("simfind", "cli", "datasketch", "rensa", "rensa-c")
# CMinHashDeduplicator's get_duplicate_sets took 0.7 s for 5,000 short texts
# and 19 s for 20,000 (load 4, 2 cores): it is not run on more.
RENSA_C_MAX = 20_000
CORPORA = ("debian", "django", "short")

# --------------------------------------------------------------- the texts


def corpus_files(name):
    root = DATA / f"{name}-docs" / "files"
    files = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames.sort()
        for f in filenames:
            full = os.path.join(dirpath, f)
            if os.path.islink(full) or not os.path.isfile(full):
                continue
            files.append(os.path.relpath(full, root).replace(os.sep, "/"))
    files.sort()
    return root, files


def short_texts(n, seed=7):
    """`n` short texts and each one's family (the index of the text it was
    made from, itself for an original)."""
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    vocabulary = sorted({"".join(rng.choices(letters, k=rng.randint(3, 9))) for _ in range(20000)})
    texts, family = [], []
    for i in range(n):
        if i and rng.random() < 0.15:
            j = rng.randrange(max(0, i - 5000), i)  # an edit of a recent text
            words = texts[j].split(" ")
            for _ in range(rng.randint(1, 3)):
                what = rng.random()
                if what < 0.5:
                    words[rng.randrange(len(words))] = rng.choice(vocabulary)
                elif what < 0.75 and len(words) > 4:
                    del words[rng.randrange(len(words))]
                else:
                    words.append(rng.choice(vocabulary))
            texts.append(" ".join(words))
            family.append(family[j])
        else:
            texts.append(" ".join(rng.choices(vocabulary, k=rng.randint(8, 24))))
            family.append(i)
    return texts, family


def load(corpus, short_n):
    """The corpus as a list of str (a file's bytes decoded with invalid UTF-8
    replaced, as the command decodes them) and the names the pairs are
    written with."""
    if corpus == "short":
        texts, _ = short_texts(short_n)
        return texts, [str(i) for i in range(len(texts))]
    root, files = corpus_files(corpus)
    texts = [(root / f).read_bytes().decode("utf-8", "replace") for f in files]
    return texts, files


# ------------------------------------------------- shingles, as the truth's

# Rust's char::is_whitespace (Unicode White_Space), as ../shared/data's truth
# (and ../shared/anchors/run_anchor.py) normalise.
_WS = re.compile("[\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+")


def shingle_set(text):
    s = _WS.sub(" ", text.lower()).strip(" ")
    return {s[i : i + K] for i in range(len(s) - K + 1)}


def verify(candidates, sets):
    pairs = []
    for i, j in candidates:
        a, b = sets[i], sets[j]
        inter = len(a & b)
        if inter / (len(a) + len(b) - inter) >= T - 1e-12:
            pairs.append((i, j))
    return pairs


# ------------------------------------------------------------ the tools


def run_simfind(texts, phase):
    import simfind

    with phase("dedupe"):
        found = simfind.dedupe(
            texts, k=K, bands=BANDS, rows=ROWS, threshold=T, method="lsh", seed=SEED
        )
        left = found.pairs.column("left").to_pylist()
        right = found.pairs.column("right").to_pylist()
    return list(zip(left, right))


def run_datasketch(texts, phase):
    from datasketch import MinHash, MinHashLSH

    with phase("shingle"):
        sets = [shingle_set(t) for t in texts]
        live = [i for i, s in enumerate(sets) if s]
    with phase("sign"):
        signatures = MinHash.bulk(
            ([x.encode() for x in sets[i]] for i in live), num_perm=BANDS * ROWS, seed=SEED
        )
    candidates = set()
    with phase("lsh"):
        lsh = MinHashLSH(threshold=T, num_perm=BANDS * ROWS, params=(BANDS, ROWS))
        with lsh.insertion_session() as session:
            for i, m in zip(live, signatures):
                session.insert(i, m, check_duplication=False)
        for i, m in zip(live, signatures):
            for j in lsh.query(m):
                if j != i:
                    candidates.add((i, j) if i < j else (j, i))
    with phase("verify"):
        return verify(candidates, sets)


def run_rensa(texts, phase):
    import rensa

    with phase("shingle"):
        sets = [shingle_set(t) for t in texts]
        live = [i for i, s in enumerate(sets) if s]
    with phase("sign"):
        signatures = rensa.RMinHash.from_token_sets([list(sets[i]) for i in live], BANDS * ROWS, SEED)
    candidates = set()
    with phase("lsh"):
        lsh = rensa.RMinHashLSH(T, BANDS * ROWS, BANDS)
        lsh.insert_many(signatures, 0)
        for q, found in enumerate(lsh.query_all(signatures)):
            i = live[q]
            for j in found:
                j = live[j]
                if j != i:
                    candidates.add((i, j) if i < j else (j, i))
    with phase("verify"):
        return verify(candidates, sets)


def run_rensa_c(texts, phase):
    import rensa

    with phase("shingle"):
        sets = [shingle_set(t) for t in texts]
        live = [i for i, s in enumerate(sets) if s]
    with phase("sign"):
        signatures = rensa.CMinHash.from_token_sets([list(sets[i]) for i in live], BANDS * ROWS, SEED)
    candidates = set()
    with phase("lsh"):
        dedup = rensa.CMinHashDeduplicator(T, BANDS * ROWS, SEED)
        dedup.add_pairs([(str(i), m) for i, m in zip(live, signatures)])
        for i, found in zip(live, dedup.get_duplicate_sets(signatures)):
            for j in map(int, found):
                if j != i:
                    candidates.add((i, j) if i < j else (j, i))
    with phase("verify"):
        return verify(candidates, sets)


RUNNERS = {
    "simfind": run_simfind,
    "datasketch": run_datasketch,
    "rensa": run_rensa,
    "rensa-c": run_rensa_c,
}


IMPORTS = {
    "simfind": ("simfind", "pyarrow"),
    "datasketch": ("datasketch",),
    "rensa": ("rensa",),
    "rensa-c": ("rensa",),
}


def vm_hwm_kb():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def child(args):
    """One tool on one corpus: reads the texts (not timed), runs the tool,
    writes the pairs as `i,j` lines, prints its phases as JSON."""
    texts, _ = load(args.corpus, args.short_n)
    read_kb = vm_hwm_kb()
    phases = {}

    class phase:
        def __init__(self, name):
            self.name = name

        def __enter__(self):
            self.start = time.perf_counter()

        def __exit__(self, *exc):
            phases[self.name] = phases.get(self.name, 0.0) + time.perf_counter() - self.start

    # Imports are a session's, paid once (pyarrow's alone takes about 0.3 s):
    # done before the clock starts.
    for module in IMPORTS[args.tool]:
        __import__(module)
    cpu0 = resource.getrusage(resource.RUSAGE_SELF)
    wall0 = time.perf_counter()
    pairs = RUNNERS[args.tool](texts, phase)
    wall = time.perf_counter() - wall0
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    with open(args.pairs_out, "w") as out:
        out.writelines(f"{i},{j}\n" for i, j in sorted(pairs))
    print(json.dumps({"wall": wall, "cpu": cpu, "read_kb": read_kb, "phases": phases}))


# ------------------------------------------------------------- the parent


def truth_of(corpus, short_n, names):
    """The pairs (i, j), i < j, whose exact Jaccard reaches T."""
    if corpus == "short":
        texts, family = short_texts(short_n)
        members = {}
        for i, f in enumerate(family):
            members.setdefault(f, []).append(i)
        truth = set()
        for group in members.values():
            sets = [shingle_set(texts[i]) for i in group]
            for a in range(len(group)):
                for b in range(a + 1, len(group)):
                    x, y = sets[a], sets[b]
                    if x and y and len(x & y) / len(x | y) >= T - 1e-12:
                        truth.add((group[a], group[b]))
        return truth
    position = {n: i for i, n in enumerate(names)}
    truth = set()
    with open(DATA / f"{corpus}-docs" / "truth_char5.csv") as lines:
        next(lines)
        for line in lines:
            a, b, j = line.rstrip("\n").rsplit(",", 2)
            if float(j) >= T:
                i, k = position[a], position[b]
                truth.add((min(i, k), max(i, k)))
    return truth


def measure(cmd, stdout_path=None):
    """Runs `cmd`; returns (wall, cpu, peak RSS KiB, stdout)."""
    out = open(stdout_path, "wb") if stdout_path else subprocess.PIPE
    start = time.perf_counter()
    child = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    stdout = b"" if stdout_path else child.stdout.read()
    err = child.stderr.read().decode()
    if child.returncode != 0:
        sys.exit(f"{cmd}: exit {child.returncode}\n{err}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, stdout


def cli_pairs(csv_path, corpus, names):
    """The command's pairs as positions: ids for the short texts, paths (the
    root given on its command line, then the name) for the files."""
    import csv

    position = {n: i for i, n in enumerate(names)}
    prefix = "" if corpus == "short" else str(DATA / f"{corpus}-docs" / "files") + "/"
    pairs = set()
    with open(csv_path, newline="") as f:
        rows = csv.reader(f)
        next(rows)
        for row in rows:
            i, j = (int(x) if corpus == "short" else position[x[len(prefix):]] for x in row[:2])
            pairs.add((min(i, j), max(i, j)))
    return pairs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpora", default=",".join(CORPORA))
    ap.add_argument("--tools", default=",".join(TOOLS))
    ap.add_argument("--short-n", type=int, default=1_000_000)
    ap.add_argument("--reps", type=int, default=1, help="runs of each tool; the best wall is kept")
    ap.add_argument("--simfind-bin", default=os.environ.get("SIMFIND_BIN", str(ROOT / "target/release-tests/simfind")))
    # The child's arguments.
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--corpus", help=argparse.SUPPRESS)
    ap.add_argument("--tool", help=argparse.SUPPRESS)
    ap.add_argument("--pairs-out", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args)

    tools = [t for t in args.tools.split(",") if t]
    work = pathlib.Path(tempfile.mkdtemp(prefix="python-native-"))
    print(f"k={K} bands={BANDS} rows={ROWS} threshold={T} seed={SEED}; short texts: {args.short_n}; "
          f"best of {args.reps}; load {os.getloadavg()[0]:.1f}", flush=True)
    print("| corpus | tool | wall s | CPU s | peak RSS MB (texts MB) | pairs | P / R | tool ÷ simfind, wall | tool ÷ simfind, peak RSS |")
    print("|---|---|--:|--:|--:|--:|---|--:|--:|")
    for corpus in args.corpora.split(","):
        texts, names = load(corpus, args.short_n)
        megabytes = sum(len(t.encode()) for t in texts) / 1e6
        truth = truth_of(corpus, args.short_n, names)
        if corpus == "short" and "cli" in tools:
            jsonl = work / "short.jsonl"
            with open(jsonl, "w") as out:
                out.writelines(json.dumps({"id": str(i), "text": t}) + "\n" for i, t in enumerate(texts))
        del texts
        results = {}
        for tool in tools:
            if tool == "rensa-c" and corpus == "short" and args.short_n > RENSA_C_MAX:
                print(f"| {corpus} | {tool} | not run: more than {RENSA_C_MAX} texts (its lookup grows "
                      "faster than the square of their number) | | | | | | |", flush=True)
                continue
            runs = []
            for _ in range(args.reps):
                pairs_path = work / f"{corpus}-{tool}.pairs"
                if tool == "cli":
                    source = ["--input", "jsonl", str(jsonl)] if corpus == "short" else [str(DATA / f"{corpus}-docs" / "files")]
                    cmd = [args.simfind_bin, "scan", *source, "-k", str(K), "-b", str(BANDS), "-r", str(ROWS),
                           "-t", str(T), "--method", "lsh", "--seed", str(SEED), "-q", "-o", str(pairs_path)]
                    wall, cpu, rss, _ = measure(cmd)
                    runs.append((wall, cpu, rss, None, {}))
                    got = cli_pairs(pairs_path, corpus, names)
                else:
                    cmd = [sys.executable, __file__, "--child", "--corpus", corpus, "--tool", tool,
                           "--short-n", str(args.short_n), "--pairs-out", str(pairs_path)]
                    _, _, rss, out = measure(cmd)
                    report = json.loads(out.decode().strip().splitlines()[-1])
                    runs.append((report["wall"], report["cpu"], rss, report["read_kb"], report["phases"]))
                    got = set()
                    with open(pairs_path) as f:
                        for line in f:
                            i, j = line.split(",")
                            got.add((int(i), int(j)))
            wall, cpu, rss, read_kb, phases = min(runs, key=lambda r: r[0])
            hit = len(got & truth)
            precision = hit / len(got) if got else 1.0
            recall = hit / len(truth) if truth else 1.0
            results[tool] = (wall, rss)
            base = results.get("simfind")
            ratio = f"{wall / base[0]:.1f}×" if base and tool != "simfind" else ""
            rss_ratio = f"{rss / base[1]:.1f}×" if base and tool != "simfind" else ""
            texts_mb = f" ({read_kb / 1024:.0f})" if read_kb else ""
            detail = " ".join(f"{k} {v:.2f}" for k, v in phases.items())
            print(f"| {corpus} ({megabytes:.0f} MB) | {tool} | {wall:.2f} | {cpu:.2f} | {rss / 1024:.0f}{texts_mb} | "
                  f"{len(got)} | {precision:.3f} / {recall:.3f} | {ratio} | {rss_ratio} |", flush=True)
            if detail:
                print(f"<!-- {corpus} {tool}: {detail} -->", flush=True)
        print(f"<!-- {corpus}: {len(truth)} true pairs at J >= {T} -->", flush=True)
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
