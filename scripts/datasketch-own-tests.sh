#!/usr/bin/env bash
# Runs datasketch's own test files for the classes simfind.datasketch replaces
# (test_minhash.py, test_lean_minhash.py, test_lsh.py, test_lshforest.py,
# test_lshensemble.py, test_weighted_minhash.py)
# against simfind.datasketch,
# without editing them: a copy of their test/ directory goes into a temporary
# directory beside a conftest.py that puts simfind.datasketch in sys.modules under
# datasketch's module names. Nothing of theirs enters this repository.
#
#   bash scripts/datasketch-own-tests.sh CHECKOUT [--against-datasketch] [PYTEST ARGS...]
#
# CHECKOUT: a datasketch source tree (the directory holding test/), e.g.
#   git clone https://github.com/ekzhu/datasketch ds-repo
#   mkdir ds && git -C ds-repo archive 8d4bda1 test | tar -x -C ds
#   bash scripts/datasketch-own-tests.sh ds
# --against-datasketch: no redirection, the installed datasketch package itself
# (the baseline: which of these tests the real package passes).
# PYTHON (default target/engines/venv/bin/python, from scripts/setup-engines.sh)
# must have simfind, numpy and pytest; mockredis, when absent, is a stand-in whose
# use raises NotImplementedError, so that the redis tests fail with that reason
# instead of the whole file failing to import.
# Run by hand (CI cannot reach GitHub); docs/PYTHON.md records the result.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
checkout="${1:?usage: datasketch-own-tests.sh CHECKOUT [--against-datasketch] [PYTEST ARGS...]}"
shift
mode=simfind
if [ "${1:-}" = "--against-datasketch" ]; then
    mode=datasketch
    shift
fi
if [ ! -f "$checkout/test/test_minhash.py" ]; then
    echo "datasketch-own-tests: $checkout/test/test_minhash.py not found: give a datasketch source tree" >&2
    exit 2
fi
python="${PYTHON:-$root/target/engines/venv/bin/python}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -r "$checkout/test" "$work/test"
cat >"$work/conftest.py" <<EOF
"""Redirects datasketch's module names to simfind.datasketch (mode: $mode)."""
import sys
import types

MODE = "$mode"


def stand_in(name, *attrs):
    """A module whose attributes raise NotImplementedError when used."""
    module = types.ModuleType(name)

    def missing(attr):
        def fail(*args, **kwargs):
            raise NotImplementedError(f"{name}.{attr} is not provided by simfind.datasketch")

        return fail

    for attr in attrs:
        setattr(module, attr, missing(attr))
    return module


try:
    import mockredis  # noqa: F401
except ImportError:
    sys.modules["mockredis"] = stand_in("mockredis", "mock_redis_client")

if MODE == "simfind":
    import simfind.datasketch as layer

    sys.modules["datasketch"] = layer
    for sub in (
        "minhash", "lean_minhash", "lsh", "lshforest", "lshensemble", "hashfunc", "b_bit_minhash",
        "weighted_minhash",
    ):
        sys.modules["datasketch." + sub] = layer
        setattr(layer, sub, layer)
EOF
cd "$work"
echo "datasketch-own-tests: $mode, $("$python" -c 'import simfind; print("simfind", simfind.__version__)'), python $("$python" -c 'import sys; print(sys.version.split()[0])')" >&2
status=0
PYTHONDONTWRITEBYTECODE=1 "$python" -m pytest -p no:cacheprovider -q -rfE \
    test/test_minhash.py test/test_lean_minhash.py test/test_lsh.py test/test_lshforest.py test/test_lshensemble.py \
    test/test_weighted_minhash.py "$@" || status=$?
exit "$status"
