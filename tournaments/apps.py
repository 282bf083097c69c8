from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = _("Tournaments")

    def ready(self) -> None:
        from tournaments import audit, lookups, signals
        from tournaments.webhooks import events

        audit.connect()
        signals.connect()
        lookups.register()
        events.connect()
