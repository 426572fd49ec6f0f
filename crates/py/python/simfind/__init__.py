"""simfind: find near-duplicate documents (shingling, MinHash, LSH, exact verification).

The Python face of the library behind the `simfind` command: the same shingles and
measures, so a value computed here is the one the command reports for the same texts
and options. The code is native (``simfind._simfind``); this package is its public name.
"""

from ._simfind import __version__, jaccard, shingles

__all__ = ["__version__", "jaccard", "shingles"]
