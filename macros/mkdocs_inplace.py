"""MkDocs hooks (mkdocs.yml ``hooks:``): a rebuild writes over the previous site's files.

Thin: the work is ``tinkernomics.site.postbuild.inplace`` (its docstring says why: on ext4
without a journal, creating 13,000 files right after deleting them is several times slower than
writing over them). ``on_pre_build`` moves the previous site into a hidden folder MkDocs' clean
skips; ``on_files``, first of every plugin (nothing is written before it), moves it back;
``on_post_build``, last of every plugin (after the outputs step and the search index), deletes
the files this build did not write, as does ``on_build_error``. Zensical runs no MkDocs hooks.
"""

from __future__ import annotations

from mkdocs.plugins import event_priority

from tinkernomics.site.postbuild.inplace import Rebuild

_REBUILD = Rebuild()
FIRST = 1000
LAST = -1000


def on_startup(command, dirty):
    _REBUILD.start(command, dirty)


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
