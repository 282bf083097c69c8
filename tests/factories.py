"""factory-boy factories for the people and roles tests need."""

from __future__ import annotations

import factory

from accounts.models import Player, Role, TournamentRole, User


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.org")
    @factory.post_generation
    def password(self, create, extracted, **kwargs):
        self.set_password(extracted or "correct horse battery staple")
        if create:
            self.save(update_fields=["password"])


class RoleFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = TournamentRole

    user = factory.SubFactory(UserFactory)
    role = Role.ORGANIZER


def user_playing_as(nick: str, **kwargs) -> User:
    """A user whose account claims the player ``nick`` (created if needed)."""
    user = UserFactory(**kwargs)
    player, _ = Player.objects.get_or_create(nick=nick)
    player.user = user
    player.claim_confirmed = True
    player.save()
    return user
