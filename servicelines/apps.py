from django.apps import AppConfig


class ServicelinesConfig(AppConfig):
    name = "servicelines"
    verbose_name = "Service lines"
