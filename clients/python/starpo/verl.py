"""A backend with the interface of verl's ``Tracking`` loggers: ``log(data, step)`` and ``finish()``."""
from __future__ import annotations

from typing import Any, List, Mapping, Optional

from .run import Run


class StarpoTracking:
    """Forwards verl/RAGEN's metric dicts (``train/…``, ``val/…``, ``actor/…``, ``timing_s/…``) to a run.

    Use it beside verl's own ``Tracking``: ``StarpoTracking.attach(trainer_logger, project_name=...,
    experiment_name=..., config=...)`` adds it as one more backend, so every ``logger.log(data, step)``
    that RAGEN's trainer makes also reaches the dashboard.
    """

    def __init__(self, project_name: Optional[str] = None, experiment_name: Optional[str] = None,
                 config: Optional[Mapping[str, Any]] = None, *, run: Optional[Run] = None,
                 url: Optional[str] = None, token: Optional[str] = None, tags: Optional[List[str]] = None,
                 env: Optional[str] = None, total_steps: Optional[int] = None) -> None:
        if run is None:
            from . import init  # late: the package imports this module

            steps = total_steps if total_steps is not None else _planned_steps(config)
            run = init(url, token, name=experiment_name, config=config,
                       tags=list(tags or []) + ([project_name] if project_name else []),
                       env=env, total_steps=steps)
        self.run = run

    def log(self, data: Mapping[str, Any], step: int, backend: Any = None) -> None:  # noqa: ARG002 (verl's signature)
        self.run.log(data, step=step)

    def finish(self) -> None:
        if not self.run.finished:
            self.run.finish("succeeded")

    @classmethod
    def attach(cls, tracking: Any, **kwargs: Any) -> "StarpoTracking":
        """Add a StarpoTracking backend to an existing verl ``Tracking`` object and return it.

        verl keeps its backends in ``tracking.logger`` (a dict name → backend); where that is not
        a dict, ``tracking.log`` is wrapped instead.
        """
        backend = cls(**kwargs)
        loggers = getattr(tracking, "logger", None)
        if isinstance(loggers, dict):
            loggers["starpo"] = backend
        else:
            original = tracking.log

            def log(data: Mapping[str, Any], step: int, *args: Any, **kw: Any) -> Any:
                backend.log(data, step)
                return original(data, step, *args, **kw)

            tracking.log = log
        return backend


def _planned_steps(config: Optional[Mapping[str, Any]]) -> Optional[int]:
    trainer = (config or {}).get("trainer") if isinstance(config, Mapping) else None
    steps = trainer.get("total_training_steps") if isinstance(trainer, Mapping) else None
    return steps if isinstance(steps, int) and steps > 0 else None
