"""Libraries that ``check`` and ``render`` never use, kept from loading until something does.

Beautiful Soup, which the sanitiser needs, imports others at its top that a render never
calls: soupsieve (for ``select()``, which crosspost does not call) and a character-set
detector (for bytes of unknown encoding; the renderers hand it text). requests is listed
for the libraries that import it at their top although a render fetches nothing; ``check``
fetching a remote image gets it on first use.

:func:`defer` puts a stand-in module under each name in ``sys.modules``. An ``import``
statement then binds the stand-in; the first attribute anyone reads from it imports the
real module (replacing the stand-in) and answers from there, so a command that does need
one (``check`` fetching a remote image with requests) still gets the real thing, only
later. :mod:`importlib.util.LazyLoader` cannot do this job: the import statement itself
reads the lazy module's ``__spec__``, which loads it at once.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Iterable
from types import ModuleType

#: Imported at the top of bs4 (``bs4.css``, ``bs4.dammit``) and others, unused by a render.
UNUSED_BY_RENDER = ("requests", "soupsieve", "cchardet", "chardet", "charset_normalizer")


class _StandIn(ModuleType):
    """A module that becomes the real one on the first attribute read (PEP 562 fallback)."""

    def __getattr__(self, attribute: str) -> object:
        name = self.__name__
        if sys.modules.get(name) is self:
            del sys.modules[name]
        return getattr(importlib.import_module(name), attribute)


def defer(names: Iterable[str] = UNUSED_BY_RENDER) -> list[str]:
    """Put a stand-in for each installed, not yet imported module of ``names``; returns
    the names deferred. A module that is not installed keeps failing its import, so a
    library's ``try: import x / except ImportError`` still picks the same fallback."""
    deferred = []
    for name in names:
        if name in sys.modules or importlib.util.find_spec(name) is None:
            continue
        sys.modules[name] = _StandIn(name)
        deferred.append(name)
    return deferred
