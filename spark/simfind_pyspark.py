#!/usr/bin/env python3
"""Near-duplicate texts of a Spark DataFrame, signed inside the executors by
the `simfind` Python package: the way a Spark user works (issue #35 point 5).

    python spark/simfind_pyspark.py INPUT OUT.csv [--format parquet|json]
        [--id-column id] [--text-column text] [-k 5] [--bands 20] [--rows 5]
        [--seed 42] [-t 0.8] [--master local[2]] [--partitions N]

INPUT is anything `spark.read` takes (a Parquet file or folder, JSON Lines).
OUT.csv gets `a,b,similarity`: every pair of rows whose texts share all the
MinHash values of some band and whose exact Jaccard similarity (char
k-shingles, the command's normalisation) is at least t; a < b by id.

Steps, each a plain DataFrame operation:
1. `mapInArrow(sign)`: each executor signs its Arrow batches with
   `simfind.minhash` (the GIL released, one thread per task: Spark runs the
   tasks in parallel) and emits one row per text and band: the band's number
   and its r values. Texts with no shingle emit nothing.
2. A self-join on (band, values) in Spark SQL: the candidate pairs, DISTINCT.
3. `mapInArrow(verify)`: the two texts of each candidate, joined back, get
   their exact similarity from `simfind.jaccard`; pairs below t are dropped.

The candidates are those of `simfind scan --method lsh` with the same k,
bands, rows and seed (the signatures are the values `simfind sign` writes),
and verification is exact as the command's is, so the pairs are the command's
pairs: `tests/engines/python.rs` checks it on local[2].
"""

import argparse
import csv
import sys


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("input")
    p.add_argument("out")
    p.add_argument("--format", default="parquet", choices=["parquet", "json"])
    p.add_argument("--id-column", default="id")
    p.add_argument("--text-column", default="text")
    p.add_argument("-k", type=int, default=5)
    p.add_argument("--bands", type=int, default=20)
    p.add_argument("--rows", type=int, default=5)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("-t", "--threshold", type=float, default=0.8)
    p.add_argument("--master", default=None, help="e.g. local[2] (default: spark-submit's)")
    p.add_argument("--partitions", type=int, default=None)
    return p.parse_args(argv)


def signer(k, bands, rows, seed):
    """The mapInArrow function of step 1, for one recipe."""

    def sign(batches):
        import numpy as np
        import pyarrow as pa
        import simfind

        for batch in batches:
            if batch.num_rows == 0:
                continue
            signed = simfind.minhash(
                batch.column("text"), k=k, bands=bands, rows=rows, seed=seed, threads=1
            )
            keep = np.flatnonzero(~signed.empty)
            values = signed.values[keep].astype(np.int64).reshape(len(keep), bands, rows)
            ids = batch.column("id").take(pa.array(keep)).to_pylist()
            n = len(keep) * bands
            yield pa.RecordBatch.from_arrays(
                [
                    pa.array(np.repeat(np.array(ids, dtype=object), bands), pa.string()),
                    pa.array(np.tile(np.arange(bands, dtype=np.int32), len(keep))),
                    pa.ListArray.from_arrays(
                        pa.array(np.arange(0, (n + 1) * rows, rows, dtype=np.int32)),
                        pa.array(values.reshape(-1)),
                    ),
                ],
                names=["id", "band", "vals"],
            )

    return sign


def verifier(k, threshold):
    """The mapInArrow function of step 3."""

    def verify(batches):
        import pyarrow as pa
        import simfind

        for batch in batches:
            a = batch.column("ta").to_pylist()
            b = batch.column("tb").to_pylist()
            sims = [simfind.jaccard(x, y, k=k) for x, y in zip(a, b)]
            kept = [i for i, s in enumerate(sims) if s is not None and s >= threshold]
            yield pa.RecordBatch.from_arrays(
                [
                    batch.column("a").take(pa.array(kept, pa.int64())),
                    batch.column("b").take(pa.array(kept, pa.int64())),
                    pa.array([sims[i] for i in kept], pa.float64()),
                ],
                names=["a", "b", "similarity"],
            )

    return verify


def main(argv):
    args = parse_args(argv)
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.appName("simfind-pyspark")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
    )
    if args.master:
        builder = builder.master(args.master)
    if args.partitions:
        builder = builder.config("spark.sql.shuffle.partitions", str(args.partitions))
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    try:
        reader = spark.read.format(args.format)
        rows = reader.load(args.input).selectExpr(
            f"CAST(`{args.id_column}` AS STRING) AS id",
            f"CAST(`{args.text_column}` AS STRING) AS text",
        )
        if args.partitions:
            rows = rows.repartition(args.partitions)
        rows = rows.where("text IS NOT NULL")
        bands = rows.mapInArrow(
            signer(args.k, args.bands, args.rows, args.seed),
            "id string, band int, vals array<bigint>",
        )
        bands.createOrReplaceTempView("bands")
        rows.createOrReplaceTempView("texts")
        candidates = spark.sql(
            """
            SELECT c.a, c.b, ta.text AS ta, tb.text AS tb
            FROM (SELECT DISTINCT x.id AS a, y.id AS b
                  FROM bands x JOIN bands y
                  ON x.band = y.band AND x.vals = y.vals AND x.id < y.id) c
            JOIN texts ta ON ta.id = c.a
            JOIN texts tb ON tb.id = c.b
            """
        )
        pairs = candidates.mapInArrow(
            verifier(args.k, args.threshold), "a string, b string, similarity double"
        ).collect()
    finally:
        spark.stop()
    with open(args.out, "w", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(["a", "b", "similarity"])
        for p in sorted(pairs, key=lambda p: (p.a, p.b)):
            out.writerow([p.a, p.b, f"{p.similarity:.6f}"])
    print(f"simfind_pyspark: {len(pairs)} pairs written to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
