#!/usr/bin/env bash
# Installs what the engine tests need, beside the build and never by hand:
#   - a Python venv at target/engines/venv with scripts/engines-requirements.txt
#     (pyspark, duckdb, pyarrow, ...: the engines simfind's exchange files meet);
#   - the `simfind` Python package (crates/py), built into a wheel by maturin
#     (from that venv) and installed into the venv (tests/engines/python.rs
#     runs its pytest files, crates/py/tests);
#   - Debian's chromium (the HTML report's browser test), when apt-get can;
#   - the document producers the extraction tests of issue 34 use
#     (pandoc, libreoffice-writer-nogui, poppler-utils, qpdf), when apt-get can:
#     real files by real producers, not hand-made fakes; then the documents
#     themselves (scripts/make-documents.sh, into target/engines/documents).
# Idempotent: a second run with nothing changed takes a second. build.rs reads
# target/engines/ to mark the engine tests ignored (with the reason) where a
# piece is missing, so plain `cargo test` still passes and says what it skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD/target/engines"
mkdir -p "$root"

req=scripts/engines-requirements.txt
venv="$root/venv"
stamp="$root/requirements.installed"
if ! cmp -s "$req" "$stamp" 2>/dev/null || [ ! -x "$venv/bin/python" ]; then
    echo "setup-engines: Python venv at $venv" >&2
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
    if grep -qv '^\s*\(#\|$\)' "$req"; then
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req"
    fi
    cp "$req" "$stamp"
fi

chromium=""
for c in chromium chromium-browser; do
    if command -v "$c" >/dev/null 2>&1; then chromium="$(command -v "$c")"; break; fi
done
if [ -z "$chromium" ]; then
    sudo=""
    [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && sudo="sudo"
    if [ "$(id -u)" -eq 0 ] || [ -n "$sudo" ]; then
        echo "setup-engines: installing Debian's chromium" >&2
        $sudo apt-get update -qq >/dev/null
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
        chromium="$(command -v chromium || true)"
    else
        echo "setup-engines: chromium missing and apt-get needs root: the browser tests will be skipped" >&2
    fi
fi
if [ -n "$chromium" ]; then
    ln -sf "$chromium" "$root/chromium"
fi
docs_missing=""
for tool in pandoc soffice pdftotext qpdf; do
    command -v "$tool" >/dev/null 2>&1 || docs_missing="$docs_missing $tool"
done
if [ -n "$docs_missing" ]; then
    sudo=""
    [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && sudo="sudo"
    if [ "$(id -u)" -eq 0 ] || [ -n "$sudo" ]; then
        echo "setup-engines: installing the document producers (missing:$docs_missing)" >&2
        $sudo apt-get update -qq >/dev/null
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
            pandoc libreoffice-writer-nogui poppler-utils qpdf >/dev/null
    else
        echo "setup-engines: document producers missing ($docs_missing ) and apt-get needs root: the extraction tests will be skipped" >&2
    fi
fi
# The extraction tests' documents, made by the producers above (a few
# seconds; remade when the script changes).
if command -v pandoc >/dev/null 2>&1 && command -v soffice >/dev/null 2>&1 && command -v qpdf >/dev/null 2>&1; then
    docs_stamp="$root/documents/.script.sha256"
    want=$(sha256sum scripts/make-documents.sh | cut -d' ' -f1)
    if [ ! -f "$root/documents/.done" ] || [ "$(cat "$docs_stamp" 2>/dev/null)" != "$want" ]; then
        bash scripts/make-documents.sh "$root/documents"
        echo "$want" > "$docs_stamp"
    fi
fi
# The Python package comes last: when scripts/test.sh builds the tests at
# the same time, maturin waits for that build and then compiles only the
# Python crate. It is rebuilt only when what the wheel is made of changed:
# the crates, the workspace manifest and lock (profiles, versions), build/
# (shared by the build scripts) and this script. The stamp holds their hash,
# and goes away while a rebuild runs, so that a failed one leaves no stale
# marker behind. The wheel is built with the tests' profile (no LTO, many
# codegen units), which builds much sooner on two cores than the release
# profile; a wheel to distribute is `maturin build --release`
# (crates/py/README.md).
package_stamp="$root/python-package.installed"
package_state="$(
    {
        find crates build -type f ! -name '*.so' ! -path '*/__pycache__/*' -print0 \
            | sort -z | xargs -0 sha256sum
        sha256sum Cargo.toml Cargo.lock scripts/setup-engines.sh
        "$venv/bin/python" --version
    } | sha256sum | cut -d' ' -f1
)"
if [ "$(cat "$package_stamp" 2>/dev/null)" != "$package_state" ]; then
    echo "setup-engines: building the Python package (crates/py) with maturin" >&2
    rm -f "$package_stamp"
    wheels="$root/wheels"
    rm -rf "$wheels"
    started=$SECONDS
    "$venv/bin/maturin" build --profile release-tests -m crates/py/Cargo.toml \
        --interpreter "$venv/bin/python" --out "$wheels"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
        --no-deps --force-reinstall "$wheels"/simfind-*.whl
    echo "setup-engines: Python package built and installed in $((SECONDS - started)) s" >&2
    echo "$package_state" >"$package_stamp"
fi

echo "setup-engines: python $("$venv/bin/python" --version 2>&1) with simfind $("$venv/bin/python" -c 'import simfind; print(simfind.__version__)'), chromium ${chromium:-absent}" >&2
