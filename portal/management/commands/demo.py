"""``demo``: load demo tournaments of all four rulesets and print an admin login (seeded, repeatable)."""

from __future__ import annotations

import os
import secrets

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from accounts.models import Role, TournamentRole
from formats import registry
from tournaments.demo import demo_documents
from tournaments.importer import import_document
from tournaments.models import Tournament


def site_url() -> str:
    """Where ``scripts/run`` serves the demo: ``PORT`` as ``runserver`` reads it ("8001", "0.0.0.0:8001")."""
    address = os.environ.get("PORT") or "127.0.0.1:8000"
    host, _, port = address.rpartition(":")
    if host in ("", "0.0.0.0", "[::]"):  # noqa: S104 - a listening address, not a binding
        host = "127.0.0.1"
    return f"http://{host}:{port}"


class Command(BaseCommand):
    help = "Load demo tournaments (one or more per ruleset) and create the admin user 'admin'."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--password", default=os.environ.get("DEMO_ADMIN_PASSWORD"),
                            help="the admin's password (default: a new random one, printed)")

    def handle(self, *args, password: str | None, **options) -> None:
        with transaction.atomic():
            loaded = []
            for document in demo_documents():
                slug = document["tournament"]["slug"]
                if not Tournament.objects.filter(slug=slug).exists():
                    tournament = import_document(document)
                    registry.for_tournament(tournament).archive(tournament)
                loaded.append(slug)
            admin = self._admin(password)
            for tournament in Tournament.objects.filter(slug__in=loaded):
                TournamentRole.objects.get_or_create(user=admin, tournament=tournament, role=Role.ORGANIZER)
        self.stdout.write(self.style.SUCCESS(f"Demo tournaments: {', '.join(loaded)}"))

    def _admin(self, password: str | None):
        User = get_user_model()
        admin = User.objects.filter(username="admin").first()
        if admin is not None and not password:
            self.stdout.write("Admin login: admin (password unchanged; pass --password to set one)")
            return admin
        password = password or secrets.token_urlsafe(12)
        if admin is None:
            admin = User.objects.create_superuser("admin", "admin@example.org", password)
        else:
            admin.set_password(password)
            admin.save()
        self.stdout.write(self.style.SUCCESS(f"Admin login: admin / {password}  ({site_url()}/admin/)"))
        return admin
