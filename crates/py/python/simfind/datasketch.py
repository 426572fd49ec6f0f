"""A drop-in for datasketch 2.0's ``MinHash``, ``LeanMinHash``, ``MinHashLSH``,
``MinHashLSHForest``, ``MinHashLSHEnsemble``, ``bBitMinHash``,
``WeightedMinHash`` and ``WeightedMinHashGenerator``.

Change one import::

    from simfind.datasketch import MinHash, LeanMinHash, MinHashLSH

and the same code gives the same hash values, Jaccard estimates and LSH answers
as ``datasketch==2.0.0`` (crates/py/tests/test_datasketch.py compares them with
the installed package), with the default SHA-1 token hash done in Rust, whole
batches at a time and with the GIL released (``update_batch``, ``bulk``,
``generator``). A Python ``hashfunc`` still works: its values are permuted with
numpy, as datasketch does.

What is datasketch's (facts of its 2.0.0 release, reproduced, not its code):
the three permutation schemes ``"affine32"`` (the default), ``"affine64"`` and
``"legacy"`` (datasketch 1.x's values, bit for bit); permutation parameters
drawn from ``numpy.random.RandomState(seed)`` in datasketch's order; the
LeanMinHash byte format; LSH band keys (the band's values byte-swapped) and
the choice of bands and rows for a threshold (the false positive and negative
areas of the S-curve, weighted).

Not provided: GPU (``gpu_mode="always"`` raises as datasketch does without
CuPy; ``"detect"`` runs on the CPU), storages other than in-memory
(``storage_config`` must be None or ``{"type": "dict"}``), the LSH Bloom. The weighted and b-bit sketches are numpy, as datasketch's
are. docs/PYTHON.md says more.
"""

import functools
import hashlib
import pickle
import struct

import numpy as np

from ._simfind import _ds_sign

__all__ = [
    "LeanMinHash",
    "MinHash",
    "MinHashLSH",
    "MinHashLSHEnsemble",
    "MinHashLSHForest",
    "WeightedMinHash",
    "bBitMinHash",
    "WeightedMinHashGenerator",
    "sha1_hash32",
    "sha1_hash64",
]


def sha1_hash32(data):
    """The first 4 bytes of the SHA-1 digest of `data` (bytes), little-endian:
    datasketch's default token hash for the 32-bit schemes."""
    return int.from_bytes(hashlib.sha1(data).digest()[:4], "little")


def sha1_hash64(data):
    """The first 8 bytes of the SHA-1 digest of `data`, little-endian: the
    default token hash of ``scheme="affine64"``."""
    return int.from_bytes(hashlib.sha1(data).digest()[:8], "little")


_MERSENNE_61 = np.uint64((1 << 61) - 1)
_LOW32 = np.uint64((1 << 32) - 1)
_SCHEMES = ("affine32", "affine64", "legacy")
# Per scheme: the dtype of its values and its "empty" value (the largest it
# can produce, which every position starts at).
_DTYPE = {"legacy": np.uint64, "affine32": np.uint32, "affine64": np.uint64}
_EMPTY = {
    "legacy": np.uint64((1 << 32) - 1),
    "affine32": np.uint32((1 << 32) - 1),
    "affine64": np.uint64((1 << 64) - 1),
}
_WIDTH = {"affine32": 32, "affine64": 64}
# Permutations as bytes, by the id of the permutations object (held, so the
# id is not reused while cached). A few seeds in use at a time is the norm.
_PERM_BYTES = {}
# The scheme byte of the LeanMinHash format (legacy payloads have none).
_SCHEME_CODE = {"affine32": 1, "affine64": 2}
_VALUE_FORMAT = {"legacy": "I", "affine32": "I", "affine64": "Q"}


def _fmix(h, width):
    """MurmurHash3's finalizer on a numpy array of `width`-bit values
    (multiplications wrap at the width, as intended)."""
    t = np.uint32 if width == 32 else np.uint64
    if width == 32:
        shifts, mults = (16, 13, 16), (0x85EBCA6B, 0xC2B2AE35)
    else:
        shifts, mults = (33, 33, 33), (0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53)
    h = h ^ (h >> t(shifts[0]))
    h = h * t(mults[0])
    h = h ^ (h >> t(shifts[1]))
    h = h * t(mults[1])
    return h ^ (h >> t(shifts[2]))


def _is_sha1(hashfunc, scheme):
    """Whether `hashfunc` is the default SHA-1 hash of `scheme` (ours or
    datasketch's own), which the native kernel computes itself."""
    want = "sha1_hash64" if scheme == "affine64" else "sha1_hash32"
    if hashfunc is (sha1_hash64 if scheme == "affine64" else sha1_hash32):
        return True
    return (
        getattr(hashfunc, "__module__", None) == "datasketch.hashfunc"
        and getattr(hashfunc, "__name__", None) == want
    )


def _check_scheme(scheme):
    if scheme not in _SCHEMES:
        raise ValueError(f"scheme must be one of {', '.join(_SCHEMES)}, got {scheme!r}")


def _as_scheme_array(values, scheme, what):
    """`values` as an array of the scheme's dtype; a value out of its range is
    a ValueError (numpy would wrap or round it silently)."""
    dtype = _DTYPE[scheme]
    if isinstance(values, np.ndarray):
        if values.dtype.kind in "iu" and values.size:
            if int(values.min()) < 0 or int(values.max()) > int(_EMPTY[scheme]):
                raise ValueError(f"{what} out of range for scheme {scheme!r}")
        return values.astype(dtype)
    try:
        return np.array(values, dtype=dtype)
    except OverflowError as err:
        raise ValueError(f"{what} out of range for scheme {scheme!r}: {err}") from err


