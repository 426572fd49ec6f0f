from typing import Iterable, List, Optional, Tuple, Union

__version__: str

def shingles(
    text: Union[str, bytes],
    *,
    shingle: str = "char",
    k: Optional[int] = None,
    max_length: Optional[int] = None,
) -> List[int]: ...
def jaccard(
    a: Union[str, bytes],
    b: Union[str, bytes],
    *,
    shingle: str = "char",
    k: Optional[int] = None,
    max_length: Optional[int] = None,
) -> Optional[float]: ...
def _pairs(
    texts: Iterable[Union[str, bytes]],
    *,
    shingle: str = "char",
    k: Optional[int] = None,
    threshold: Optional[float] = None,
    bands: Optional[int] = None,
    rows: Optional[int] = None,
    method: str = "auto",
    seed: Optional[int] = None,
    verify: str = "exact",
    cluster: str = "center",
    keep: str = "first",
    threads: Optional[int] = None,
    max_length: Optional[int] = None,
) -> Tuple[Tuple[bytes, bytes, bytes], Tuple[bytes, bytes], bytes]: ...
def _minhash(
    texts: Iterable[Union[str, bytes]],
    *,
    shingle: str = "char",
    k: Optional[int] = None,
    threshold: Optional[float] = None,
    bands: Optional[int] = None,
    rows: Optional[int] = None,
    seed: Optional[int] = None,
    sketch: Optional[str] = None,
    threads: Optional[int] = None,
    max_length: Optional[int] = None,
) -> Tuple[bytes, List[bool], Tuple[str, int, int, str, int, int]]: ...
def _ds_sign(
    sets: Iterable[Iterable[bytes]],
    scheme: str,
    a: bytes,
    b: bytes,
    num_perm: int,
    portable: bool = False,
) -> Optional[bytes]: ...
def _estimate(a: List[int], b: List[int], sketch: str, seed: int) -> float: ...

class _Index:
    def __init__(
        self,
        path: str,
        *,
        shingle: Optional[str] = None,
        k: Optional[int] = None,
        threshold: Optional[float] = None,
        bands: Optional[int] = None,
        rows: Optional[int] = None,
        seed: Optional[int] = None,
        sketch: Optional[str] = None,
        wait: float = 30.0,
    ) -> None: ...
    def __len__(self) -> int: ...
    def recipe(self) -> Tuple[str, int, int, int, int, str]: ...
    def insert(
        self, texts: List[Union[str, bytes]], ids: Optional[List[str]] = None
    ) -> List[str]: ...
    def query(
        self,
        text: Union[str, bytes],
        threshold: Optional[float] = None,
        top: Optional[int] = None,
        exact: bool = False,
    ) -> List[Tuple[str, float]]: ...
    def add_if_new(
        self,
        text: Union[str, bytes],
        id: Optional[str] = None,
        threshold: Optional[float] = None,
        exact: bool = False,
    ) -> Tuple[bool, str, Optional[str], Optional[float]]: ...
    def add_if_new_batch(
        self,
        texts: List[Union[str, bytes]],
        ids: Optional[List[str]] = None,
        threshold: Optional[float] = None,
        exact: bool = False,
    ) -> List[Tuple[bool, str, Optional[str], Optional[float]]]: ...
    def remove(self, ids: List[str]) -> None: ...
    def close(self) -> None: ...
