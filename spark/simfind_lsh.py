#!/usr/bin/env python3
"""The band join of simfind's exchange files, in Spark SQL (no extra jars).

    spark-submit spark/simfind_lsh.py SIGNED_DIR OUT_DIR [--exact-pairs]
        [--max-bucket N] [--min-estimate T] [--partitions N]

SIGNED_DIR is what `simfind sign --out` wrote for every shard (SIGNED_DIR/bands,
SIGNED_DIR/signatures). OUT_DIR gets

    pairs/       a int64, b int64 (doc_ids, a < b), estimate double: the
                 candidate pairs (documents sharing a bucket in some band)
    components/  doc_id int64, component int64 (the smallest doc_id of its
                 connected component over the pairs; documents in no pair are
                 left out)

Steps: group the bands by (band, key) into buckets of two or more documents;
star edges from each bucket's smallest doc_id to its other members (linear in
the bucket's size); with --exact-pairs, also every pair inside buckets of at
most --max-bucket documents (what `simfind verify --pairs` needs to reproduce
`simfind scan --method lsh`); DISTINCT; the estimate (fraction of agreeing
signature values) from `signatures`, and with --min-estimate the pairs below
it dropped; connected components by min-label propagation with pointer
jumping.

Heavy buckets: a bucket larger than --max-bucket (boilerplate thousands of
documents share) contributes only its star edges, never its quadratic pair
list. Components are unchanged by that (a star connects a bucket as its pairs
do), but a pair of two non-head members of such a bucket is listed only if
another band makes them candidates: recall of the pair list drops by exactly
the pairs that meet only in heavy buckets (docs/SCALE-OUT.md).

The SQL lives in the constants below; spark/simfind_lsh_duckdb.py runs the
same statements on DuckDB, where only the estimate's lambda is spelt
differently.
"""

import argparse
import sys

# The statements, shared with simfind_lsh_duckdb.py. Tables: bands(doc_id,
# band, key), signatures(doc_id, signature).
BUCKETS = """
SELECT band, key, COUNT(*) AS size, MIN(doc_id) AS head
FROM bands GROUP BY band, key HAVING COUNT(*) > 1
"""
STAR = """
SELECT k.head AS a, x.doc_id AS b
FROM bands x JOIN buckets k ON x.band = k.band AND x.key = k.key
WHERE x.doc_id <> k.head
"""
# Pairs inside the buckets of at most {cap} documents (the star edges cover
# the head's pairs of every bucket).
EXACT = """
SELECT x.doc_id AS a, y.doc_id AS b
FROM buckets k
JOIN bands x ON x.band = k.band AND x.key = k.key
JOIN bands y ON y.band = k.band AND y.key = k.key AND x.doc_id < y.doc_id
WHERE k.size <= {cap} AND x.doc_id <> k.head
"""
CANDIDATES = "SELECT DISTINCT a, b FROM ({edges}) e"
# {agree}: the number of positions where the two signatures agree.
ESTIMATED = """
SELECT c.a, c.b, CAST({agree} AS DOUBLE) / {n} AS estimate
FROM candidates c
JOIN signatures sa ON sa.doc_id = c.a
JOIN signatures sb ON sb.doc_id = c.b
WHERE {agree} >= {min_agree}
"""
AGREE_SPARK = (
    "aggregate(zip_with(sa.signature, sb.signature, (x, y) -> IF(x = y, 1, 0)), 0, "
    "(s, v) -> s + v)"
)
AGREE_DUCKDB = (
    "list_sum(list_transform(range(1, len(sa.signature) + 1), "
    "lambda i: CASE WHEN sa.signature[i] = sb.signature[i] THEN 1 ELSE 0 END))"
)
EDGES = "SELECT a AS src, b AS dst FROM pairs UNION ALL SELECT b AS src, a AS dst FROM pairs"
LABELS_START = "SELECT src AS doc_id, LEAST(src, MIN(dst)) AS label FROM edges GROUP BY src"
# One round: each document takes the smallest label among its neighbours and
# the label of its label (pointer jumping: chains shorten by half a round).
LABELS_STEP = """
SELECT l.doc_id, LEAST(l.label, n.label, p.label) AS label
FROM labels l
JOIN (SELECT e.src AS doc_id, MIN(m.label) AS label
      FROM edges e JOIN labels m ON m.doc_id = e.dst GROUP BY e.src) n
  ON n.doc_id = l.doc_id
JOIN labels p ON p.doc_id = l.label
"""
CHANGED = """
SELECT COUNT(*) AS changed FROM next_labels x JOIN labels l ON l.doc_id = x.doc_id
WHERE x.label <> l.label
"""
COMPONENTS = "SELECT doc_id, label AS component FROM labels"