class MinHash:
    """MinHash of a set, datasketch 2.0's: the same constructor, attributes
    (``hashvalues``, ``permutations``, ``seed``, ``scheme``, ``hashfunc``) and
    methods, and the same values for the same tokens and seed."""

    def __init__(
        self,
        num_perm=128,
        seed=1,
        gpu_mode="disable",
        hashfunc=None,
        hashobj=None,
        hashvalues=None,
        permutations=None,
        scheme=None,
    ):
        if scheme is None:
            if hashvalues is not None or permutations is not None:
                # Values carry no mark of the scheme that made them.
                raise ValueError(
                    "scheme must be given with hashvalues or permutations: the scheme of "
                    "the MinHash they come from ('legacy' for datasketch 1.x values)"
                )
            scheme = "affine32"
        _check_scheme(scheme)
        self.scheme = scheme
        if hashvalues is not None:
            num_perm = len(hashvalues)
        if num_perm < 1:
            raise ValueError("num_perm must be positive")
        if num_perm > 1 << 32:
            raise ValueError(f"num_perm cannot exceed {1 << 32}")
        self.seed = seed
        self.num_perm = num_perm
        if hashfunc is None:
            hashfunc = sha1_hash64 if scheme == "affine64" else sha1_hash32
        if not callable(hashfunc):
            raise ValueError("hashfunc must be callable")
        self.hashfunc = hashfunc
        if hashobj is not None:
            import warnings

            warnings.warn("hashobj is deprecated, use hashfunc", DeprecationWarning, stacklevel=2)
        if hashvalues is not None:
            if scheme == "legacy":
                self.hashvalues = np.array(hashvalues, dtype=np.uint64)
            else:
                self.hashvalues = _as_scheme_array(hashvalues, scheme, "hash values")
        else:
            self.hashvalues = self._empty_values(num_perm)
        if permutations is not None:
            self.permutations = self._parse_permutations(permutations)
        else:
            self.permutations = self._draw_permutations(num_perm)
        if len(self) != len(self.permutations[0]):
            raise ValueError("the numbers of hash values and of permutations differ")
        if gpu_mode not in ("disable", "detect", "always"):
            raise ValueError(f"gpu_mode must be disable, detect or always, got {gpu_mode!r}")
        self._gpu_mode = gpu_mode

    def _empty_values(self, num_perm):
        return np.full(num_perm, _EMPTY[self.scheme], dtype=_DTYPE[self.scheme])

    def _draw_permutations(self, num_perm):
        """datasketch's permutation parameters for this seed and scheme: drawn
        from numpy's MT19937 in the same order, so the seed means the same."""
        rng = np.random.RandomState(self.seed)
        if self.scheme == "legacy":
            # Pairs (a, b), a in [1, p), b in [0, p), drawn a then b; stored
            # as the 2 x num_perm transpose.
            pairs = [
                (
                    rng.randint(1, _MERSENNE_61, dtype=np.uint64),
                    rng.randint(0, _MERSENNE_61, dtype=np.uint64),
                )
                for _ in range(num_perm)
            ]
            return np.array(pairs, dtype=np.uint64).T
        width, dtype = _WIDTH[self.scheme], _DTYPE[self.scheme]
        # All a's then all b's; a odd, so that a·h + b is a bijection.
        a = rng.randint(0, 1 << (width - 1), num_perm, dtype=dtype) * dtype(2) + dtype(1)
        b = rng.randint(0, 1 << width, num_perm, dtype=dtype)
        return np.array([a, b])

    def _parse_permutations(self, permutations):
        if self.scheme == "legacy":
            return permutations
        dtype = _DTYPE[self.scheme]
        if (
            isinstance(permutations, np.ndarray)
            and permutations.dtype == dtype
            and permutations.shape[:1] == (2,)
            and permutations.ndim == 2
        ):
            parsed = permutations  # shared, as copies and unions share it
        else:
            parsed = np.array(
                [
                    _as_scheme_array(permutations[0], self.scheme, "permutation parameters"),
                    _as_scheme_array(permutations[1], self.scheme, "permutation parameters"),
                ]
            )
        if np.any(parsed[0] & dtype(1) == 0):
            raise ValueError(f"every `a` permutation parameter must be odd for scheme {self.scheme!r}")
        return parsed

    # -- updating ---------------------------------------------------------

    def _perm_bytes(self):
        """The permutations as the native kernel takes them; converted once
        per permutations object (copies and bulk results share it)."""
        cached = _PERM_BYTES.get(id(self.permutations))
        if cached is not None and cached[0] is self.permutations:
            return cached[1]
        dtype = np.dtype(_DTYPE[self.scheme]).newbyteorder("<")
        a, b = self.permutations[0], self.permutations[1]
        converted = (
            np.ascontiguousarray(a, dtype=dtype).tobytes(),
            np.ascontiguousarray(b, dtype=dtype).tobytes(),
        )
        if len(_PERM_BYTES) > 64:
            _PERM_BYTES.clear()
        _PERM_BYTES[id(self.permutations)] = (self.permutations, converted)
        return converted

    def _native(self, sets):
        """The hash values of each token set in `sets` (a list of lists),
        from the native kernel, as a 2-D array; None when the kernel cannot
        (another hash function, a token that is not bytes)."""
        if not _is_sha1(self.hashfunc, self.scheme):
            return None
        a, b = self._perm_bytes()
        out = _ds_sign(sets, self.scheme, a, b, len(self))
        if out is None:
            return None
        dtype = np.dtype(_DTYPE[self.scheme]).newbyteorder("<")
        return np.frombuffer(out, dtype=dtype).astype(_DTYPE[self.scheme]).reshape(len(sets), len(self))

    def _permuted(self, hashes):
        """The permuted values of the token hashes `hashes` (a list of the
        hash function's ints), one row per token."""
        a, b = self.permutations[0], self.permutations[1]
        if self.scheme == "legacy":
            h = np.array(hashes, dtype=np.uint64).reshape(-1, 1)
            return ((h * a + b) % _MERSENNE_61) & _LOW32
        try:
            h = np.array(hashes, dtype=_DTYPE[self.scheme]).reshape(-1, 1)
        except OverflowError as err:
            raise ValueError(
                f"hashfunc returned a value out of range for scheme {self.scheme!r}: {err}"
            ) from err
        return _fmix(h, _WIDTH[self.scheme]) * a + b

    def _check_gpu(self):
        if self._gpu_mode == "always":
            raise RuntimeError("gpu_mode='always' needs CuPy and a CUDA device, which simfind does not use")

    def update(self, b):
        """Adds the token `b` (bytes with the default hash function)."""
        if isinstance(b, (bytes, bytearray)):
            values = self._native([[b]])
            if values is not None:
                self.hashvalues = np.minimum(self.hashvalues, values[0])
                return
        self.hashvalues = np.minimum(self.hashvalues, self._permuted([self.hashfunc(b)])[0])

    def update_batch(self, b):
        """Adds every token of the iterable `b`; nothing when one fails to hash."""
        tokens = b if isinstance(b, (list, tuple)) else list(b)
        self._check_gpu()
        if not len(tokens):
            return
        values = self._native([tokens])
        if values is not None:
            self.hashvalues = np.minimum(self.hashvalues, values[0])
            return
        hashes = [self.hashfunc(t) for t in tokens]
        self.hashvalues = np.minimum(self.hashvalues, self._permuted(hashes).min(axis=0))

    # -- measures ---------------------------------------------------------

    def _check_comparable(self, other, what):
        if getattr(other, "scheme", None) != self.scheme:
            raise ValueError(f"cannot {what} MinHash of different permutation schemes")
        if other.seed != self.seed:
            raise ValueError(f"cannot {what} MinHash of different seeds")
        if len(self) != len(other):
            raise ValueError(f"cannot {what} MinHash of different numbers of permutations")

    def jaccard(self, other):
        """The estimate of the Jaccard similarity: the fraction of equal values."""
        self._check_comparable(other, "compare")
        return float(np.count_nonzero(self.hashvalues == other.hashvalues)) / float(len(self))

    def count(self):
        """The estimate of the set's size: k / Σ(value / largest) − 1."""
        return float(len(self)) / np.sum(self.hashvalues / float(_EMPTY[self.scheme])) - 1.0

    def merge(self, other):
        """Makes this MinHash that of the union of both sets."""
        self._check_comparable(other, "merge")
        self.hashvalues = np.minimum(other.hashvalues, self.hashvalues)

    def digest(self):
        """A copy of the hash values."""
        return self.hashvalues.copy()

    def is_empty(self):
        return bool(np.all(self.hashvalues == _EMPTY[self.scheme]))

    def clear(self):
        self.hashvalues = self._empty_values(len(self))

    def copy(self):
        return MinHash(
            seed=self.seed,
            hashfunc=self.hashfunc,
            hashvalues=self.digest(),
            permutations=self.permutations,
            gpu_mode=self._gpu_mode,
            scheme=self.scheme,
        )

    def __len__(self):
        return len(self.hashvalues)

    def __eq__(self, other):
        return (
            type(self) is type(other)
            and self.scheme == other.scheme
            and self.seed == other.seed
            and np.array_equal(self.hashvalues, other.hashvalues)
        )

    __hash__ = None

    @classmethod
    def union(cls, *mhs):
        """The MinHash of the union of the sets of `mhs` (at least two)."""
        if len(mhs) < 2:
            raise ValueError("a union needs at least 2 MinHash")
        first = mhs[0]
        if any(m.seed != first.seed or len(m) != len(first) or m.scheme != first.scheme for m in mhs):
            raise ValueError("MinHash of a union must have the same seed, number of permutations and scheme")
        return cls(
            num_perm=len(first),
            seed=first.seed,
            hashfunc=first.hashfunc,
            hashvalues=np.minimum.reduce([m.hashvalues for m in mhs]),
            permutations=first.permutations,
            gpu_mode=first._gpu_mode,
            scheme=first.scheme,
        )

    @classmethod
    def bulk(cls, b, **minhash_kwargs):
        """One MinHash per token collection of `b`, built with `minhash_kwargs`."""
        return list(cls.generator(b, **minhash_kwargs))

    # Sets signed per native call by `generator`: large enough to keep both
    # cores busy, small enough that a generator stays lazy.
    _CHUNK = 4096

    @classmethod
    def generator(cls, b, **minhash_kwargs):
        """Yields one MinHash per token collection of `b`, lazily."""
        base = cls(**minhash_kwargs)
        chunk = []
        for tokens in b:
            chunk.append(tokens if isinstance(tokens, (list, tuple)) else list(tokens))
            if len(chunk) == cls._CHUNK:
                yield from base._sign_chunk(chunk)
                chunk = []
        if chunk:
            yield from base._sign_chunk(chunk)

    def _sign_chunk(self, chunk):
        self._check_gpu()
        values = self._native(chunk)
        if values is None:
            for tokens in chunk:
                m = self.copy()
                m.update_batch(tokens)
                yield m
            return
        for row in np.minimum(values, self.hashvalues):
            m = object.__new__(type(self))
            m.__dict__.update(self.__dict__)
            m.hashvalues = row.copy()
            yield m

    # -- pickling ---------------------------------------------------------

    def __setstate__(self, state):
        # A state without a scheme is from before schemes existed: legacy.
        state.setdefault("scheme", "legacy")
        state.setdefault("_gpu_mode", "disable")
        self.__dict__.update(state)


