"""`makemessages` that also extracts the domain's `Phrase("…")` and `Phrase.plural("…", "…", …)` templates
(configurator/engine/phrase.py).

Django documents overriding `xgettext_options` in a subclass for extra keywords. xgettext matches the last
name of a dotted call in Python, so `Phrase.plural`'s keyword is `plural` (its arguments 1 and 2 are the
msgid and msgid_plural); `Phrase.plural:1,2` would match nothing.
"""

from __future__ import annotations

from django.core.management.commands import makemessages


class Command(makemessages.Command):
    xgettext_options = [*makemessages.Command.xgettext_options, "--keyword=Phrase", "--keyword=plural:1,2"]
