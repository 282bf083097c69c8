from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class FormatConfig(AppConfig):
    name = "formats.class_balanced"
    label = "class_balanced"
    verbose_name = _("Class-balanced stages")

    def ready(self) -> None:
        from formats import registry
        from formats.class_balanced.home import HOME

        registry.register(HOME)