class LeanMinHash(MinHash):
    """A MinHash without its permutations and hash function: smaller, frozen
    (no `update`), serialisable to datasketch 2.0's byte format."""

    def _set(self, seed, hashvalues, scheme):
        _check_scheme(scheme)
        self.seed = seed
        self.scheme = scheme
        if scheme == "legacy":
            self.hashvalues = np.array(hashvalues, dtype=np.uint64)
        else:
            self.hashvalues = _as_scheme_array(hashvalues, scheme, "hash values")
            if len(self.hashvalues) == 0:
                raise ValueError("hashvalues must not be empty")

    def __init__(self, minhash=None, seed=None, hashvalues=None, scheme=None):
        if minhash is not None:
            if scheme is not None and scheme != minhash.scheme:
                raise ValueError(f"scheme {scheme!r} differs from the MinHash's {minhash.scheme!r}")
            self._set(minhash.seed, minhash.hashvalues, minhash.scheme)
        elif hashvalues is not None and seed is not None:
            if scheme is None:
                raise ValueError(
                    "scheme must be given with hashvalues: the scheme of the MinHash they "
                    "come from ('legacy' for datasketch 1.x values)"
                )
            self._set(seed, hashvalues, scheme)
        else:
            raise ValueError("give either minhash, or both seed and hashvalues")

    def update(self, b):
        raise TypeError("a LeanMinHash cannot be updated")

    def update_batch(self, b):
        raise TypeError("a LeanMinHash cannot be updated")

    def copy(self):
        lean = object.__new__(LeanMinHash)
        lean._set(self.seed, self.hashvalues, self.scheme)
        return lean

    def _format(self, byteorder):
        """The struct format of the serialised form: seed (q), size (i; negated
        for the 2.0 format), the scheme byte (2.0 format), the values."""
        if self.scheme == "legacy":
            return f"{byteorder}qi{len(self)}I"
        return f"{byteorder}qiB{len(self)}{_VALUE_FORMAT[self.scheme]}"

    def bytesize(self, byteorder="@"):
        return struct.calcsize(self._format(byteorder))

    def serialize(self, buf, byteorder="@"):
        if len(buf) < self.bytesize(byteorder):
            raise ValueError("the buffer is too small for this LeanMinHash")
        values = [int(v) for v in self.hashvalues]
        if self.scheme == "legacy":
            struct.pack_into(self._format(byteorder), buf, 0, self.seed, len(self), *values)
        else:
            struct.pack_into(
                self._format(byteorder), buf, 0, self.seed, -len(self), _SCHEME_CODE[self.scheme], *values
            )

    @classmethod
    def _unpack(cls, buf, byteorder):
        buf = memoryview(buf)
        head = f"{byteorder}qi"
        seed, size = struct.unpack_from(head, buf, 0)
        if size >= 0:
            scheme, offset = "legacy", struct.calcsize(head)
        else:
            size = -size
            (code,) = struct.unpack_from(byteorder + "B", buf, struct.calcsize(head))
            scheme = {c: s for s, c in _SCHEME_CODE.items()}.get(code)
            if scheme is None:
                raise ValueError(f"unknown permutation scheme code {code}")
            # The values are aligned after the scheme byte, as struct lays
            # them out in the native byte order.
            offset = struct.calcsize(f"{byteorder}qiB0{_VALUE_FORMAT[scheme]}")
        values = struct.unpack_from(f"{byteorder}{size}{_VALUE_FORMAT[scheme]}", buf, offset)
        return seed, values, scheme

    @classmethod
    def deserialize(cls, buf, byteorder="@"):
        lean = object.__new__(LeanMinHash)
        lean._set(*cls._unpack(buf, byteorder))
        return lean

    def __getstate__(self):
        buf = bytearray(self.bytesize())
        self.serialize(buf)
        return buf

    def __setstate__(self, buf):
        self._set(*self._unpack(buf, "@"))

    def __hash__(self):
        return hash((self.scheme, self.seed, tuple(self.hashvalues)))

    @classmethod
    def union(cls, *lmhs):
        if len(lmhs) < 2:
            raise ValueError("a union needs at least 2 MinHash")
        first = lmhs[0]
        if any(m.seed != first.seed or len(m) != len(first) or m.scheme != first.scheme for m in lmhs):
            raise ValueError("MinHash of a union must have the same seed, number of permutations and scheme")
        lean = object.__new__(LeanMinHash)
        lean._set(first.seed, np.minimum.reduce([m.hashvalues for m in lmhs]), first.scheme)
        return lean


