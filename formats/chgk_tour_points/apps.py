from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class FormatConfig(AppConfig):
    name = "formats.chgk_tour_points"
    label = "chgk_tour_points"
    verbose_name = _("ChGK season")

    def ready(self) -> None:
        from formats import registry
        from formats.chgk_tour_points.home import HOME
        from tournaments import audit

        registry.register(HOME)
        audit.connect(("chgk_tour_points.LineUp",))
