#!/usr/bin/env python3
"""Record deduplication and linkage side by side: simfind, recordlinkage,
Splink (DuckDB).

Usage: records_vs.py DIR SIMFIND [--link] [--only NAME,NAME]
DIR holds people.csv and truth.csv (and, for --link, link_a.csv, link_b.csv
and link_truth.csv) from bench/gen_records.py. Prints one row per tool:
candidates where the tool says, recall, precision, F1, wall seconds
(starting the process, Python's imports, reading and writing included) beside
CPU seconds (user + system: the machine is shared, CPU is the steadier figure)
and peak RSS, all against the same truth, in one run. Each tool runs in its
own process under /usr/bin/time, so its peak RSS is its own.

  records_vs.py --tool recordlinkage|splink dedupe|link DIR OUT
runs one Python tool and writes its pairs to OUT (what the table runs).
"""

import csv
import os
import re
import subprocess
import sys
import tempfile


def read_pairs(path, skip_header=True):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if skip_header:
        rows = rows[1:]
    return {(min(r[0], r[1]), max(r[0], r[1])) for r in rows if len(r) >= 2}


def timed(argv, out):
    """Runs argv under /usr/bin/time; returns (wall, cpu, peak KB, stderr)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as t:
        run = subprocess.run(["/usr/bin/time", "-o", t.name, "-f", "%e %U %S %M"] + argv,
                             capture_output=True, text=True)
        if run.returncode not in (0, 1):
            sys.exit(f"{argv[0]} failed ({run.returncode}): {run.stderr[-2000:]}")
        wall, user, system, kb = t.read().split()[-4:]
    return float(wall), float(user) + float(system), int(kb), run.stderr


def row(name, found, truth, measured, candidates=""):
    wall, cpu, kb, _ = measured
    tp = len(found & truth)
    p = tp / max(1, len(found))
    r = tp / len(truth)
    f1 = 2 * p * r / max(1e-9, p + r)
    print(f"| {name} | {candidates} | {r:.3f} | {p:.3f} | {f1:.4f} | {wall:.2f} | {cpu:.2f} "
          f"| {kb / 1024:.0f} MB |", flush=True)


def simfind(binary, inputs, args, out):
    measured = timed([binary, "scan", "--input", "csv"] + inputs + args + ["-o", out], out)
    # The candidates line the scan prints on stderr ("N candidates").
    m = re.search(r"([\d,]+) candidate", measured[3])
    return read_pairs(out), measured, (m.group(1) if m else "")


def frames(mode, directory):
    import pandas as pd
    names = ["people.csv"] if mode == "dedupe" else ["link_a.csv", "link_b.csv"]
    return [pd.read_csv(f"{directory}/{n}", dtype=str, keep_default_na=False) for n in names]


def recordlinkage_pairs(mode, directory):
    import recordlinkage
    dfs = [df.set_index("id") for df in frames(mode, directory)]
    # Blocking as its tutorial does, on two keys (a typo in one still
    # leaves the other), then string comparisons and a sum threshold.
    indexer = recordlinkage.Index()
    indexer.block("last")
    indexer.block("zip")
    pairs = indexer.index(*dfs)
    compare = recordlinkage.Compare()
    compare.string("first", "first", method="jarowinkler", threshold=0.85, label="first")
    compare.string("last", "last", method="jarowinkler", threshold=0.85, label="last")
    compare.string("street", "street", method="jarowinkler", threshold=0.85, label="street")
    compare.exact("city", "city", label="city")
    compare.exact("zip", "zip", label="zip")
    features = compare.compute(pairs, *dfs)
    return list(features[features.sum(axis=1) >= 3].index), len(pairs)


def splink_pairs(mode, directory):
    import splink.comparison_library as cl
    from splink import DuckDBAPI, Linker, SettingsCreator, block_on
    dfs = [df.rename(columns={"id": "unique_id"}).replace({"": None})
           for df in frames(mode, directory)]
    settings = SettingsCreator(
        link_type="dedupe_only" if mode == "dedupe" else "link_only",
        comparisons=[
            cl.JaroWinklerAtThresholds("first", [0.9, 0.7]),
            cl.JaroWinklerAtThresholds("last", [0.9, 0.7]),
            cl.JaroWinklerAtThresholds("street", [0.9, 0.7]),
            cl.ExactMatch("city"),
            cl.ExactMatch("zip"),
        ],
        blocking_rules_to_generate_predictions=[block_on("last"), block_on("zip")],
    )
    db_api = DuckDBAPI()
    tables = [db_api.register(df, table_name=f"t{n}") for n, df in enumerate(dfs)]
    linker = Linker(tables[0] if len(tables) == 1 else tables, settings)
    linker.training.estimate_u_using_random_sampling(max_pairs=1e6)
    linker.training.estimate_parameters_using_expectation_maximisation(block_on("last"))
    linker.training.estimate_parameters_using_expectation_maximisation(block_on("zip"))
    predictions = linker.inference.predict(threshold_match_probability=0.9).as_pandas_dataframe()
    return list(zip(predictions["unique_id_l"], predictions["unique_id_r"])), ""


def one_tool(tool, mode, directory, out):
    pairs, candidates = {"recordlinkage": recordlinkage_pairs, "splink": splink_pairs}[tool](
        mode, directory)
    with open(out, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["a", "b", "candidates"])
        for a, b in pairs:
            w.writerow([a, b, ""])
    print(f"{candidates} candidates", file=sys.stderr)


KEYS = ["--block", "first", "--block", "last:soundex", "--block", "zip",
        "--candidate-fields", "street"]

SIMFIND = [
    ("simfind (whole record)", "whole", []),
    ("simfind --per-field (candidates chosen on a sample)", "per-field", ["--per-field"]),
    ("simfind --per-field --block first,last:soundex,zip + street's bands", "per-field-keys",
     ["--per-field"] + KEYS),
    ("simfind --model fellegi-sunter (candidates chosen on a sample)", "fs",
     ["--model", "fellegi-sunter"]),
    ("simfind --model fellegi-sunter --block first,last:soundex,zip + street's bands", "fs-keys",
     ["--model", "fellegi-sunter"] + KEYS),
]


def main():
    if sys.argv[1] == "--tool":
        one_tool(*sys.argv[2:6])
        return
    directory, binary = sys.argv[1], sys.argv[2]
    link = "--link" in sys.argv[3:]
    only = None
    if "--only" in sys.argv[3:]:
        only = sys.argv[sys.argv.index("--only") + 1].split(",")
    mode = "link" if link else "dedupe"
    truth = read_pairs(f"{directory}/{'link_truth' if link else 'truth'}.csv")
    inputs = ([f"{directory}/link_a.csv", f"{directory}/link_b.csv"] if link
              else [f"{directory}/people.csv"])
    if link:
        inputs = ["--link"] + inputs
    print(f"{mode}: {directory} ({len(truth)} true pairs)")
    print("| tool | candidates | recall | precision | F1 | wall s | CPU s | peak RSS |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "pairs.csv")
        for name, short, args in SIMFIND:
            if only and short not in only:
                continue
            found, measured, candidates = simfind(binary, inputs, args, out)
            row(name, found, truth, measured, candidates)
        for tool, name in [("recordlinkage", "recordlinkage (block last, zip; Jaro-Winkler; sum ≥ 3)"),
                           ("splink", "Splink 5 + DuckDB (block last, zip; EM; p ≥ 0.9)")]:
            if only and tool not in only:
                continue
            measured = timed([sys.executable, os.path.abspath(__file__), "--tool", tool, mode,
                              directory, out], out)
            m = re.search(r"(\d+) candidates", measured[3])
            row(name, read_pairs(out), truth, measured, f"{int(m.group(1)):,}" if m else "")


if __name__ == "__main__":
    main()
