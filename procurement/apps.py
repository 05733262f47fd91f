from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ProcurementConfig(AppConfig):
    name = "procurement"
    verbose_name = _("Procurement")
