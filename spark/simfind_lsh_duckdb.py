#!/usr/bin/env python3
"""The band join of spark/simfind_lsh.py on one machine, out of core, with DuckDB.

    python spark/simfind_lsh_duckdb.py SIGNED_DIR OUT_DIR [--exact-pairs]
        [--max-bucket N] [--min-estimate T] [--memory-limit 4GB]
        [--temp-directory /scratch/duck] [--threads N]

The same statements as the Spark job (imported from simfind_lsh.py; only the
estimate's lambda is DuckDB's), the same outputs: OUT_DIR/pairs/part-0.parquet
(a, b, estimate) and OUT_DIR/components/part-0.parquet (doc_id, component).
DuckDB spills joins and aggregates to --temp-directory beyond --memory-limit.
Each output is written under a temporary name and renamed when complete.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simfind_lsh as lsh  # noqa: E402


def options(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("signed")
    p.add_argument("out")
    p.add_argument("--exact-pairs", action="store_true")
    p.add_argument("--max-bucket", type=int, default=10000)
    p.add_argument("--min-estimate", type=float, default=0.0)
    p.add_argument("--memory-limit", default=None, help="e.g. 4GB (DuckDB's default: 80%% of RAM)")
    p.add_argument("--temp-directory", default=None, help="where DuckDB spills")
    p.add_argument("--threads", type=int, default=0)
    return p.parse_args(argv)


def quote(s):
    return "'" + s.replace("'", "''") + "'"


def write_atomic(con, query, path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = os.path.join(os.path.dirname(path), "." + os.path.basename(path) + ".tmp")
    con.execute(f"COPY ({query}) TO {quote(tmp)} (FORMAT parquet, COMPRESSION snappy)")
    os.replace(tmp, path)


def main(argv):
    args = options(argv)
    n = lsh.signature_length(args.signed)
    import duckdb

    con = duckdb.connect()
    if args.memory_limit:
        con.execute(f"SET memory_limit = {quote(args.memory_limit)}")
    if args.temp_directory:
        con.execute(f"SET temp_directory = {quote(args.temp_directory)}")
    if args.threads:
        con.execute(f"SET threads = {args.threads}")
    for table in ("bands", "signatures"):
        files = quote(os.path.join(args.signed, table, "*.parquet"))
        con.execute(f"CREATE VIEW {table} AS SELECT * FROM read_parquet({files})")
    if n is None:
        n = con.execute("SELECT len(signature) FROM signatures LIMIT 1").fetchone()[0]

    con.execute(f"CREATE TEMP TABLE buckets AS {lsh.BUCKETS}")
    edges = lsh.STAR
    if args.exact_pairs:
        edges += " UNION ALL " + lsh.EXACT.format(cap=args.max_bucket)
    con.execute(f"CREATE TEMP TABLE candidates AS {lsh.CANDIDATES.format(edges=edges)}")
    min_agree = int(-(-args.min_estimate * n // 1))
    estimated = lsh.ESTIMATED.format(agree=lsh.AGREE_DUCKDB, n=n, min_agree=min_agree)
    con.execute(f"CREATE TEMP TABLE pairs AS {estimated}")
    write_atomic(con, "SELECT * FROM pairs", os.path.join(args.out, "pairs", "part-0.parquet"))

    con.execute(f"CREATE TEMP TABLE edges AS {lsh.EDGES}")
    con.execute(f"CREATE TEMP TABLE labels AS {lsh.LABELS_START}")
    for _ in range(lsh.MAX_ROUNDS):
        con.execute(f"CREATE OR REPLACE TEMP TABLE next_labels AS {lsh.LABELS_STEP}")
        changed = con.execute(lsh.CHANGED).fetchone()[0]
        con.execute("DROP TABLE labels")
        con.execute("ALTER TABLE next_labels RENAME TO labels")
        if changed == 0:
            break
    else:
        sys.exit(f"simfind_lsh_duckdb: error: components did not settle in {lsh.MAX_ROUNDS} rounds")
    write_atomic(con, lsh.COMPONENTS, os.path.join(args.out, "components", "part-0.parquet"))


if __name__ == "__main__":
    main(sys.argv[1:])
