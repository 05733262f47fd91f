from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ServicelinesConfig(AppConfig):
    name = "servicelines"
    verbose_name = _("Service lines")
