"""Every file a Python tool writes (CSV, JSON, Markdown, PNG) goes through here, so a tool run
as root cannot be made to overwrite another file: the rules of netprof's own --json
(src/options/output_file_safety.cpp), kept the same way.

- A symbolic link in a directory its group or others may write to is never followed: anyone who
  can write there could have planted it. A link in a directory only its owner writes is.
- An existing file owned by another user is never replaced, even by root.
- The file is written to a temporary beside it (created with O_EXCL | O_NOFOLLOW, mode 0644
  less the umask) and renamed over the name, so the name never points into someone else's
  file and a failure leaves the old file whole.

A refusal raises OutputRefused (an OSError, so tools that report "cannot write" say it in one
line); tools exit 2 for it: the path is the user's choice. Standard library only.
"""

import contextlib
import errno
import os
import stat

CREATION_MODE = 0o644


class OutputRefused(OSError):
    """Writing to that path was refused; str() is one line naming the path and why."""

    def __init__(self, path, why):
        super().__init__(errno.EPERM, why, path)
        self.path, self.why = path, why

    def __str__(self):
        return f"refusing to write {self.path}: {self.why}"


def refusal(path):
    """Why `path` must not be written, or None when it may."""
    try:
        entry = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError:
        return None  # the write itself will say why it cannot reach the path
    directory = os.path.dirname(path) or "."
    try:
        shared = os.stat(directory).st_mode & (stat.S_IWGRP | stat.S_IWOTH) != 0
    except OSError:
        shared = True
    if stat.S_ISLNK(entry.st_mode):
        if shared:
            return (f"it is a symbolic link in {directory}, a directory others may write to, so "
                    "anyone could have planted it; give a path that is not a link")
        return None
    if entry.st_uid != os.geteuid() and (stat.S_ISREG(entry.st_mode) or shared):
        return (f"it belongs to another user (uid {entry.st_uid}), and netprof's tools never "
                "replace another user's file")
    return None


def check(path):
    """Raises OutputRefused when `path` must not be written (before a long run writes it)."""
    why = refusal(path)
    if why is not None:
        raise OutputRefused(path, why)


def _write_target(path):
    """The path the rename should replace: a link we may follow is written through (it may be
    /dev/stdout), anything else is replaced by name."""
    check(path)
    if not os.path.islink(path):
        return path
    target = os.path.realpath(path)
    check(target)  # our own link may still lead into a shared directory
    return target


def _temporary_beside(target):
    directory = os.path.dirname(target) or "."
    base = os.path.basename(target)
    for attempt in range(100):
        temporary = os.path.join(directory, f".{base}.{os.getpid()}-{attempt}.tmp")
        try:
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                         | os.O_CLOEXEC, CREATION_MODE)
            return fd, temporary
        except FileExistsError:
            continue
    raise OSError(errno.EEXIST, "no free temporary name", os.path.join(directory, base))


def _replaceable(target):
    """False for what cannot be renamed over (a device, a FIFO): written in place instead."""
    try:
        return stat.S_ISREG(os.stat(target).st_mode)
    except FileNotFoundError:
        return True


@contextlib.contextmanager
def open_for_writing(path, mode="w", **open_arguments):
    """`with open_for_writing(path) as f:` as open(path, "w") would be, but refused as above and
    renamed into place only when the block succeeds."""
    target = _write_target(path)
    if not _replaceable(target):
        with open(target, mode, **open_arguments) as f:
            yield f
        return
    fd, temporary = _temporary_beside(target)
    try:
        with os.fdopen(fd, mode, **open_arguments) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        _keep_mode_of(target, temporary)
        os.rename(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _keep_mode_of(target, temporary):
    with contextlib.suppress(FileNotFoundError):
        os.chmod(temporary, stat.S_IMODE(os.lstat(target).st_mode))


def write_text(path, text):
    with open_for_writing(path) as f:
        f.write(text)


def save_figure(figure, path, **savefig_arguments):
    """matplotlib's savefig, through a temporary file renamed into place."""
    fmt = os.path.splitext(path)[1][1:] or None
    with open_for_writing(path, "wb") as f:
        figure.savefig(f, format=fmt, **savefig_arguments)


def append_text(path, text):
    """Adds `text` at the end of `path` (a tool's own log beside its results), refused as above
    and never through a link."""
    check(path)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC,
                 CREATION_MODE)
    with os.fdopen(fd, "a") as f:
        f.write(text)


def open_log(path):
    """A file object for a child's stdout or stderr (a log that grows while it runs, so it
    cannot be renamed into place): refused as above, opened without following a link."""
    check(path)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC,
                 CREATION_MODE)
    return os.fdopen(fd, "w")
