from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class QuotesConfig(AppConfig):
    name = "quotes"
    verbose_name = _("Quotes")

    def ready(self) -> None:
        # The build editor's "Request a quote" button and its fields are answered here; the configurator
        # offers the hooks and never imports quotes.
        from configurator.web.views import EDITOR_FORMS, EDITOR_OPS
        from quotes.views import quote_request, quote_request_form

        EDITOR_OPS["quote"] = quote_request
        EDITOR_FORMS["quote_form"] = quote_request_form
