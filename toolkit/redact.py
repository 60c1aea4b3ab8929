"""The one scrubber of secrets: every writer of a file, record, cache entry or message passes text through it.

A key reaches pgt three ways: ``OPENAI_API_KEY``, the user-info of a base URL
(``http://user:KEY@host/v1``) and a base URL's query parameters named like a
credential (``?api-key=KEY``, ``&token=``, ``&sig=``). Each of them also travels
in *derived* forms an error text or an echoing endpoint may hand back: the
``Authorization: Basic`` value httpx builds from user-info (base64 of
``user:password``), percent-encoded and percent-decoded spellings, and the JSON
escaping of any of these. :func:`register_secret` and :func:`register_url` learn
a secret with all its forms; :func:`redact` replaces every known form by
``***`` and, for secrets it was never told about, blanks URL user-info and
credential-named query values wherever a URL appears. :func:`redact_url` is the
form of a base URL that may be shown or stored (``config.json``, records).

Writers call :func:`redact` on the text they are about to write (a JSON line, a
cache value, a message), so a new writer needs one call, not its own rules.

>>> register_url("http://bob:s3cr3t-pass@example.org/v1?api-key=k-123456&region=eu")
>>> redact_url("http://bob:s3cr3t-pass@example.org/v1?api-key=k-123456&region=eu")
'http://***@example.org/v1?api-key=***&region=eu'
>>> redact("reply: s3cr3t-pass and Ym9iOnMzY3IzdC1wYXNz")
'reply: *** and ***'
"""

from __future__ import annotations

import base64
import json
import os
import re
import threading
from urllib.parse import parse_qsl, quote, unquote, urlsplit, urlunsplit

MASK = "***"
MIN_SECRET = 4  # shorter values (a user name "a", a port) would blank ordinary text
_CREDENTIAL_NAME = re.compile(r"key|token|secret|passw|pwd|auth|sig|credential|session", re.I)
_URL_USERINFO = re.compile(r"(\b[a-z][a-z0-9+.-]*://)[^/@\s\"'<>]+@", re.I)
_QUERY_PAIR = re.compile(r"([?&;]([A-Za-z0-9_.\-]+)=)([^&#\s\"'<>]+)")
_TOKENS = re.compile(r"\b(sk-[A-Za-z0-9_\-]{6,}|(?:Bearer|Basic)\s+[A-Za-z0-9_\-.+/=]{12,}|"
                     r"(?i:api[_-]?key)[=:]\s*[A-Za-z0-9_\-.]{6,})")

_KNOWN: set[str] = set()
_GUARD = threading.Lock()
_PATTERN: re.Pattern[str] | None = None


def _forms(secret: str) -> set[str]:
    """A secret and the spellings it takes in URLs, headers and JSON."""
    forms = {secret, unquote(secret), quote(secret, safe=""), quote(unquote(secret), safe="")}
    forms |= {json.dumps(f)[1:-1] for f in list(forms)}
    return {f for f in forms if len(f) >= MIN_SECRET}


def register_secret(secret: str | None) -> None:
    """Remember ``secret`` (and its derived forms) so :func:`redact` blanks it from now on."""
    global _PATTERN
    if not secret or len(secret) < MIN_SECRET:
        return
    with _GUARD:
        new = _forms(secret) - _KNOWN
        if new:
            _KNOWN.update(new)
            _PATTERN = None


def register_url(url: str | None) -> None:
    """Remember the secrets of a base URL: its user-info (and the Basic-auth form) and credential-named query values."""
    if not url:
        return
    try:
        parts = urlsplit(url)
    except ValueError:
        return
    if parts.username is not None or parts.password is not None:
        user, password = parts.username or "", parts.password or ""
        register_secret(password)
        for pair in {f"{user}:{password}", f"{unquote(user)}:{unquote(password)}"}:
            register_secret(base64.b64encode(pair.encode()).decode("ascii"))  # what httpx sends as Basic auth
        if not password:  # a lone token in the user-info is the secret itself
            register_secret(user)
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if _CREDENTIAL_NAME.search(name):
            register_secret(value)


def _environment() -> None:
    register_secret(os.environ.get("OPENAI_API_KEY"))
    register_url(os.environ.get("OPENAI_BASE_URL"))


def _known_pattern() -> re.Pattern[str] | None:
    global _PATTERN
    _environment()
    with _GUARD:
        if _PATTERN is None and _KNOWN:
            _PATTERN = re.compile("|".join(re.escape(s) for s in sorted(_KNOWN, key=len, reverse=True)))
        return _PATTERN


def _query_value(match: re.Match[str]) -> str:
    return match.group(1) + MASK if _CREDENTIAL_NAME.search(match.group(2)) else match.group(0)


def redact(text: str) -> str:
    """``text`` with every known secret (in every form), URL user-info, credential query values and tokens blanked."""
    if not text:
        return text
    pattern = _known_pattern()
    if pattern is not None:
        text = pattern.sub(MASK, text)
    if "://" in text:
        text = _URL_USERINFO.sub(r"\1" + MASK + "@", text)
    if "=" in text:
        text = _QUERY_PAIR.sub(_query_value, text)
    return _TOKENS.sub(MASK, text) if ("sk-" in text or "Bearer" in text or "Basic" in text or "key" in text.lower()) \
        else text


def redact_url(url: str | None) -> str | None:
    """A base URL fit to show or store: user-info and credential-named query values replaced by ``***``."""
    if not url:
        return url
    try:
        parts = urlsplit(url)
    except ValueError:
        return redact(url)
    netloc = parts.netloc
    if "@" in netloc:
        netloc = MASK + "@" + netloc.rsplit("@", 1)[1]
    query = _QUERY_PAIR.sub(_query_value, "?" + parts.query)[1:] if parts.query else ""
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def redact_bytes(data: bytes) -> bytes:
    """:func:`redact` over UTF-8 bytes (a file line); bytes without any secret come back as they are."""
    text = data.decode("utf-8", "surrogateescape")
    clean = redact(text)
    return data if clean == text else clean.encode("utf-8", "surrogateescape")
