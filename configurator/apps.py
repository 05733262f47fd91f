from django.apps import AppConfig


class ConfiguratorConfig(AppConfig):
    name = "configurator"
    verbose_name = "Configurator"
