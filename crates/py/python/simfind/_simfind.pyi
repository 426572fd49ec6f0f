from typing import List, Optional, Union

__version__: str

def shingles(
    text: Union[str, bytes], *, shingle: str = "char", k: Optional[int] = None
) -> List[int]: ...
def jaccard(
    a: Union[str, bytes],
    b: Union[str, bytes],
    *,
    shingle: str = "char",
    k: Optional[int] = None,
) -> Optional[float]: ...
