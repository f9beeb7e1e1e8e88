"""A rebuild writes over the previous site's files instead of deleting and creating them again
(pipeline step 4, around MkDocs' own build; issue 47).

MkDocs starts every clean build by deleting the whole site folder (``utils.clean_directory``),
then creates every file afresh. At 1,000 algorithms that is about 13,000 files deleted and
13,000 created. Creating a file right after thousands were deleted is slow on ext4 without a
journal (as on this project's build machines): the inode allocator steps over every recently
deleted inode (``find_inode_bit`` → ``recently_deleted``), which a profile put at 13% of a
rebuild's CPU; writing into an existing file allocates no inode at all. Measured on the build
machine, 13,000 small files: deleted and created again 6.3–8.6 s, written over 1.6 s.

So a rebuild keeps the previous site's files for MkDocs to write over, and removes afterwards
only the files the new build did not write:

1. ``hold`` (``on_pre_build``): the site folder's visible entries move into one hidden folder
   inside it (``HOLD``), which MkDocs' clean leaves alone (it never deletes hidden entries);
2. ``restore`` (``on_files``, after the clean): they move back, and every file's inode and
   change time (``st_ctime_ns``) is noted (``Previous``);
3. ``prune`` (last ``on_post_build``, and ``on_build_error``): a file whose inode and change
   time are both as noted was not written by this build, and is deleted, as MkDocs' clean would
   have deleted it; folders left empty go too.

Any write changes a file's change time, and a file replaced by another has another inode, so
the site after ``prune`` holds exactly the files this build wrote, as after MkDocs' clean. A
file with other hard links (a chart image linked from the image cache, whose change time any
link's write moves) is unlinked at ``restore``: its writer replaces the link anyway.
A ``--dirty`` build keeps files it does not rebuild on purpose, so it is left to MkDocs
(``Rebuild.enabled``); so is a build that MkDocs' command line did not start (``on_startup``
never ran), which keeps MkDocs' clean.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

HOLD = ".tn-previous-build"
"""The hidden folder the previous site waits in while MkDocs cleans (``clean_directory`` skips
names starting with a dot)."""


@dataclass
class Previous:
    """The previous build's files as they were restored: path → (inode, change time)."""

    stamps: dict[str, tuple[int, int]] = field(default_factory=dict)


def _visible(folder: Path) -> list[str]:
    return sorted(name for name in os.listdir(folder) if not name.startswith("."))


def hold(site_dir: Path) -> None:
    """Move the site folder's visible entries into ``HOLD`` inside it (an earlier, interrupted
    build's ``HOLD`` is deleted first: its files were never restored)."""
    held = site_dir / HOLD
    shutil.rmtree(held, ignore_errors=True)
    if not site_dir.is_dir():
        return
    names = _visible(site_dir)
    if not names:
        return
    held.mkdir()
    for name in names:
        os.rename(site_dir / name, held / name)


def _stamp_tree(root: Path, prefix: str, stamps: dict[str, tuple[int, int]]) -> None:
    with os.scandir(root) as entries:
        for entry in entries:
            rel = prefix + entry.name
            if entry.is_dir(follow_symlinks=False):
                _stamp_tree(Path(entry.path), rel + "/", stamps)
            else:
                _stamp(Path(entry.path), rel, stamps)


def _stamp(path: Path, rel: str, stamps: dict[str, tuple[int, int]]) -> None:
    """Note a restored file; one with other links (a chart image linked from the image cache)
    is unlinked at once instead: another link's write would change its change time too, and
    its writer replaces the link anyway (``ImageCache.place``), so no inode is saved."""
    st = path.lstat()
    if st.st_nlink > 1:
        path.unlink()
    else:
        stamps[rel] = (st.st_ino, st.st_ctime_ns)


_RESTORED: list[tuple[Path, Previous]] = []
"""The running build's site folder and restored files (empty outside ``restore``…``prune``)."""


def left_over(path: Path) -> bool:
    """Whether ``path`` is a previous build's file this build has not written (so far): the
    post-build passes that walk the site (``csp.add_policies``, ``themefiles``) skip it, as it
    would not exist after MkDocs' clean, and ``prune`` deletes it."""
    for site_dir, previous in _RESTORED:
        try:
            stamp = previous.stamps.get(path.relative_to(site_dir).as_posix())
        except ValueError:
            continue
        if stamp is not None:
            st = path.lstat()
            return (st.st_ino, st.st_ctime_ns) == stamp
    return False


