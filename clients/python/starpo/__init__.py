"""Track runs trained elsewhere (RAGEN, verl, ...) in StarPO Studio.

    run = starpo.init("http://127.0.0.1:3001", token, name="ragen-qwen0.5b", config={"env": {"name": "sokoban"}})
    run.log({"train/success": 0.3}, step=1)
    run.log_trajectories([...], step=1, split="val")
    run.finish("succeeded")
"""
from __future__ import annotations

import math
import os
from typing import Any, Dict, List, Mapping, Optional

from .errors import StarpoError
from .ragen import trajectory_from_ragen, trajectories_from_generations
from .run import Run
from .transport import Transport
from .verl import StarpoTracking

__all__ = ["init", "Run", "StarpoError", "StarpoTracking", "trajectory_from_ragen", "trajectories_from_generations"]
__version__ = "0.1.0"


def init(url: Optional[str] = None, token: Optional[str] = None, name: Optional[str] = None,
         config: Optional[Mapping[str, Any]] = None, tags: Optional[List[str]] = None, *,
         env: Optional[str] = None, total_steps: Optional[int] = None, notes: str = "",
         run_id: Optional[str] = None, flush_interval: float = 2.0, max_retries: int = 8,
         finish_at_exit: bool = True) -> Run:
    """Create an external run (or reattach to ``run_id``, so a restarted trainer appends to it).

    ``url`` and ``token`` default to ``$STARPO_URL`` and ``$STARPO_TOKEN``. ``config`` is stored as
    sent (any JSON-able dict, e.g. your whole Hydra config). ``env`` (``sokoban``, ``frozenlake``,
    ``bandit`` or a RAGEN tag like ``CoordSokoban``) tells the server how to read boards from your
    observation texts; ``total_steps`` gives the dashboard a progress bar.
    """
    transport = Transport(url or os.environ.get("STARPO_URL", ""), token or os.environ.get("STARPO_TOKEN", ""),
                          max_retries=max_retries)
    if run_id:
        detail = transport.request("GET", f"/api/runs/{run_id}")
    else:
        sent: Dict[str, Any] = _clean(dict(config or {}))
        if env is not None:
            sent["env"] = {**(sent.get("env") if isinstance(sent.get("env"), dict) else {}), "name": env}
        if total_steps is not None:
            sent["training"] = {**(sent.get("training") if isinstance(sent.get("training"), dict) else {}),
                                "steps": int(total_steps)}
        body: Dict[str, Any] = {"external": True, "config": sent, "tags": list(tags or []), "notes": notes}
        if name:
            body["name"] = name
        detail = transport.request("POST", "/api/runs", body)
    return Run(transport, detail, flush_interval=flush_interval, finish_at_exit=finish_at_exit)


def _clean(value: Any) -> Any:
    """JSON-safe copy of a config: NaN/inf become strings, tuples and sets lists, other objects their text."""
    if isinstance(value, Mapping):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [_clean(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)
