from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ConfiguratorConfig(AppConfig):
    name = "configurator"
    verbose_name = _("Configurator")
