"""What a batch knows of a session's transcript without reading it again.

A batch decides whether a finished session is unchanged by the digest of its inputs, the
transcript's among them. Reading every transcript of a campaign again to digest it would
make each rerun read the whole campaign; so each line of ``batch.jsonl`` keeps what the
batch saw of its transcript (``transcript_seen``: its size, modification time in
nanoseconds and inode, and its digest), and a rerun reuses that digest when a regular
file's size, modification time and inode are unchanged (the quick check of make and
rsync): the transcript is not opened. Any other file (a FIFO), or a changed one, is read
and digested again.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import msgspec

from streamer.api.work_folder import file_digest


class TranscriptSeen(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A regular transcript file as a batch last saw it, and its digest then."""

    size: int
    mtime_ns: int
    inode: int
    digest: str


def transcript_digest(
    path: Path, before: TranscriptSeen | None
) -> tuple[str, TranscriptSeen | None]:
    """The digest of the transcript at ``path`` and what was seen of it (``None``: not a
    regular file); ``before``'s digest, without reading the file, when it is unchanged
    since."""
    try:
        status = os.stat(path)
    except OSError:
        return file_digest(path), None  # raises as it always did
    if not stat.S_ISREG(status.st_mode):
        return file_digest(path), None
    now = (status.st_size, status.st_mtime_ns, status.st_ino)
    if before is not None and now == (before.size, before.mtime_ns, before.inode):
        return before.digest, before
    digest = file_digest(path)  # after the stat: a change while it is read shows next time
    return digest, TranscriptSeen(*now, digest)
