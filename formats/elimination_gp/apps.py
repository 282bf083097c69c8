from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class FormatConfig(AppConfig):
    name = "formats.elimination_gp"
    label = "elimination_gp"
    verbose_name = _("Grand Prix")

    def ready(self) -> None:
        from formats import registry
        from formats.elimination_gp.home import HOME

        registry.register(HOME)