class bBitMinHash:
    """The b lowest bits of each value of a MinHash (Li and König's b-bit
    MinHash), datasketch's: the same estimate and the same pickled bytes."""

    # The pickled form: seed, b, r, the number of values (negated, then a
    # scheme byte, for the 2.0 schemes), then the values packed into u64
    # blocks, each in a slot of the smallest power of two ≥ b bits, the
    # first value in a block's high bits.
    _HEAD = "<qBdi"

    def __init__(self, minhash, b=1, r=0.0):
        b, r = int(b), float(r)
        if b > 32 or b < 0:
            raise ValueError("b must be an integer in [0, 32]")
        if r > 1.0:
            raise ValueError("r must be a float in [0.0, 1.0]")
        self.hashvalues = np.bitwise_and(minhash.hashvalues, (1 << b) - 1).astype(np.uint32)
        self.seed = minhash.seed
        self.scheme = getattr(minhash, "scheme", "legacy")
        _check_scheme(self.scheme)
        self.b = b
        self.r = r

    def __eq__(self, other):
        return (
            type(self) is type(other)
            and self.scheme == other.scheme
            and self.seed == other.seed
            and self.b == other.b
            and self.r == other.r
            and np.array_equal(self.hashvalues, other.hashvalues)
        )

    __hash__ = None

    def jaccard(self, other):
        """The estimate, corrected for two minima agreeing on b bits by chance
        (Li and König; datasketch's constants, kept for equal answers)."""
        if self.b != other.b:
            raise ValueError("cannot compare b-bit MinHash of different b")
        if self.scheme != other.scheme:
            raise ValueError("cannot compare b-bit MinHash of different permutation schemes")
        if self.seed != other.seed:
            raise ValueError("cannot compare b-bit MinHash of different seeds")
        raw = float(np.count_nonzero(self.hashvalues == other.hashvalues)) / float(self.hashvalues.size)
        a1, a2 = self._a(self.r, self.b), self._a(other.r, other.b)
        if self.r == 0.0 and other.r == 0.0:
            c1, c2 = a1, a2
        else:
            # Multiplied by the inverse, as datasketch does: the same
            # rounding, so the same float.
            inverse = 1 / (self.r + other.r)
            c1 = (a1 * other.r + a2 * self.r) * inverse
            c2 = (a1 * self.r + a2 * other.r) * inverse
        return (raw - c1) / (1 - c2)

    @staticmethod
    def _a(r, b):
        if r == 0.0:
            return 1.0 / (1 << b)
        # datasketch's expression (its denominator's exponent is 2·b).
        return r * (1 - r) ** (2**b - 1) / (1 - (1 - r) ** (2 * b))

    def _layout(self):
        """(slot bits, slots per block, blocks, total bytes)."""
        slot = next(s for s in (1, 2, 4, 8, 16, 32) if self.b <= s)
        per_block = 64 // slot
        blocks = -(-self.hashvalues.size // per_block)
        head = self._HEAD + ("" if self.scheme == "legacy" else "B")
        return slot, per_block, blocks, struct.calcsize(f"{head}{blocks}Q")

    def bytesize(self):
        return self._layout()[-1]

    def __getstate__(self):
        slot, per_block, blocks, total = self._layout()
        padded = np.zeros(blocks * per_block, dtype=np.uint64)
        padded[: self.hashvalues.size] = self.hashvalues
        shifts = np.uint64(slot) * np.arange(per_block - 1, -1, -1, dtype=np.uint64)
        packed = np.bitwise_or.reduce(padded.reshape(blocks, per_block) << shifts, axis=1)
        buf = bytearray(total)
        if self.scheme == "legacy":
            struct.pack_into(f"{self._HEAD}{blocks}Q", buf, 0, self.seed, self.b, self.r, self.hashvalues.size, *map(int, packed))
        else:
            struct.pack_into(
                f"{self._HEAD}B{blocks}Q", buf, 0, self.seed, self.b, self.r, -self.hashvalues.size,
                _SCHEME_CODE[self.scheme], *map(int, packed),
            )
        return buf

    def __setstate__(self, buf):
        buf = memoryview(buf)
        self.seed, self.b, self.r, size = struct.unpack_from(self._HEAD, buf, 0)
        offset = struct.calcsize(self._HEAD)
        if size >= 0:
            self.scheme = "legacy"
        else:
            size = -size
            (code,) = struct.unpack_from("<B", buf, offset)
            self.scheme = {c: s for s, c in _SCHEME_CODE.items()}.get(code)
            if self.scheme is None:
                raise ValueError(f"unknown permutation scheme code {code}")
            offset += 1
        self.hashvalues = np.zeros(size, dtype=np.uint32)
        slot, per_block, blocks, _ = self._layout()
        packed = np.array(struct.unpack_from(f"{blocks}Q", buf, offset), dtype=np.uint64)
        shifts = np.uint64(slot) * np.arange(per_block - 1, -1, -1, dtype=np.uint64)
        mask = np.uint64((1 << slot) - 1)
        values = (packed[:, None] >> shifts) & mask
        self.hashvalues = values.reshape(-1)[:size].astype(np.uint32)


class WeightedMinHash:
    """The weighted MinHash of a vector (Ioffe's consistent weighted
    sampling), datasketch's: `hashvalues` is a (sample_size, 2) int array of
    (index, t) pairs; two vectors agree at a sample with probability their
    weighted Jaccard similarity."""

    def __init__(self, seed, hashvalues):
        self.seed = seed
        self.hashvalues = hashvalues

    def jaccard(self, other):
        if other.seed != self.seed:
            raise ValueError("cannot compare WeightedMinHash of different seeds")
        if len(self) != len(other):
            raise ValueError("cannot compare WeightedMinHash of different sizes")
        agree = np.all(np.asarray(self.hashvalues) == np.asarray(other.hashvalues), axis=1)
        return float(np.count_nonzero(agree)) / float(len(self))

    def digest(self):
        return self.hashvalues.copy()

    def copy(self):
        return WeightedMinHash(self.seed, self.digest())

    def __len__(self):
        return len(self.hashvalues)

    def __eq__(self, other):
        return type(self) is type(other) and self.seed == other.seed and np.array_equal(self.hashvalues, other.hashvalues)

    __hash__ = None


class WeightedMinHashGenerator:
    """Makes the WeightedMinHash of vectors of `dim` non-negative weights with
    datasketch's samples: r and c from Gamma(2, 1), β from U(0, 1), drawn from
    `numpy.random.RandomState(seed)` in datasketch's order (r, then ln c,
    then β), as float32."""

    def __init__(self, dim, sample_size=128, seed=1):
        self.dim = dim
        self.sample_size = sample_size
        self.seed = seed
        rng = np.random.RandomState(seed=seed)
        self.rs = rng.gamma(2, 1, (sample_size, dim)).astype(np.float32)
        self.ln_cs = np.log(rng.gamma(2, 1, (sample_size, dim))).astype(np.float32)
        self.betas = rng.uniform(0, 1, (sample_size, dim)).astype(np.float32)

    def minhash(self, v):
        """The WeightedMinHash of the vector `v` (not all zeros)."""
        if not hasattr(v, "__len__"):
            raise TypeError("the vector must be sized")
        if len(v) != self.dim:
            raise ValueError(f"the vector has {len(v)} dimensions, expected {self.dim}")
        v = np.array(v, dtype=np.float32)
        zero = v == 0
        if zero.all():
            raise ValueError("the vector is all zeros")
        # A zero weight is never sampled: NaN is skipped by nanargmin.
        v[zero] = np.nan
        log_v = np.log(v)
        # All samples at once (sample_size x dim), the same float32
        # operations, in the same order, as one sample at a time.
        t = np.floor(log_v / self.rs + self.betas)
        ln_a = self.ln_cs - (t - self.betas) * self.rs - self.rs
        k = np.nanargmin(ln_a, axis=1)
        values = np.zeros((self.sample_size, 2), dtype=int)
        values[:, 0] = k
        values[:, 1] = t[np.arange(self.sample_size), k].astype(int)
        return WeightedMinHash(self.seed, values)

    def minhash_many(self, X):
        """One WeightedMinHash per row of the 2-D array (or scipy sparse
        matrix) `X`; None for a row of zeros."""
        if hasattr(X, "toarray"):
            X = X.toarray()
        if not isinstance(X, np.ndarray):
            raise TypeError("X must be a numpy array or a scipy sparse matrix")
        if X.ndim != 2:
            raise ValueError("X must have two dimensions")
        if X.shape[1] != self.dim:
            raise ValueError(f"X has {X.shape[1]} columns, expected {self.dim}")
        return [self.minhash(row) if np.any(row != 0) else None for row in X]


# -- LSH ----------------------------------------------------------------------


def _area(f, lo, hi, degree):
    """∫ f over [lo, hi]: scipy's adaptive quadrature when scipy is there
    (what datasketch integrates with, so ties between (b, r) break the same
    way), else Gauss–Legendre with enough points to be exact for the S-curve
    polynomials of degree ≤ num_perm."""
    try:
        from scipy.integrate import quad
    except ImportError:
        quad = None
    if quad is not None:
        return quad(f, lo, hi)[0]
    x, w = _legendre(degree // 2 + 1)
    mid, half = (hi + lo) / 2.0, (hi - lo) / 2.0
    return half * float(np.sum(w * f(mid + half * x)))


@functools.lru_cache(maxsize=None)
def _legendre(n):
    return np.polynomial.legendre.leggauss(n)


@functools.lru_cache(maxsize=256)
def _optimal_param(threshold, num_perm, false_positive_weight, false_negative_weight):
    """The (bands, rows) with b·r ≤ num_perm minimising the weighted areas
    of false positives (the S-curve below the threshold) and false
    negatives (above it), scanned b then r, the first minimum kept."""
    best, choice = float("inf"), (0, 0)
    for b in range(1, num_perm + 1):
        for r in range(1, num_perm // b + 1):
            fp = _area(lambda s: 1 - (1 - s ** float(r)) ** float(b), 0.0, threshold, b * r)
            fn = _area(lambda s: (1 - s ** float(r)) ** float(b), threshold, 1.0, b * r)
            error = fp * false_positive_weight + fn * false_negative_weight
            if error < best:
                best, choice = error, (b, r)
    return choice


class _Table(dict):
    """A band's buckets: band key → set of keys (what datasketch's in-memory
    storage holds, with the methods its tests call)."""

    def get(self, key, default=None):
        return dict.get(self, key, set() if default is None else default)

    def insert(self, key, *vals, **_):
        self.setdefault(key, set()).update(vals)

    def remove_val(self, key, val, **_):
        self[key].discard(val)

    def remove(self, *keys, **_):
        for key in keys:
            del self[key]

    def size(self):
        return len(self)

    def itemcounts(self, **_):
        return {k: len(v) for k, v in self.items()}

    def has_key(self, key):
        return key in self


class _Keys(dict):
    """Key → its band keys, one per band."""

    def get(self, key, default=None):
        return dict.get(self, key, [] if default is None else default)

    def size(self):
        return len(self)

    def getmany(self, *keys):
        return [self.get(k) for k in keys]


class MinHashLSH:
    """datasketch 2.0's MinHashLSH over an in-memory store: the same banding
    for a threshold, the same band keys, the same query answers."""

    def __init__(
        self,
        threshold=0.9,
        num_perm=128,
        weights=(0.5, 0.5),
        params=None,
        storage_config=None,
        prepickle=None,
        hashfunc=None,
    ):
        if storage_config not in (None, {}) and storage_config.get("type") != "dict":
            raise ValueError(
                "simfind.datasketch.MinHashLSH keeps its tables in memory: storage_config "
                f"must be None or {{'type': 'dict'}}, got {storage_config!r}"
            )
        if threshold > 1.0 or threshold < 0.0:
            raise ValueError("threshold must be in [0.0, 1.0]")
        if num_perm < 2:
            raise ValueError("num_perm must be at least 2")
        if any(w < 0.0 or w > 1.0 for w in weights):
            raise ValueError("weights must be in [0.0, 1.0]")
        if sum(weights) != 1.0:
            raise ValueError("weights must sum to 1.0")
        self.h = num_perm
        if params is not None:
            self.b, self.r = params
            if self.b * self.r > num_perm:
                raise ValueError(
                    f"params b * r = {self.b} * {self.r} = {self.b * self.r} exceeds num_perm "
                    f"{num_perm} (did you forget num_perm?)"
                )
        else:
            self.b, self.r = _optimal_param(float(threshold), int(num_perm), float(weights[0]), float(weights[1]))
        if self.b < 2:
            raise ValueError("too few bands (b < 2)")
        self.prepickle = bool(prepickle)
        self.hashfunc = hashfunc
        self.hashtables = [_Table() for _ in range(self.b)]
        self.hashranges = [(i * self.r, (i + 1) * self.r) for i in range(self.b)]
        self.keys = _Keys()
        self._minhash_scheme = None
        self._query_buffer = []
        self._buffer_size = 50000

    @property
    def buffer_size(self):
        return self._buffer_size

    @buffer_size.setter
    def buffer_size(self, value):
        self._buffer_size = value

    def _H(self, hs):
        """The key of one band: its values byte-swapped (datasketch's)."""
        key = bytes(hs.byteswap().data)
        return self.hashfunc(key) if self.hashfunc else key

    def _band_keys(self, minhash):
        """The b band keys of `minhash`, cut from one byte-swapped copy."""
        if len(minhash) != self.h:
            raise ValueError(f"expected a MinHash of {self.h} values, got {len(minhash)}")
        values = np.asarray(minhash.hashvalues)
        raw = values.byteswap().tobytes()
        step = values.itemsize * self.r
        if values.ndim != 1:
            return [self._H(values[s:e]) for s, e in self.hashranges]
        keys = [raw[i * step : (i + 1) * step] for i in range(self.b)]
        if self.hashfunc:
            keys = [self.hashfunc(k) for k in keys]
        return keys

    def _scheme_of(self, minhash):
        scheme = getattr(minhash, "scheme", None)
        if scheme is not None and self._minhash_scheme is not None and scheme != self._minhash_scheme:
            raise ValueError(
                f"MinHash scheme {scheme!r} differs from the scheme {self._minhash_scheme!r} "
                "of the MinHash already given to this index"
            )
        return scheme if scheme is not None else self._minhash_scheme

    def insert(self, key, minhash, check_duplication=True):
        """Indexes `minhash` under `key`; a key already indexed is a ValueError
        (unless check_duplication=False)."""
        keys = self._band_keys(minhash)
        scheme = self._scheme_of(minhash)
        if self.prepickle:
            key = pickle.dumps(key)
        if check_duplication and key in self.keys:
            raise ValueError("the key is already in the index")
        self._minhash_scheme = scheme
        dict.setdefault(self.keys, key, []).extend(keys)
        for band, table in zip(keys, self.hashtables):
            table.insert(band, key)

    def insertion_session(self, buffer_size=50000):
        return _Session(self)

    def deletion_session(self, buffer_size=50000):
        return _Session(self)

    def query(self, minhash):
        """The keys sharing at least one band with `minhash` (a list, in no
        particular order)."""
        keys = self._band_keys(minhash)
        self._scheme_of(minhash)
        found = set()
        for band, table in zip(keys, self.hashtables):
            found.update(table.get(band))
        if self.prepickle:
            return [pickle.loads(k) for k in found]
        return list(found)

    def _query_b(self, minhash, b):
        """The keys sharing one of the first `b` bands with `minhash` (a set;
        what the LSH Ensemble asks each of its indexes)."""
        if b > len(self.hashtables):
            raise ValueError("b must be at most the number of bands")
        keys = self._band_keys(minhash)
        self._scheme_of(minhash)
        found = set()
        for band, table in zip(keys[:b], self.hashtables[:b]):
            found.update(table.get(band))
        if self.prepickle:
            return {pickle.loads(k) for k in found}
        return found

    def add_to_query_buffer(self, minhash):
        """Buffers a query; `collect_query_buffer` answers them together."""
        keys = self._band_keys(minhash)
        self._scheme_of(minhash)
        self._query_buffer.append(keys)

    def collect_query_buffer(self):
        """The keys that every buffered query found (the intersection of their
        answers), and empties the buffer."""
        buffered, self._query_buffer = self._query_buffer, []
        if not buffered:
            return []
        answers = []
        for keys in buffered:
            found = set()
            for band, table in zip(keys, self.hashtables):
                found.update(table.get(band))
            answers.append(found)
        common = set.intersection(*answers)
        if self.prepickle:
            return [pickle.loads(k) for k in common]
        return list(common)

    def __contains__(self, key):
        if self.prepickle:
            key = pickle.dumps(key)
        return key in self.keys

    def remove(self, key):
        """Forgets `key`; a key not indexed is a ValueError."""
        if self.prepickle:
            key = pickle.dumps(key)
        if key not in self.keys:
            raise ValueError("the key is not in the index")
        for band, table in zip(self.keys[key], self.hashtables):
            table.remove_val(band, key)
            if not table[band]:
                del table[band]
        del self.keys[key]

    def is_empty(self):
        return any(len(t) == 0 for t in self.hashtables)

    def merge(self, other, check_overlap=False):
        """Adds the keys of `other` (same num_perm, b and r) to this index."""
        if type(other) is not type(self):
            raise ValueError(f"cannot merge MinHashLSH and {type(other).__name__}")
        if (self.h, self.b, self.r) != (other.h, other.b, other.r):
            raise ValueError("cannot merge MinHashLSH of different parameters")
        if (
            self._minhash_scheme is not None
            and other._minhash_scheme is not None
            and self._minhash_scheme != other._minhash_scheme
        ):
            raise ValueError(
                f"cannot merge an index of scheme {other._minhash_scheme!r} into one of "
                f"{self._minhash_scheme!r}"
            )
        if check_overlap and set(self.keys) & set(other.keys):
            raise ValueError("the indexes share keys")
        if self._minhash_scheme is None:
            self._minhash_scheme = other._minhash_scheme
        for key, bands in other.keys.items():
            dict.setdefault(self.keys, key, []).extend(bands)
            for band, table in zip(bands, self.hashtables):
                table.insert(band, key)

    def get_counts(self):
        """Per band: bucket key → number of keys in it."""
        return [t.itemcounts() for t in self.hashtables]

    def get_subset_counts(self, *keys):
        """get_counts over the index of `keys` alone."""
        chosen = [pickle.dumps(k) for k in set(keys)] if self.prepickle else list(set(keys))
        tables = [_Table() for _ in range(self.b)]
        for key in chosen:
            for band, table in zip(self.keys[key], tables):
                table.insert(band, key)
        return [t.itemcounts() for t in tables]

    def __setstate__(self, state):
        state.setdefault("_query_buffer", [])
        self.__dict__.update(state)


class MinHashLSHForest:
    """datasketch 2.0's LSH Forest (Bawa et al.): `l` prefix trees over the
    MinHash's `l` bands of `k = num_perm // l` values, kept as sorted lists
    of band keys; `query(m, k)` takes the keys sharing the longest band
    prefixes with `m` until it has `k`, in datasketch's order (so the same
    keys). `index()` must be called after `add` and before `query`."""

    def __init__(self, num_perm=128, l=8):
        if l <= 0 or num_perm <= 0:
            raise ValueError("num_perm and l must be positive")
        if l > num_perm:
            raise ValueError("l cannot be greater than num_perm")
        self.l = l
        self.k = int(num_perm / l)
        self.hashtables = [{} for _ in range(self.l)]
        self.hashranges = [(i * self.k, (i + 1) * self.k) for i in range(self.l)]
        self.keys = {}
        self.sorted_hashtables = [[] for _ in range(self.l)]
        self._minhash_scheme = None

    def _H(self, hs):
        return bytes(hs.byteswap().data)

    def _check(self, minhash):
        if len(minhash) < self.k * self.l:
            raise ValueError(f"a MinHash of {len(minhash)} values is too short for {self.l} trees of {self.k}")
        scheme = getattr(minhash, "scheme", None)
        if scheme is not None and self._minhash_scheme is not None and scheme != self._minhash_scheme:
            raise ValueError(
                f"MinHash scheme {scheme!r} differs from the scheme {self._minhash_scheme!r} "
                "of the MinHash already given to this forest"
            )
        return scheme if scheme is not None else self._minhash_scheme

    def add(self, key, minhash):
        """Adds `minhash` under `key` (searchable after `index()`)."""
        scheme = self._check(minhash)
        if key in self.keys:
            raise ValueError("the key is already in the forest")
        self._minhash_scheme = scheme
        bands = [self._H(minhash.hashvalues[s:e]) for s, e in self.hashranges]
        self.keys[key] = bands
        for band, table in zip(bands, self.hashtables):
            table.setdefault(band, []).append(key)

    def index(self):
        """Sorts the trees: what `add` added since becomes searchable."""
        for i, table in enumerate(self.hashtables):
            self.sorted_hashtables[i] = sorted(table)

    def _prefix_matches(self, minhash, r):
        """The keys whose band shares its first `r` values with `minhash`'s,
        tree by tree, in key order within a tree."""
        import bisect

        for (start, _), tree, table in zip(self.hashranges, self.sorted_hashtables, self.hashtables):
            prefix = self._H(minhash.hashvalues[start : start + r])
            # Keys of one length: the first key ≥ the prefix starts the run
            # of keys that have it.
            i = bisect.bisect_left(tree, prefix)
            while i < len(tree) and tree[i].startswith(prefix):
                yield from table[tree[i]]
                i += 1

    def query(self, minhash, k):
        """Up to `k` keys, those sharing the longest prefixes first."""
        if k <= 0:
            raise ValueError("k must be positive")
        self._check(minhash)
        found = set()
        for r in range(self.k, 0, -1):
            for key in self._prefix_matches(minhash, r):
                found.add(key)
                if len(found) >= k:
                    return list(found)
        return list(found)

    def get_minhash_hashvalues(self, key):
        """The hash values stored for `key` (those its bands hold)."""
        bands = self.keys.get(key)
        if bands is None:
            raise KeyError(f"the key is not in the forest: {key}")
        width, rest = divmod(len(bands[0]), self.k)
        if rest or width not in (4, 8) or any(len(b) != len(bands[0]) for b in bands):
            raise ValueError("the stored bands are not values of 4 or 8 bytes")
        dtype = np.dtype(np.uint32 if width == 4 else np.uint64).newbyteorder(">")
        return np.frombuffer(b"".join(bands), dtype=dtype).astype(dtype.newbyteorder("="))

    def is_empty(self):
        return any(len(t) == 0 for t in self.sorted_hashtables)

    def __contains__(self, key):
        return key in self.keys


def _containment_param(threshold, num_perm, max_r, xq, fp_weight, fn_weight):
    """The (b, r), r ≤ max_r and b·r ≤ num_perm, minimising the weighted false
    positive and negative areas of LSH Ensemble's containment S-curve for a
    size ratio xq = |X| / |Q| (Zhu et al.), scanned b then r, the first
    minimum kept: datasketch's choice."""

    def curve(b, r):
        return lambda t: 1 - (1 - (t / (1 + xq - t)) ** float(r)) ** float(b)

    best, choice = float("inf"), (0, 0)
    for b in range(1, num_perm + 1):
        for r in range(1, max_r + 1):
            if b * r > num_perm:
                continue
            p = curve(b, r)
            fp = _area(p, 0.0, threshold if xq >= threshold else xq, 2 * num_perm)
            if xq >= 1.0:
                fn = _area(lambda t: 1 - p(t), threshold, 1.0, 2 * num_perm)
            elif xq >= threshold:
                fn = _area(lambda t: 1 - p(t), threshold, xq, 2 * num_perm)
            else:
                fn = 0.0
            error = fp * fp_weight + fn * fn_weight
            if error < best:
                best, choice = error, (b, r)
    return choice


def _size_partitions(sizes, counts, num_part):
    """The `num_part` ranges of set sizes (lower, upper) minimising the
    expected false positives of a containment query (Zhu et al.'s optimal
    partitioning, dynamic programming over the distinct sizes, ties to the
    smaller split), as datasketch partitions."""
    if num_part < 2:
        return [(sizes[0], sizes[-1])]
    n = len(sizes)
    if num_part >= n:
        return [(x, x) for x in sizes]
    # Expected false positives of a partition [l, u]: every set in it is
    # counted as if its size were the upper bound.
    nfp = np.zeros((n, n))
    for lo in range(n):
        for hi in range(lo, n):
            nfp[lo, hi] = np.sum((float(sizes[hi]) - sizes[lo : hi + 1]) / float(sizes[hi]) * counts[lo : hi + 1])
    if num_part == 2:
        _, u = min((nfp[0, u1] + nfp[u1 + 1, n - 1], u1) for u1 in range(n - 1))
        return [(sizes[0], sizes[u]), (sizes[u + 1], sizes[-1])]
    # cost[u, p]: the least false positives of sizes[0..=u] in p parts.
    # Entries the recurrence never fills stay 0, and the backtracking below
    # reads some of them (u < p − 1), as datasketch's does: kept, so that
    # the partitions are datasketch's.
    cost = np.zeros((n, num_part))
    for p in range(2, num_part):
        for u in range(p - 1, n):
            if p == 2:
                cost[u, p] = min(nfp[0, u1] + nfp[u1 + 1, u] for u1 in range(u))
            else:
                cost[u, p] = min(cost[u1, p - 1] + nfp[u1 + 1, u] for u1 in range(p - 2, u))
    p = num_part
    _, u = min((cost[u1, p - 1] + nfp[u1 + 1, n - 1], u1) for u1 in range(p - 2, n - 1))
    parts = [(sizes[u + 1], sizes[-1])]
    p -= 1
    while p > 1:
        _, u1 = min((cost[v, p] + nfp[v + 1, u], v) for v in range(p - 2, u))
        parts.insert(0, (sizes[u1 + 1], sizes[u]))
        u, p = u1, p - 1
    parts.insert(0, (sizes[0], sizes[u]))
    return parts


class MinHashLSHEnsemble:
    """datasketch 2.0's LSH Ensemble (Zhu et al., 2016): containment queries
    ("which indexed sets hold most of Q?") over sets partitioned by size,
    each partition a set of MinHashLSH indexes of r rows; a query picks, per
    partition, the (b, r) tuned for its size ratio. The same partitions,
    parameters and answers as datasketch's."""

    def __init__(self, threshold=0.9, num_perm=128, num_part=16, m=8, weights=(0.5, 0.5), storage_config=None, prepickle=None):
        if threshold > 1.0 or threshold < 0.0:
            raise ValueError("threshold must be in [0.0, 1.0]")
        if num_perm < 2:
            raise ValueError("num_perm must be at least 2")
        if num_part < 1:
            raise ValueError("num_part must be at least 1")
        if m < 2 or m > num_perm:
            raise ValueError("m must be in [2, num_perm]")
        if any(w < 0.0 or w > 1.0 for w in weights):
            raise ValueError("weights must be in [0.0, 1.0]")
        if sum(weights) != 1.0:
            raise ValueError("weights must sum to 1.0")
        self.threshold = threshold
        self.h = num_perm
        self.m = m
        # The size ratios the parameters are tuned at: e^-5 … e^5.
        self.xqs = np.exp(np.linspace(-5, 5, 10))
        self.params = np.array(
            [_containment_param(threshold, num_perm, m, xq, weights[0], weights[1]) for xq in self.xqs], dtype=int
        )
        rs = {int(r) for _, r in self.params}
        self.indexes = [
            {
                r: MinHashLSH(num_perm=self.h, params=(int(self.h / r), r), storage_config=storage_config, prepickle=prepickle)
                for r in rs
            }
            for _ in range(num_part)
        ]
        self.lowers = [None] * num_part
        self.uppers = [None] * num_part

    def _param_for(self, x, q):
        i = np.searchsorted(self.xqs, float(x) / float(q), side="left")
        return self.params[min(i, len(self.params) - 1)]

    def index(self, entries):
        """Indexes `entries`, (key, minhash, size) triples, once."""
        if not self.is_empty():
            raise ValueError("an ensemble is indexed once: this one is not empty")
        entries = list(entries)
        for _, _, size in entries:
            if size <= 0:
                raise ValueError("set sizes must be positive")
        if not entries:
            raise ValueError("entries is empty")
        tally = {}
        for _, _, size in entries:
            tally[size] = tally.get(size, 0) + 1
        sizes = np.array(sorted(tally))
        counts = np.array([tally[x] for x in sizes])
        for i, (lower, upper) in enumerate(_size_partitions(sizes, counts, len(self.indexes))):
            self.lowers[i], self.uppers[i] = lower, upper
        entries.sort(key=lambda e: e[2])
        part = 0
        for key, minhash, size in entries:
            # As datasketch steps: one partition on at most per entry.
            if size > self.uppers[part]:
                part += 1
            for lsh in self.indexes[part].values():
                lsh.insert(key, minhash)

    def query(self, minhash, size):
        """Yields the keys of the indexed sets that may contain at least
        `threshold` of the query set (of `size` elements)."""
        for index, upper in zip(self.indexes, self.uppers):
            if upper is None:
                continue
            b, r = self._param_for(upper, size)
            yield from index[int(r)]._query_b(minhash, int(b))

    def __contains__(self, key):
        return any(key in lsh for index in self.indexes for lsh in index.values())

    def is_empty(self):
        return all(lsh.is_empty() for index in self.indexes for lsh in index.values())


class _Session:
    """datasketch's insertion and deletion sessions: in memory there is
    nothing to buffer, so each call goes straight to the index."""

    def __init__(self, lsh):
        self.lsh = lsh

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        pass

    def insert(self, key, minhash, check_duplication=True):
        self.lsh.insert(key, minhash, check_duplication=check_duplication)

    def remove(self, key):
        self.lsh.remove(key)