# Beyond this many rounds the graph is a path thousands of documents long:
# stop with an error rather than loop for hours.
MAX_ROUNDS = 64


def options(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("signed", help="the directory simfind sign --out wrote")
    p.add_argument("out", help="where pairs/ and components/ go")
    p.add_argument(
        "--exact-pairs",
        action="store_true",
        help="every pair inside buckets of at most --max-bucket documents, not only star edges",
    )
    p.add_argument(
        "--max-bucket",
        type=int,
        default=10000,
        help="larger buckets give star edges only (default 10000)",
    )
    p.add_argument(
        "--min-estimate",
        type=float,
        default=0.0,
        help="drop pairs whose signatures agree in fewer than this share of positions",
    )
    p.add_argument(
        "--partitions", type=int, default=0, help="spark.sql.shuffle.partitions (default: Spark's)"
    )
    p.add_argument("--master", default=None, help="e.g. local[2] (default: spark-submit's)")
    return p.parse_args(argv)


# The metadata every file of one exchange must agree on: the recipe, what the
# documents are (files, records, a vector family's points) and how they were
# signed (whole or per field), and the signature's length.
AGREED = (b"simfind.recipe.", b"simfind.family.", b"simfind.records.", b"simfind.key",
          b"simfind.signature_len")


def signature_length(signed):
    """The values in a signature row (simfind.signature_len: bands x rows, or
    fields x bands x rows for records signed per field), after checking that
    every bands and signatures file agrees on the recipe and the kind of input
    (pyarrow reads the footers; it ships with pyspark's pandas extras and is in
    the test requirements). Without pyarrow: None, and the length is read from
    the data."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        return None
    import glob
    import os

    first = None
    for table in ("bands", "signatures"):
        files = sorted(glob.glob(os.path.join(signed, table, "*.parquet")))
        if not files:
            sys.exit(f"simfind_lsh: error: {os.path.join(signed, table)}: no Parquet file there")
        for f in files:
            meta = pq.read_metadata(f).metadata or {}
            recipe = {
                k.decode(): v.decode()
                for k, v in meta.items()
                if k.startswith(AGREED)
            }
            if not any(k.startswith("simfind.recipe.") for k in recipe):
                sys.exit(f"simfind_lsh: error: {f}: not an exchange file of simfind")
            if first is None:
                first = (f, recipe)
            elif recipe != first[1]:
                diff = sorted(k for k in set(recipe) | set(first[1]) if recipe.get(k) != first[1].get(k))
                sys.exit(
                    f"simfind_lsh: error: {f}: made with another recipe or input than {first[0]} "
                    f"({', '.join(diff)} differ); sign every shard with the same options"
                )
    recipe = first[1]
    return int(recipe.get("simfind.signature_len", recipe["simfind.recipe.n"]))


def main(argv):
    args = options(argv)
    n = signature_length(args.signed)

    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.appName("simfind-lsh")
        .config("spark.ui.showConsoleProgress", "false")
    )
    if args.master:
        builder = builder.master(args.master)
    if args.partitions:
        builder = builder.config("spark.sql.shuffle.partitions", str(args.partitions))
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    sql = spark.sql

    spark.read.parquet(f"{args.signed}/bands").createOrReplaceTempView("bands")
    signatures = spark.read.parquet(f"{args.signed}/signatures")
    signatures.createOrReplaceTempView("signatures")
    if n is None:
        n = signatures.selectExpr("size(signature) AS n").first()["n"]

    sql(BUCKETS).cache().createOrReplaceTempView("buckets")
    edges = STAR
    if args.exact_pairs:
        edges += " UNION ALL " + EXACT.format(cap=args.max_bucket)
    sql(CANDIDATES.format(edges=edges)).createOrReplaceTempView("candidates")
    min_agree = int(-(-args.min_estimate * n // 1))  # ceil
    pairs = sql(ESTIMATED.format(agree=AGREE_SPARK, n=n, min_agree=min_agree))
    pairs = pairs.localCheckpoint()
    pairs.createOrReplaceTempView("pairs")
    pairs.write.mode("overwrite").parquet(f"{args.out}/pairs")

    sql(EDGES).localCheckpoint().createOrReplaceTempView("edges")
    labels = sql(LABELS_START).localCheckpoint()
    labels.createOrReplaceTempView("labels")
    for _ in range(MAX_ROUNDS):
        nxt = sql(LABELS_STEP).localCheckpoint()
        nxt.createOrReplaceTempView("next_labels")
        changed = sql(CHANGED).first()["changed"]
        nxt.createOrReplaceTempView("labels")
        if changed == 0:
            break
    else:
        sys.exit(f"simfind_lsh: error: components did not settle in {MAX_ROUNDS} rounds")
    sql(COMPONENTS).write.mode("overwrite").parquet(f"{args.out}/components")
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1:])
