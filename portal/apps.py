import logging

from django.apps import AppConfig
from django.conf import settings
from django.utils.translation import gettext_lazy as _

# Backends that send no mail: the console writes it to the log, the others keep or drop it.
MAIL_OFF_BACKENDS = {
    "django.core.mail.backends.console.EmailBackend",
    "django.core.mail.backends.dummy.EmailBackend",
    "django.core.mail.backends.locmem.EmailBackend",
    "django.core.mail.backends.filebased.EmailBackend",
}


def mail_is_off() -> bool:
    return settings.EMAIL_BACKEND in MAIL_OFF_BACKENDS


class PortalConfig(AppConfig):
    name = "portal"
    verbose_name = _("Portal")

    def ready(self) -> None:
        if not settings.DEBUG and mail_is_off():  # production without a mail server: said at every start
            logging.getLogger("portal.mail").warning(
                "MAIL IS OFF: EMAIL_BACKEND is %r, so appeal notifications, verdicts and deadline digests are not "
                "sent to anyone; set EMAIL_BACKEND=django.core.mail.backends.smtp.EmailBackend and EMAIL_HOST "
                "(EMAIL_PORT, EMAIL_HOST_USER, EMAIL_HOST_PASSWORD, EMAIL_USE_TLS) to send them",
                settings.EMAIL_BACKEND)
