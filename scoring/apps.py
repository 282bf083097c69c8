from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ScoringConfig(AppConfig):
    name = "scoring"
    verbose_name = _("Scoring")

    def ready(self) -> None:
        """Give the facts their recompute: queued after each change, or at once for "recompute now"."""
        from scoring import services, tasks
        from tournaments import changes

        changes.set_recompute(tasks.enqueue, lambda tournament_id, force: services.recompute(tournament_id,
                                                                                             force=force))
