#!/usr/bin/env python3
"""A read-only FUSE pass-through file system that waits DELAY_MS on every open
and every read: a stand-in for a network share (NFS, SMB), where each request
waits a round trip and many requests can be in flight at once (FUSE serves them
on several threads). For bench/slow_share.sh.

  slowfs.py SOURCE_DIR MOUNT_POINT DELAY_MS
"""
import os
import sys
import time

from fuse import FUSE, Operations


class Slow(Operations):
    def __init__(self, root, delay_ms):
        self.root = root
        self.delay = delay_ms / 1000.0

    def _path(self, path):
        return os.path.join(self.root, path.lstrip("/"))

    def getattr(self, path, fh=None):
        st = os.lstat(self._path(path))
        keys = ("st_atime", "st_ctime", "st_gid", "st_mode", "st_mtime",
                "st_nlink", "st_size", "st_uid", "st_ino")
        return {k: getattr(st, k) for k in keys}

    def readdir(self, path, fh):
        return [".", ".."] + os.listdir(self._path(path))

    def open(self, path, flags):
        time.sleep(self.delay)
        return os.open(self._path(path), os.O_RDONLY)

    def read(self, path, size, offset, fh):
        time.sleep(self.delay)
        return os.pread(fh, size, offset)

    def release(self, path, fh):
        os.close(fh)


if __name__ == "__main__":
    FUSE(Slow(sys.argv[1], float(sys.argv[3])), sys.argv[2],
         foreground=True, nothreads=False, ro=True)
