#!/usr/bin/env python3
"""Record deduplication side by side: simfind, recordlinkage, Splink (DuckDB).

Usage: records_vs.py DIR SIMFIND
DIR holds people.csv and truth.csv from bench/gen_records.py. Prints one
line per tool: recall, precision, F1 and wall seconds (reading and writing
included) beside CPU seconds (the machine is shared: CPU is the figure
to compare), all against the same truth, in one run.
"""

import csv
import resource
import subprocess
import sys
import time


def truth_pairs(path):
    with open(path) as f:
        rows = list(csv.reader(f))[1:]
    return {(min(a, b), max(a, b)) for a, b in rows}


def score(name, found, truth, seconds):
    wall, cpu = seconds
    tp = len(found & truth)
    p = tp / max(1, len(found))
    r = tp / len(truth)
    f1 = 2 * p * r / max(1e-9, p + r)
    print(f"| {name} | {r:.3f} | {p:.3f} | {f1:.4f} | {wall:.2f} | {cpu:.2f} |", flush=True)


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def simfind(binary, people, args):
    start, cpu = time.perf_counter(), children_cpu()
    out = subprocess.run(
        [binary, "scan", "-q", "--input", "csv", people] + args,
        check=True, capture_output=True, text=True).stdout
    seconds = (time.perf_counter() - start, children_cpu() - cpu)
    rows = list(csv.reader(out.splitlines()))[1:]
    return {(min(r[0], r[1]), max(r[0], r[1])) for r in rows}, seconds


def recordlinkage_run(people):
    import pandas as pd
    import recordlinkage
    start, cpu = time.perf_counter(), time.process_time()
    df = pd.read_csv(people, dtype=str, keep_default_na=False).set_index("id")
    # Blocking as its tutorial does, on two keys (a typo in one still
    # leaves the other), then string comparisons and a sum threshold.
    indexer = recordlinkage.Index()
    indexer.block("last")
    indexer.block("zip")
    pairs = indexer.index(df)
    compare = recordlinkage.Compare()
    compare.string("first", "first", method="jarowinkler", threshold=0.85, label="first")
    compare.string("last", "last", method="jarowinkler", threshold=0.85, label="last")
    compare.string("street", "street", method="jarowinkler", threshold=0.85, label="street")
    compare.exact("city", "city", label="city")
    compare.exact("zip", "zip", label="zip")
    features = compare.compute(pairs, df)
    matches = features[features.sum(axis=1) >= 3].index
    found = {(min(a, b), max(a, b)) for a, b in matches}
    return found, (time.perf_counter() - start, time.process_time() - cpu)


def splink_run(people):
    import pandas as pd
    import splink.comparison_library as cl
    from splink import DuckDBAPI, Linker, SettingsCreator, block_on
    start, cpu = time.perf_counter(), time.process_time()
    df = pd.read_csv(people, dtype=str, keep_default_na=False)
    df = df.rename(columns={"id": "unique_id"}).replace({"": None})
    settings = SettingsCreator(
        link_type="dedupe_only",
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
    linker = Linker(db_api.register(df), settings)
    linker.training.estimate_u_using_random_sampling(max_pairs=1e6)
    linker.training.estimate_parameters_using_expectation_maximisation(block_on("last"))
    linker.training.estimate_parameters_using_expectation_maximisation(block_on("zip"))
    predictions = linker.inference.predict(threshold_match_probability=0.9).as_pandas_dataframe()
    found = {(min(a, b), max(a, b)) for a, b in
             zip(predictions["unique_id_l"], predictions["unique_id_r"])}
    # DuckDB's threads count in this process's CPU time.
    return found, (time.perf_counter() - start, time.process_time() - cpu)


def main():
    directory, binary = sys.argv[1], sys.argv[2]
    people = f"{directory}/people.csv"
    truth = truth_pairs(f"{directory}/truth.csv")
    print("| tool | recall | precision | F1 | wall s | CPU s |")
    print("|---|---|---|---|---|---|")
    found, s = simfind(binary, people, [])
    score("simfind (defaults)", found, truth, s)
    found, s = simfind(binary, people, ["--per-field", "--candidate-fields", "street,zip"])
    score("simfind --per-field --candidate-fields street,zip", found, truth, s)
    found, s = simfind(binary, people, ["--per-field"])
    score("simfind --per-field (candidates chosen on a sample)", found, truth, s)
    keys = ["--block", "first", "--block", "last:soundex", "--block", "zip",
            "--candidate-fields", "street"]
    found, s = simfind(binary, people, ["--per-field"] + keys)
    score("simfind --per-field --block first,last:soundex,zip + street's bands", found, truth, s)
    found, s = simfind(binary, people, ["--model", "fellegi-sunter"])
    score("simfind --model fellegi-sunter (candidates chosen on a sample)", found, truth, s)
    found, s = simfind(binary, people, ["--model", "fellegi-sunter"] + keys)
    score("simfind --model fellegi-sunter --block first,last:soundex,zip + street's bands",
          found, truth, s)
    found, s = recordlinkage_run(people)
    score("recordlinkage (block last, zip; Jaro-Winkler; sum ≥ 3)", found, truth, s)
    found, s = splink_run(people)
    score("Splink 5 + DuckDB (block last, zip; EM; p ≥ 0.9)", found, truth, s)


if __name__ == "__main__":
    main()
