"""The format versions of what a data directory keeps between releases, and the refusal of a newer one.

Each part that outlives a release says which format it is in (``docs/records.md``):
the training queue (SQLite ``user_version``), each match journal (its header's
``version``), the net store (``store.json``) and the owner files (a ``format`` field).
A release reads every format an earlier one wrote, where a part says nothing being
the first format (``FIRST``), and refuses a newer one with ``NewerFormatError``: what
a newer release wrote may mean something this code cannot tell, so it is neither read
as if it were older nor written over.  The message is one line, and the command line
ends with exit 2 on it, as on any other mistake in its input.

Nothing here imports the engine: the light readers (``fibsbot status``) check too.
"""

from __future__ import annotations

FIRST = 1  # the format of a part that does not say: the one release 0.1.0 wrote


class NewerFormatError(RuntimeError):
    """A part of the data directory in a format this code does not know (one line)."""


def check_format(found: object, known: int, what: str, error: type[NewerFormatError] = NewerFormatError) -> int:
    """The format ``found`` in ``what`` (a file named for the message), None meaning ``FIRST``;
    ``error`` (a NewerFormatError) where it is newer than ``known`` (or no format at all)."""
    if found is None:
        return FIRST
    if isinstance(found, int) and not isinstance(found, bool) and 1 <= found <= known:
        return found
    if isinstance(found, int) and not isinstance(found, bool) and found > known:
        raise error(
            f"{what} is in format {found}, newer than this fibsbot reads (up to {known}): "
            "a newer release wrote this data directory; run that release (or a later one) on it"
        )
    raise error(f"{what} says it is in format {found!r}, which no fibsbot release writes")
