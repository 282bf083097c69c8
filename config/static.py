"""Static files with ``DJANGO_DEBUG=False``: hashed and compressed when collected, plain names when not.

WhiteNoise's ``CompressedManifestStaticFilesStorage`` raises ``ValueError`` for every ``{% static %}`` whose
file is not in the manifest ``collectstatic`` writes, so a production run without ``collectstatic`` (or one
whose manifest misses a file added since) answered 500 on every HTML page. This storage
answers such a name with its plain URL instead, and logs it; ``settings.WHITENOISE_USE_FINDERS`` is on while
there is no manifest, so WhiteNoise serves those plain names from the apps' folders. The Docker image runs
``collectstatic`` at build time and gets the hashed, compressed, cached-forever files.
"""

from __future__ import annotations

import logging

from django.contrib.staticfiles.storage import StaticFilesStorage
from whitenoise.storage import CompressedManifestStaticFilesStorage

log = logging.getLogger(__name__)


class ManifestOrFinderStorage(CompressedManifestStaticFilesStorage):
    """The manifest's hashed URL of a static file, or its plain URL when the manifest does not have it."""

    warned = False

    def url(self, name: str | None, force: bool = False) -> str:
        try:
            return super().url(name, force)
        except ValueError:
            if not ManifestOrFinderStorage.warned:
                ManifestOrFinderStorage.warned = True
                log.warning("static file %r is not in the manifest (run collectstatic): serving its plain name",
                            name)
            return StaticFilesStorage.url(self, name)
