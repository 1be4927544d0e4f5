"""JSON over HTTP with retries (urllib only)."""
from __future__ import annotations

import http.client
import json
import os
import random
import socket
import time
import urllib.error
import urllib.request
from typing import Any, Callable, Optional

from .errors import StarpoError

USER_AGENT = "starpo-python/0.1.0"


def _retry_after(err: urllib.error.HTTPError) -> Optional[float]:
    value = err.headers.get("Retry-After") if err.headers else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


class Transport:
    """Sends JSON requests to the API with a bearer token.

    429, 5xx and network errors are retried with exponential backoff and jitter (honouring
    ``Retry-After``), up to ``max_retries`` times; any other 4xx raises :class:`StarpoError` at
    once with the server's field errors. Requests are idempotent on the server, so a retry after
    a lost answer is harmless.
    """

    def __init__(self, url: str, token: str, timeout: float = 30.0, max_retries: int = 8,
                 backoff: float = 0.5, max_backoff: float = 30.0,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        if not url:
            raise ValueError("url is required (the API address, e.g. http://127.0.0.1:3001)")
        if not token:
            raise ValueError("token is required (an API token, stp_..., from POST /api/tokens)")
        self.url = url.rstrip("/")
        self.token = token
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.sleep = sleep
        self.retries = 0  # total retries so far, for tests and logs
        # STARPO_TRAFFIC_LOG=file: every answered request as a JSON line (debugging; the API's contract test reads it)
        self.traffic_log = os.environ.get("STARPO_TRAFFIC_LOG") or None

    def request(self, method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else encode(body)
        attempt = 0
        while True:
            req = urllib.request.Request(self.url + path, data=data, method=method)
            req.add_header("authorization", f"Bearer {self.token}")
            req.add_header("user-agent", USER_AGENT)
            if data is not None:
                req.add_header("content-type", "application/json")
            wait: Optional[float] = None
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as res:
                    raw = res.read()
                    answer = json.loads(raw) if raw else None
                    if self.traffic_log:
                        self._record(method, path, res.status, body, answer)
                    return answer
            except urllib.error.HTTPError as err:
                payload = _json_or_none(err.read())
                if err.code != 429 and err.code < 500:
                    info = payload if isinstance(payload, dict) else {}
                    raise StarpoError(
                        f"{method} {path} failed with {err.code}: {info.get('message') or err.reason}",
                        status=err.code, error=info.get("error"), details=info.get("details"),
                    ) from None
                failure: BaseException = err
                wait = _retry_after(err)
            except (urllib.error.URLError, http.client.HTTPException, ConnectionError, socket.timeout, TimeoutError) as err:
                failure = err
            if attempt >= self.max_retries:
                raise StarpoError(f"{method} {path} failed after {attempt + 1} attempts: {failure}",
                                  status=getattr(failure, "code", None)) from failure
            delay = min(self.max_backoff, self.backoff * (2 ** attempt)) * (0.5 + random.random() / 2)
            self.sleep(max(delay, wait or 0.0))
            attempt += 1
            self.retries += 1


    def _record(self, method: str, path: str, status: int, body: Any, answer: Any) -> None:
        line = {"method": method, "path": path, "status": status, "body": json.loads(encode(body)) if body is not None else None,
                "response": answer}
        with open(self.traffic_log, "a", encoding="utf-8") as f:  # type: ignore[arg-type]
            f.write(json.dumps(line) + "\n")


def encode(body: Any) -> bytes:
    """JSON bytes; values JSON lacks (paths, numpy scalars) become their float or string form."""
    return json.dumps(body, default=_jsonable, allow_nan=False, separators=(",", ":")).encode("utf-8")


def _jsonable(value: Any) -> Any:
    for cast in (float, str):
        try:
            return cast(value)
        except (TypeError, ValueError):
            continue
    return repr(value)


def _json_or_none(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return None
