# The portal's production image: the pinned dependencies of requirements.lock, the code,
# the static files collected at build time (hashed and compressed, served by WhiteNoise), DEBUG off, run as
# an unprivileged user. docker-compose.yml runs it as migrate (one-shot), web, worker and beat; the secrets
# (SECRET_KEY, the database password) come from the environment at run time, never from the image.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    VIRTUAL_ENV=/venv \
    PATH=/venv/bin:$PATH \
    DJANGO_DEBUG=False

RUN python -m venv /venv
WORKDIR /app

# Dependencies first: this layer is rebuilt only when the lock changes.
COPY requirements.lock ./
RUN pip install -r requirements.lock

COPY . .
# collectstatic imports the settings, which want a SECRET_KEY with DEBUG off: a throwaway one for this step
# only (the running containers get theirs from the environment).
RUN SECRET_KEY=collectstatic-only-not-a-secret python manage.py collectstatic --noinput --verbosity 0 \
    && python -m compileall -q -j 0 accounts appeals config formats portal rulesets scoring tournaments \
    && useradd --system --uid 10001 --no-create-home --home-dir /app portal

USER portal
EXPOSE 8000
CMD ["gunicorn", "config.wsgi", "--bind", "0.0.0.0:8000", "--workers", "3", "--access-logfile", "-"]
