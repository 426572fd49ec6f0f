#!/usr/bin/env bash
# Checks the rules of the spine (issue 33, docs/ARCHITECTURE.md) that a
# grep and `cargo tree` can decide, so that a change breaking one fails CI
# in seconds instead of waiting for a reader to notice:
#   1. the core crate depends on no CLI, storage or progress crate
#      (clap, indicatif, rusqlite, parquet, arrow*);
#   2. no `Result<_, String>` in the library crates (core, engine, Python):
#      errors are typed and name fields, only the binary words them;
#   3. no flag (`--name`) spelled in a string of the core or the engine
#      outside tests: the library names settings (`{name}`), the CLI spells
#      them (src/app/lower.rs);
#   4. no Rust source file over 800 code lines (comments, blank lines and a
#      trailing `#[cfg(test)] mod tests` not counted).
# Import circles and arrows back up are drawn by farm-studio, which CI does
# not have; docs/ARCHITECTURE.md says how to look.
# Exits 1 naming each breach.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0

forbidden=$(cargo tree -p simfind-core -e normal --prefix none -f '{p}' \
    | awk '{print $1}' | grep -E '^(clap|indicatif|rusqlite|parquet|arrow.*)$' | sort -u || true)
if [ -n "$forbidden" ]; then
    echo "check-spine: simfind-core depends on $(echo "$forbidden" | tr '\n' ' ')" >&2
    status=1
fi

python3 - <<'EOF' || status=1
import glob, re, sys

def library_sources():
    for path in sorted(glob.glob("crates/**/*.rs", recursive=True)):
        if "/tests/" in path or path.endswith("/tests.rs") or "/benches/" in path:
            continue
        yield path

def without_tests(text):
    # A module's own unit tests sit at its end, behind #[cfg(test)].
    found = re.search(r"\n#\[cfg\(test\)\]\n(pub(\(crate\))? )?mod tests\b", text)
    return text[: found.start()] if found else text

failed = False
result_string = re.compile(
    r"Result<((?:[^<>;{}]|<(?:[^<>]|<[^<>]*>)*>)*?),\s*String\s*>")
flag = re.compile(r'"(?:[^"\\]|\\.)*?(?<![\w-])--[a-z][a-z-]+')
for path in library_sources():
    text = without_tests(open(path, encoding="utf-8").read())
    for found in result_string.finditer(text):
        line = text.count("\n", 0, found.start()) + 1
        print(f"check-spine: {path}:{line}: {found.group(0)}: type the error", file=sys.stderr)
        failed = True
    if path.startswith(("crates/core/", "crates/simfind/")):
        for number, line in enumerate(text.split("\n"), 1):
            code = line.split("//")[0] if not line.lstrip().startswith("//") else ""
            if flag.search(code):
                print(f"check-spine: {path}:{number}: a flag spelled in the library: "
                      f"name the setting as {{name}}", file=sys.stderr)
                failed = True

for path in sorted(glob.glob("crates/**/*.rs", recursive=True) + glob.glob("src/**/*.rs", recursive=True)):
    if "/tests/" in path or path.endswith("/tests.rs"):
        continue
    text = without_tests(open(path, encoding="utf-8").read())
    code = [l for l in text.split("\n") if l.strip() and not l.strip().startswith("//")]
    if len(code) > 800:
        print(f"check-spine: {path}: {len(code)} code lines, more than 800: split it by role",
              file=sys.stderr)
        failed = True
sys.exit(1 if failed else 0)
EOF
exit $status
