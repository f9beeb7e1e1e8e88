"""MkDocs hooks (mkdocs.yml ``hooks:``): a rebuild writes over the previous site's files.

Thin: the work is ``tinkernomics.site.postbuild.inplace`` (its docstring says why: on ext4
without a journal, creating 13,000 files right after deleting them is several times slower than
writing over them). ``on_pre_build`` moves the previous site into a hidden folder MkDocs' clean
skips; ``on_files``, first of every plugin (nothing is written before it), moves it back;
``on_post_build``, last of every plugin (after the outputs step and the search index), deletes
the files this build did not write, as does ``on_build_error``. While such a rebuild runs,
MkDocs' own writes (``utils.write_file``: every page, the search index) go through
``inplace.write_over``, as the site's outputs do, so a file already holding its bytes is not
written again (theme adapter rule 12). Zensical runs no MkDocs hooks.
"""

from __future__ import annotations

import os

from mkdocs import utils
from mkdocs.plugins import event_priority

from tinkernomics.site.postbuild.inplace import Rebuild, write_over

_REBUILD = Rebuild()
FIRST = 1000
LAST = -1000


_MKDOCS_WRITE = utils.write_file


def _write_file(content, output_path):
    """``utils.write_file`` for a rebuild: the folder made, then ``write_over``."""
    os.makedirs(os.path.dirname(output_path), exist_ok=True)
    write_over(output_path, content)


def on_startup(command, dirty):
    _REBUILD.start(command, dirty)
    utils.write_file = _write_file if _REBUILD.enabled else _MKDOCS_WRITE


def on_pre_build(config):
    _REBUILD.before_clean(config.site_dir)


@event_priority(FIRST)
def on_files(files, config):
    _REBUILD.after_clean()
    return files


@event_priority(LAST)
def on_post_build(config):
    _REBUILD.finish()


def on_build_error(error):
    _REBUILD.finish()
