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
#      trailing `#[cfg(test)] mod tests` not counted);
#   5. the two faces (src/, crates/py/src/) import the library only through
#      its façades: a path may name a section (`simfind::input`), an item it
#      re-exports, or a module it offers (`pub mod`), never a module it keeps
#      for tests, fuzz and benches (`#[doc(hidden)] pub mod`). Modules it
#      keeps to itself (`pub(crate) mod`) the compiler already refuses.
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
python3 - <<'EOF' || status=1
import glob, os, re, sys


# Where each library section's source lives: the engine's own, else the core's.
def section_dir(name):
    for root in ("crates/simfind/src", "crates/core/src"):
        if os.path.isdir(f"{root}/{name}"):
            return f"{root}/{name}"
    return None

def module_text(directory):
    # A folder module's text: `x/mod.rs`, or `x.rs` beside its folder `x/`.
    for candidate in (f"{directory}/mod.rs", f"{directory}.rs"):
        if os.path.isfile(candidate):
            return open(candidate, encoding="utf-8").read()
    return ""

def folder_module(directory, name):
    return os.path.isdir(f"{directory}/{name}") and (
        os.path.isfile(f"{directory}/{name}/mod.rs") or os.path.isfile(f"{directory}/{name}.rs"))

def public_submodules(text):
    # `pub mod x;` not marked #[doc(hidden)] (those are internal, for tests).
    return set(re.findall(r"(?<!#\[doc\(hidden\)\]\n)^pub mod (\w+);", text, re.M))

def reexports(text, name):
    return re.search(rf"\bpub use [^;]*\b{name}\b(?!::)[^;]*;", text, re.S) is not None

def flatten(prefix, tree):
    parts, depth, current = [], 0, ""
    for ch in tree:
        depth += ch == "{"
        depth -= ch == "}"
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    out = []
    for part in (p.strip() for p in parts):
        if not part:
            continue
        nested = re.match(r"^([\w:]*?)(?:::)?\{(.*)\}$", part, re.S)
        if nested:
            head = [s for s in nested.group(1).split("::") if s]
            out += flatten(prefix + head, nested.group(2))
        else:
            part = re.sub(r"\s+as\s+\w+$", "", part)
            out.append(prefix + [s for s in part.split("::") if s and s != "self"])
    return out

def paths_in(text):
    text = re.sub(r"//[^\n]*", "", text)
    for found in re.finditer(r"\buse\s+simfind(?:_core)?::(.*?);", text, re.S):
        yield from flatten([], " ".join(found.group(1).split()))
    rest = re.sub(r"\buse\s+simfind(?:_core)?::.*?;", "", text, flags=re.S)
    for found in re.finditer(r"\bsimfind(?:_core)?((?:::\w+)+)", rest):
        yield found.group(1).split("::")[1:]

def breach(path):
    """The first module on `path` that its parent does not offer: one kept
    for tests, fuzz and benches (`#[doc(hidden)] pub mod`), or not public."""
    if len(path) < 2 or section_dir(path[0]) is None:
        return None
    directory = section_dir(path[0])
    for i, segment in enumerate(path[1:], 1):
        text = module_text(directory)
        last = i == len(path) - 1
        folder = folder_module(directory, segment)
        if not folder and not os.path.isfile(f"{directory}/{segment}.rs"):
            return None  # an item: the parent offers it, or the compiler says no
        if last and reexports(text, segment):
            return None  # a function or type of the same name as its file
        if segment not in public_submodules(text):
            return segment
        directory = f"{directory}/{segment}"
    return None

failed = False
for source in sorted(glob.glob("src/**/*.rs", recursive=True) + glob.glob("crates/py/src/**/*.rs", recursive=True)):
    seen = set()
    for path in paths_in(open(source, encoding="utf-8").read()):
        module = breach(path)
        if module and tuple(path) not in seen:
            seen.add(tuple(path))
            print(f"check-spine: {source}: simfind::{'::'.join(path)} goes through "
                  f"`{module}`, which its section keeps inside: import from the façade "
                  f"(the section's mod.rs)", file=sys.stderr)
            failed = True
sys.exit(1 if failed else 0)
EOF
exit $status
