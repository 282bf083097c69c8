"""The site's form renderer: Django's form templates, with the project's overrides in ``templates/django/forms/``.

Every form of the portal (sign-up, profile, appeals, verdicts, result entry) renders through it (``FORM_RENDERER``):
labels start with a capital letter whatever the field's verbose name, and a field with errors is marked
with the class ``field-error`` beside Django's own ``aria-invalid="true"`` on its input.
"""

from __future__ import annotations

from pathlib import Path

import django.forms
from django.conf import settings
from django.forms.renderers import DjangoTemplates
from django.utils.functional import cached_property

OVERRIDES = Path(settings.BASE_DIR) / "templates" / "forms"


class PortalFormRenderer(DjangoTemplates):
    """Django's own form templates, looked up after the project's ``templates/forms/django/forms/``."""

    @cached_property
    def engine(self):
        return self.backend({
            "APP_DIRS": True,  # the apps' widget templates (the admin's) too
            "DIRS": [OVERRIDES, Path(django.forms.__file__).parent / "templates"],
            "NAME": "portalforms",
            "OPTIONS": {},
        })
