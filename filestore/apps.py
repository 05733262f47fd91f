from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class FilestoreConfig(AppConfig):
    name = "filestore"
    verbose_name = _("Stored files")
