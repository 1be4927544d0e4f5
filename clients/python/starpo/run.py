"""A tracked run: metrics and trajectories batched and sent in the background."""
from __future__ import annotations

import atexit
import math
import sys
import threading
import time
import warnings
import weakref
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple

from .errors import StarpoError
from .transport import Transport, encode

#: The server's limits per request.
MAX_POINTS = 1000
MAX_TRAJECTORIES = 1000
MAX_BYTES = 1_000_000
#: Room left for the JSON around the items.
_ENVELOPE = 64

_SPLITS = ("train", "val")
_FINAL = ("succeeded", "failed", "stopped_early")


class Run:
    """One external run. Create it with :func:`starpo.init`.

    ``log`` and ``log_trajectories`` only queue; a background thread sends batches within the
    server's limits (1,000 items and 1 MB a request) every ``flush_interval`` seconds or as soon
    as a batch is full. ``flush`` waits until everything queued is stored; a request the server
    refuses (4xx) raises :class:`StarpoError` from the next call.
    """

    def __init__(self, transport: Transport, detail: Mapping[str, Any], flush_interval: float = 2.0,
                 finish_at_exit: bool = True) -> None:
        self._t = transport
        self.id: str = detail["id"]
        self.name: str = detail.get("name", "")
        #: The run's page on the dashboard.
        self.url: str = detail.get("webUrl") or f"{transport.url}/runs/{self.id}"
        self.flush_interval = flush_interval
        self.finished = False
        self._queue: List[Tuple[str, Any, int]] = []  # (kind, item, encoded size)
        self._cond = threading.Condition()
        self._sending = 0
        self._error: Optional[StarpoError] = None
        self._stop = False
        self._flush_requested = False
        self._next_index: Dict[Tuple[int, str, int], int] = {}
        self._thread = threading.Thread(target=self._loop, name=f"starpo-{self.id[:8]}", daemon=True)
        self._thread.start()
        if finish_at_exit:
            _track_for_exit(self)

    # ----------------------------------------------------------------- public API

    def log(self, metrics: Mapping[str, Any], step: int, time_s: Optional[float] = None) -> None:
        """Queue scalar metrics of ``step`` (keys like ``train/success``; nested dicts are joined with ``/``).

        Values that are not finite numbers (NaN, tables, text) are skipped with a warning.
        """
        self._raise_open()
        step = _step(step)
        now = time.time() if time_s is None else time_s
        for key, value in _flatten(metrics):
            number = _number(value)
            if number is None:
                _warn_once(f"starpo: skipped metric {key!r}: {type(value).__name__} is not a finite number")
                continue
            point = {"key": key[:200], "step": step, "value": number, "time": now}
            self._put("metrics", point)

    def log_trajectories(self, trajectories: Iterable[Mapping[str, Any]], step: int, split: str = "train") -> None:
        """Queue episodes of ``step``: each a dict with ``success`` and ``turns`` (``observation``,
        ``rawReply``, ``reward``, and optionally ``think``, ``answer``, ``actions``, ``formatOk``,
        ``done``, ``snapshot``); ``group``, ``indexInGroup`` and ``seed`` are optional.

        Without ``indexInGroup`` the episodes of a (step, split, group) are numbered in the order
        logged, so a restarted trainer that replays them overwrites instead of duplicating.
        """
        self._raise_open()
        step = _step(step)
        if split not in _SPLITS:
            raise ValueError(f"split must be one of {_SPLITS}, not {split!r}")
        for t in trajectories:
            item = dict(t)
            item.setdefault("step", step)
            item.setdefault("split", split)
            group = int(item.setdefault("group", 0))
            if "indexInGroup" not in item:
                key = (item["step"], item["split"], group)
                item["indexInGroup"] = self._next_index.get(key, 0)
            self._next_index[(item["step"], item["split"], group)] = max(
                self._next_index.get((item["step"], item["split"], group), 0), int(item["indexInGroup"]) + 1)
            if "success" not in item:
                raise ValueError("each trajectory needs 'success' (bool)")
            if not item.get("turns"):
                raise ValueError("each trajectory needs at least one turn")
            self._put("trajectories", item)

    def flush(self, timeout: Optional[float] = None) -> None:
        """Block until everything queued so far is stored (or raise what the server refused)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            self._flush_requested = True
            self._cond.notify_all()
            while (self._queue or self._sending) and self._error is None and self._thread.is_alive():
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    raise TimeoutError(f"starpo: {len(self._queue)} items still unsent after {timeout}s")
                self._cond.wait(left if left is not None else 1.0)
        self._raise_pending()

    def finish(self, status: str = "succeeded", stop_reason: Optional[str] = None) -> None:
        """Send what is queued, then mark the run ``succeeded``, ``failed`` or ``stopped_early``."""
        if status not in _FINAL:
            raise ValueError(f"status must be one of {_FINAL}, not {status!r}")
        if self.finished:
            return
        try:
            self.flush()
        finally:
            self._shutdown()
        body: Dict[str, Any] = {"status": status}
        if stop_reason:
            body["stopReason"] = stop_reason[:500]
        self._t.request("POST", f"/api/runs/{self.id}/ingest/finish", body)
        self.finished = True

    # ------------------------------------------------------------- background

    def _put(self, kind: str, item: Any) -> None:
        size = len(encode(item))
        if size + _ENVELOPE > MAX_BYTES:
            raise ValueError(f"one {kind[:-1]} encodes to {size} bytes; a request takes at most {MAX_BYTES}")
        with self._cond:
            self._queue.append((kind, item, size))
            if self._full_batch_ready():
                self._cond.notify_all()

    def _full_batch_ready(self) -> bool:
        kind = self._queue[0][0]
        count = sum(1 for k, _, _ in self._queue if k == kind)
        return count >= (MAX_POINTS if kind == "metrics" else MAX_TRAJECTORIES) or \
            sum(s for _, _, s in self._queue) >= MAX_BYTES // 2

    def _take_batch(self) -> Tuple[str, List[Any]]:
        """The longest run of same-kind items from the head of the queue that fits one request."""
        kind = self._queue[0][0]
        limit = MAX_POINTS if kind == "metrics" else MAX_TRAJECTORIES
        items: List[Any] = []
        size = _ENVELOPE
        while self._queue and self._queue[0][0] == kind and len(items) < limit and size + self._queue[0][2] + 1 <= MAX_BYTES:
            _, item, s = self._queue.pop(0)
            items.append(item)
            size += s + 1
        return kind, items

    def _ready(self, since: float) -> bool:
        """Send now: stopping, a flush asked for, a full batch, or queued items older than the interval."""
        if self._stop or self._flush_requested:
            return True
        return bool(self._queue) and (self._full_batch_ready() or time.monotonic() - since >= self.flush_interval)

    def _loop(self) -> None:
        since = time.monotonic()
        while True:
            with self._cond:
                while not self._ready(since):
                    self._cond.wait(max(0.01, self.flush_interval - (time.monotonic() - since)))
                if self._error is not None or not self._queue:
                    if self._stop:
                        return
                    self._flush_requested = False
                    self._cond.wait(self.flush_interval)  # an error waits for the caller to see it
                    since = time.monotonic()
                    continue
                kind, items = self._take_batch()
                self._sending += 1
            try:
                field = "points" if kind == "metrics" else "trajectories"
                self._t.request("POST", f"/api/runs/{self.id}/ingest/{kind}", {field: items})
            except StarpoError as err:
                with self._cond:
                    self._error = err
                    # keep the refused batch so nothing is silently lost
                    self._queue[0:0] = [(kind, i, len(encode(i))) for i in items]
            except Exception as err:  # a bug must not kill the sender silently
                with self._cond:
                    self._error = StarpoError(f"starpo sender failed: {err!r}")
            finally:
                with self._cond:
                    self._sending -= 1
                    since = time.monotonic()
                    self._cond.notify_all()

    def _raise_open(self) -> None:
        if self.finished:
            raise StarpoError(f"run {self.id} is finished; start another with starpo.init")
        self._raise_pending()

    def _raise_pending(self) -> None:
        with self._cond:
            err, self._error = self._error, None
            if err is not None:
                # the refused batch cannot succeed as is: drop it so later data still flows
                self._drop_head_batch()
                self._cond.notify_all()
        if err is not None:
            raise err

    def _drop_head_batch(self) -> None:
        if self._queue:
            self._take_batch()

    def _shutdown(self) -> None:
        with self._cond:
            self._stop = True
            self._cond.notify_all()
        self._thread.join(timeout=5)


def _step(step: Any) -> int:
    if isinstance(step, bool) or not isinstance(step, int) and not (isinstance(step, float) and step.is_integer()):
        raise ValueError(f"step must be a non-negative integer, not {step!r}")
    if step < 0:
        raise ValueError(f"step must be a non-negative integer, not {step!r}")
    return int(step)


def _number(value: Any) -> Optional[float]:
    if isinstance(value, bool):
        return float(value)
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _flatten(metrics: Mapping[str, Any], prefix: str = "") -> Iterable[Tuple[str, Any]]:
    for key, value in metrics.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            yield from _flatten(value, name + "/")
        else:
            yield name, value


_warned: set = set()


def _warn_once(message: str) -> None:
    if message not in _warned:
        _warned.add(message)
        warnings.warn(message, stacklevel=3)


# ---------------------------------------------------------------- exit handling

_open_runs: "weakref.WeakSet[Run]" = weakref.WeakSet()
_crashed = False


def _track_for_exit(run: Run) -> None:
    _open_runs.add(run)


def _excepthook(kind, value, tb) -> None:  # type: ignore[no-untyped-def]
    global _crashed
    if not issubclass(kind, KeyboardInterrupt):
        _crashed = True
    _previous_hook(kind, value, tb)


def _finish_open_runs() -> None:
    """At exit: send what is queued and close each open run (``failed`` after an uncaught exception)."""
    for run in list(_open_runs):
        if run.finished:
            continue
        try:
            run.finish("failed" if _crashed else "succeeded", "uncaught exception" if _crashed else None)
        except Exception as err:  # exiting: report, never raise
            print(f"starpo: could not finish run {run.id}: {err}", file=sys.stderr)


_previous_hook = sys.excepthook
sys.excepthook = _excepthook
atexit.register(_finish_open_runs)