def restore(site_dir: Path) -> Previous:
    """Move the held entries back into the (now cleaned) site folder and note every file's
    inode and change time; an entry the clean left in place (a hidden one) stays as it is."""
    held = site_dir / HOLD
    previous = Previous()
    if not held.is_dir():
        return previous
    for name in _visible(held):
        target = site_dir / name
        if target.exists():  # something wrote here between the clean and now: keep it
            continue
        os.rename(held / name, target)
        if target.is_dir() and not target.is_symlink():
            _stamp_tree(target, name + "/", previous.stamps)
        else:
            _stamp(target, name, previous.stamps)
    shutil.rmtree(held, ignore_errors=True)
    _RESTORED[:] = [(site_dir, previous)]
    return previous


def prune(site_dir: Path, previous: Previous) -> int:
    """Delete the restored files this build did not write, then the folders left empty;
    returns how many files went."""
    _RESTORED.clear()
    gone = 0
    folders: set[Path] = set()
    for rel, stamp in previous.stamps.items():
        path = site_dir / rel
        try:
            st = path.lstat()
        except FileNotFoundError:
            continue
        if (st.st_ino, st.st_ctime_ns) == stamp:
            path.unlink()
            gone += 1
            folders.add(path.parent)
    for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
        _remove_empty(folder, site_dir)
    return gone


def _remove_empty(folder: Path, site_dir: Path) -> None:
    while folder != site_dir and folder.is_relative_to(site_dir):
        try:
            folder.rmdir()
        except OSError:  # not empty (or gone already)
            return
        folder = folder.parent


def write_over(path: str, data: bytes) -> None:
    """Make the file at ``path`` hold ``data``: written over as before, except that a file
    already holding exactly these bytes (a rebuild's unchanged output) is not written again,
    only its times are set (``os.utime``), which moves its change time as a write would, so
    ``prune`` keeps it.

    Issue 47: at 1,000 algorithms a rebuild writes about 9,500 output files, almost all of
    them byte for byte what the last build wrote seconds before, whose pages the kernel is
    still writing back; truncating such a file waits for that. Measured over those files,
    written over 0.36-1.26 s wall, read and compared instead 0.12 s."""
    try:
        with open(path, "rb") as held:
            same = held.read(len(data) + 1) == data
    except OSError:  # no file there yet (or not a readable file): write it
        same = False
    if same:
        os.utime(path)
        return
    view = memoryview(data)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    try:
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def drop_others(root: str, keep: set[str]) -> None:
    """Delete every file under the folder ``root`` not in ``keep`` (absolute paths) and every
    folder that leaves empty; a folder where ``keep`` needs a file goes too (an output that
    writes its files over an earlier build's: ``api.files.write_api``)."""
    if not os.path.isdir(root):
        return
    for folder, dirs, names in os.walk(root, topdown=False):
        for name in names:
            path = os.path.join(folder, name)
            if path not in keep:
                os.unlink(path)
        for name in dirs:
            path = os.path.join(folder, name)
            if path in keep:
                shutil.rmtree(path)
            elif not os.listdir(path):
                os.rmdir(path)


@dataclass
class Rebuild:
    """One process's state: whether builds write in place, and the running build's site
    folder and ``Previous``."""

    enabled: bool = False
    site_dir: Path | None = None
    previous: Previous | None = None

    def start(self, command: str, dirty: bool) -> None:
        """``on_startup``: MkDocs' ``build``, ``serve`` and ``gh-deploy`` clean the site
        folder; a dirty build does not."""
        self.enabled = command in {"build", "serve", "gh-deploy"} and not dirty

    def before_clean(self, site_dir: str) -> None:
        """``on_pre_build``: hold the previous site where the clean leaves it."""
        if self.enabled:
            self.site_dir, self.previous = Path(site_dir), None
            hold(self.site_dir)

    def after_clean(self) -> None:
        """``on_files``: the previous site's files back, to be written over."""
        if self.site_dir is not None:
            self.previous = restore(self.site_dir)

    def finish(self) -> None:
        """``on_post_build`` or ``on_build_error``: the files this build did not write go."""
        if self.site_dir is None:
            return
        if self.previous is not None:
            prune(self.site_dir, self.previous)
        shutil.rmtree(self.site_dir / HOLD, ignore_errors=True)
        self.site_dir, self.previous = None, None
