"""Errors raised by the client."""
from __future__ import annotations

from typing import Any, Dict, List, Optional


class StarpoError(Exception):
    """The server refused a request (4xx) or could not be reached after every retry.

    ``status`` is the HTTP status (None for a network failure), ``error`` the server's error code
    (e.g. ``validation_failed``) and ``details`` its field errors: ``[{"path": ..., "message": ...}]``.
    """

    def __init__(self, message: str, status: Optional[int] = None, error: Optional[str] = None,
                 details: Optional[List[Dict[str, Any]]] = None) -> None:
        self.status = status
        self.error = error
        self.details = list(details or [])
        fields = "; ".join(f"{d.get('path') or '(body)'}: {d.get('message')}" for d in self.details)
        super().__init__(f"{message} ({fields})" if fields else message)
