"""Settings read from the environment, with safe defaults for a laptop.

- no ``DATABASE_URL``: SQLite in the project folder;
- no ``REDIS_URL`` / ``CELERY_BROKER_URL``: Celery tasks run eagerly in-process
  and the cache is local memory;
- ``DJANGO_DEBUG=False`` switches to production settings (``SECRET_KEY`` and
  ``ALLOWED_HOSTS`` then required).
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import unquote, urlparse

from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in ("1", "true", "yes", "on")


DEBUG = env_bool("DJANGO_DEBUG", True)
SECRET_KEY = os.environ.get("SECRET_KEY") or os.environ.get("DJANGO_SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DJANGO_DEBUG=False")
    SECRET_KEY = "dev-only-insecure-key-do-not-use-in-production-0123456789abcdef"
ALLOWED_HOSTS = [h for h in os.environ.get("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver").split(",") if h]
CSRF_TRUSTED_ORIGINS = [o for o in os.environ.get("CSRF_TRUSTED_ORIGINS", "").split(",") if o]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "knox",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "accounts",
    "tournaments",
    "scoring",
    "appeals",
    "formats.elimination_gp",
    "formats.chgk_tour_points",
    "formats.family_league",
    "formats.class_balanced",
    "portal",
]

MIDDLEWARE = [
    "config.health.HealthCheckMiddleware",  # /healthz/ first: answered before host checks and HTTPS redirects
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "accounts.middleware.CurrentUserMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "config.middleware.ContentSecurityPolicyMiddleware",
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]
# Forms render through Django's templates with the project's overrides: capitalised labels, errors marked.
FORM_RENDERER = "portal.renderers.PortalFormRenderer"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"


def database_from_url(url: str) -> dict:
    parsed = urlparse(url)
    if parsed.scheme in ("postgres", "postgresql", "pgsql"):
        return {
            "ENGINE": "config.postgresql",  # Django's, reading times quicker (config/postgresql/base.py)
            "NAME": unquote(parsed.path.lstrip("/")) or "postgres",
            "USER": unquote(parsed.username or ""),
            "PASSWORD": unquote(parsed.password or ""),
            "HOST": parsed.hostname or "",
            "PORT": str(parsed.port or ""),
            "CONN_MAX_AGE": int(os.environ.get("CONN_MAX_AGE", "60")),
            # The portal's queries are short: compiling one with the JIT (past jit_above_cost, as a player's
            # seats across 1,000 tournaments are estimated) cost more than running it.
            "OPTIONS": {"options": "-c jit=on" if os.environ.get("DATABASE_JIT") == "on" else "-c jit=off"},
        }
    if parsed.scheme == "sqlite":
        return {"ENGINE": "django.db.backends.sqlite3", "NAME": parsed.path or BASE_DIR / "db.sqlite3"}
    raise ImproperlyConfigured(f"DATABASE_URL scheme {parsed.scheme!r} is not supported")


DATABASE_URL = os.environ.get("DATABASE_URL")
DATABASES = {
    "default": database_from_url(DATABASE_URL)
    if DATABASE_URL
    else {"ENGINE": "django.db.backends.sqlite3", "NAME": BASE_DIR / "db.sqlite3", "OPTIONS": {"timeout": 20}}
}

AUTH_USER_MODEL = "accounts.User"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 10}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "/accounts/login/"
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# Login throttling and lockout (django-axes): 5 failures lock the username from that address for an hour.
AXES_FAILURE_LIMIT = int(os.environ.get("AXES_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = 1
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
# The lockout keys on the client's real address behind DJANGO_NUM_PROXIES proxies, as the API throttle does; one
# address is also limited in how many logins and reset requests it may try (accounts.attempts).
AXES_CLIENT_IP_CALLABLE = "accounts.addresses.client_address"
ADDRESS_ATTEMPT_LIMITS = {
    "login": (int(os.environ.get("LOGIN_ATTEMPTS_PER_ADDRESS", "30")), 600),
    "password_reset": (int(os.environ.get("RESET_ATTEMPTS_PER_ADDRESS", "5")), 3600),
}
LOGIN_REDIRECT_URL = "/"

LANGUAGE_CODE = "ru"
LANGUAGES = [("ru", _("Russian")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "Europe/Moscow"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "config.static.ManifestOrFinderStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
# Without ``collectstatic`` (no manifest in STATIC_ROOT) WhiteNoise serves the files from the apps' folders, under
# their plain names (config.static); the Docker image collects them at build time.
WHITENOISE_USE_FINDERS = DEBUG or not (STATIC_ROOT / "staticfiles.json").exists()
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = os.environ.get("REDIS_URL")
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL") or REDIS_URL
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND") or None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_QUEUE", "portal")
# Celery's Django fixup closes a worker's database connections before and after every job, so that each job opened
# a new PostgreSQL session (a server process forked and set up, for a job of 20-40 ms). With this set it closes them
# only every this many jobs; between jobs ``config.celery`` closes the unusable and the older than ``CONN_MAX_AGE``
# ones, as Django does between requests.
CELERY_DB_REUSE_MAX = int(os.environ.get("CELERY_DB_REUSE_MAX", "10000"))
# A job whose worker died is handed to another worker after this many seconds (acks_late).
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": int(os.environ.get("CELERY_VISIBILITY_TIMEOUT", "300"))}
CELERY_BEAT_SCHEDULE = {
    "appeals-daily-digest": {"task": "appeals.tasks.send_deadline_digest", "schedule": 24 * 3600},
    "standings-recheck-closed-windows": {"task": "scoring.tasks.recheck_due_snapshots", "schedule": 300},
    "family-league-remove-ineligible": {"task": "formats.family_league.tasks.remove_ineligible_players", "schedule": 300},
}
# scoring.tasks.sweep_stale_standings: close the runs of killed workers, recompute tables older than their facts.
STANDINGS_SWEEP_SECONDS = float(os.environ.get("STANDINGS_SWEEP_SECONDS", "15"))
CELERY_BEAT_SCHEDULE["standings-sweep-stale"] = {"task": "scoring.tasks.sweep_stale_standings",
                                                 "schedule": STANDINGS_SWEEP_SECONDS,
                                                 "options": {"expires": STANDINGS_SWEEP_SECONDS}}
# Without PostgreSQL's advisory locks (SQLite) a run unfinished for this long is taken as abandoned.
RECOMPUTE_RUN_TIMEOUT = float(os.environ.get("RECOMPUTE_RUN_TIMEOUT", "600"))
# After the broker refused a job, a process recomputes in-process for this long before it tries the broker again.
BROKER_RETRY_SECONDS = float(os.environ.get("BROKER_RETRY_SECONDS", "5"))
# Webhooks (tournaments.webhooks): a delivery's POST waits this many seconds at most to connect and for the answer;
# beat sends the deliveries due for a retry every WEBHOOKS_SWEEP_SECONDS. A target resolving to a loopback, private,
# link-local or reserved address is refused unless WEBHOOKS_ALLOW_PRIVATE_TARGETS: by default only on the laptop
# setup (DEBUG, SQLite, no broker), where a receiver on the same machine is how one tries them (tests allow it too).
WEBHOOKS_TIMEOUT = float(os.environ.get("WEBHOOKS_TIMEOUT", "5"))
WEBHOOKS_SWEEP_SECONDS = float(os.environ.get("WEBHOOKS_SWEEP_SECONDS", "30"))
WEBHOOKS_ALLOW_PRIVATE_TARGETS = env_bool("WEBHOOKS_ALLOW_PRIVATE_TARGETS",
                                          DEBUG and not DATABASE_URL and not CELERY_BROKER_URL)
CELERY_BEAT_SCHEDULE["webhooks-send-due"] = {"task": "tournaments.webhooks.tasks.send_due",
                                             "schedule": WEBHOOKS_SWEEP_SECONDS,
                                             "options": {"expires": WEBHOOKS_SWEEP_SECONDS}}

if REDIS_URL:
    # config.cache: a miss, not a 500, while Redis does not answer (retried after RETRY_AFTER seconds).
    CACHES = {"default": {"BACKEND": "config.cache.ResilientRedisCache", "LOCATION": REDIS_URL, "OPTIONS": {
        "socket_connect_timeout": float(os.environ.get("CACHE_CONNECT_TIMEOUT", "1")),
        "socket_timeout": float(os.environ.get("CACHE_SOCKET_TIMEOUT", "2")),
        "RETRY_AFTER": float(os.environ.get("CACHE_RETRY_SECONDS", "5")),
    }}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# Mail (appeals, verdicts, deadline digests). The default, the console backend, sends nothing: with DEBUG off every
# process then says so at start, loudly (portal.apps: "MAIL IS OFF"); set EMAIL_BACKEND to the SMTP backend and
# EMAIL_HOST (and the login, TLS) for a real server.
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
EMAIL_TIMEOUT = float(os.environ.get("EMAIL_TIMEOUT", "10"))
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "portal@localhost")

DATA_UPLOAD_MAX_MEMORY_SIZE = int(os.environ.get("IMPORT_MAX_BYTES", str(5 * 1024 * 1024)))

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        # DRF's tokens (issued by the admin) first, a personal token of the profile next (accounts.tokens)
        "accounts.tokens.LegacyTokenAuthentication",
        "knox.auth.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    # DRF's JSON through orjson (portal.api.renderers), and the browsable API
    "DEFAULT_RENDERER_CLASSES": ["portal.api.renderers.JSONRenderer", "rest_framework.renderers.BrowsableAPIRenderer"],
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "portal.api.errors.exception_handler",  # a Refused -> its status and body, in one place
    "DEFAULT_THROTTLE_CLASSES": ["rest_framework.throttling.AnonRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {"anon": os.environ.get("ANON_THROTTLE", "600/minute")},
    # Reverse proxies in front of the portal, each appending the address it saw to X-Forwarded-For: the
    # anonymous throttle keys on the address that many entries from the end. 0 (the default) trusts no
    # X-Forwarded-For and keys on REMOTE_ADDR, so a client cannot dodge the throttle by inventing addresses.
    "NUM_PROXIES": int(os.environ.get("DJANGO_NUM_PROXIES", "0")),
}
# Personal API tokens (accounts.tokens): knox's model, named by accounts.ApiTokenName.
KNOX_TOKEN_MODEL = "knox.AuthToken"

SPECTACULAR_SETTINGS = {
    "TITLE": "Tournament portal API",
    "DESCRIPTION": (
        "Tournaments, results, standings and appeals of online Mafia and ChGK tournaments.\n\n"
        "Every JSON body is read by one reader: UTF-8, nested at most 64 objects and lists (deeper is refused "
        "with the path where it goes too deep), no NUL character, no number that is not finite (NaN, Infinity, "
        "1e400). A body it refuses, and any refused input, is a 400 `{\"errors\": [{\"path\", \"message\"}]}` "
        "naming each problem's path, never a 500. While the database does not answer, every endpoint answers "
        "503 `{\"detail\": ...}` with `Retry-After`.\n\n"
        "Reads need no login. Writes act as a user, with that user's roles and nothing more: a browser "
        "session, or a personal API token created (with a name and an expiry) and revoked on the profile page "
        "`/accounts/profile/tokens/`. The token is shown once and stored hashed; send it as "
        "`Authorization: Token <token>`, e.g. `curl -H \"Authorization: Token <token>\" "
        "https://HOST/api/v1/tournaments/`. A token that is unknown, revoked or expired is answered with 401 "
        "and `WWW-Authenticate: Token`, the body saying how to authenticate."),
    "VERSION": "1",
    "LICENSE": {"name": "MIT", "url": "https://opensource.org/license/mit"},  # pyproject.toml's license
    # the paths carry /api/v1/: a client's base URL is the portal's own address, wherever it is served
    "SERVERS": [{"url": "/", "description": "the portal that serves this schema"}],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},  # no badge from validator.swagger.io
    "REDOC_DIST": "SIDECAR",
    # the error answers, optional authentication on reads (portal.api.schema)
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums", "portal.api.schema.document_errors"],
    "ENUM_NAME_OVERRIDES": {
        "GameStatusEnum": "tournaments.models.GameStatus",
        "TournamentStatusEnum": "tournaments.models.TournamentStatus",
        "WebhookEventEnum": "tournaments.models.WebhookEvent",
        "WebhookDeliveryStatusEnum": "tournaments.models.DeliveryStatus",
    },
}

# /healthz/ asks each dependency within this many seconds (config.health).
HEALTH_TIMEOUT = float(os.environ.get("HEALTH_TIMEOUT", "2"))
# While the database does not answer, pages and the API answer 503 with this Retry-After (portal.api.errors).
DATABASE_RETRY_AFTER = int(os.environ.get("DATABASE_RETRY_AFTER", "30"))

X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
if not DEBUG:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# One line of JSON per event: time (UTC), level, logger, message, the request's status, method and path; a
# traceback only where the code failed, never for a 4xx nor for a database that did not answer (config.logs).
LOG_LEVEL = os.environ.get("LOG_LEVEL", "WARNING")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"line": {"()": "config.logs.OneLineFormatter"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "line"}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        # without Django's own handlers (a second, plain-text copy under DEBUG; mail to ADMINS): the root's line
        "django": {"handlers": [], "level": os.environ.get("DJANGO_LOG_LEVEL", "INFO"), "propagate": True},
        "django.server": {"handlers": [], "level": "INFO", "propagate": True},  # runserver's requests
    },
}

# Seconds after its queueing a recompute job waits (inside the job, no ETA: scoring.tasks) so that a burst of
# saves coalesces into one run; a job that waited this long in the queue already starts at once, so a busy
# worker loses no time to it. The saves made while a job waits or runs coalesce anyway.
RECOMPUTE_COUNTDOWN = float(os.environ.get("RECOMPUTE_COUNTDOWN", "0.2"))
# tournaments.game_cache: each process keeps the game facts of this many large tournaments (0: off)
FACTS_CACHE_TOURNAMENTS = int(os.environ.get("FACTS_CACHE_TOURNAMENTS", "4"))
FACTS_CACHE_MIN_GAMES = int(os.environ.get("FACTS_CACHE_MIN_GAMES", "200"))
# ... and the rest of the facts of this many tournaments of any size, while their head_version is the same (0: off)
FACTS_CACHE_CONTEXTS = int(os.environ.get("FACTS_CACHE_CONTEXTS", "64"))
