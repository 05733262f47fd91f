"""`makemessages` that also extracts the domain's `Phrase("…")` templates (configurator/phrase.py).

Django documents overriding `xgettext_options` in a subclass for extra keywords.
"""

from __future__ import annotations

from django.core.management.commands import makemessages


class Command(makemessages.Command):
    xgettext_options = [*makemessages.Command.xgettext_options, "--keyword=Phrase"]
