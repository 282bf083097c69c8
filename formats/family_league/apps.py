from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class FormatConfig(AppConfig):
    name = "formats.family_league"
    label = "family_league"
    verbose_name = _("Family league")

    def ready(self) -> None:
        from formats import registry
        from formats.family_league.home import HOME

        registry.register(HOME)
