"""Serve an environment to StarPO Studio through its environment protocol, version 1.

The protocol (docs/environments.md) is JSON over HTTP: GET /describe, POST /reset, POST /step and
POST /close. This module needs only the standard library. You write a class with

    reset(seed: int, config: dict) -> str            # the observation text
    step(action: str) -> (str, float, bool, bool)    # observation, reward, done, success

and optionally `actions` (a list of allowed action names, or None for free text), `snapshot()`
(the text the replay draws; the observation by default) and `info` (a dict sent with each step).
"""

import itertools
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PROTOCOL_VERSION = 1


def serve(make_env, *, name, instructions, limits, legend=None, description="", config_schema=None, port=None, host=None):
    """Serve episodes of `make_env()` until interrupted; the port defaults to $STARPO_ENV_PORT or 8765."""
    describe = {
        "protocol": PROTOCOL_VERSION,
        "name": name,
        "description": description,
        "instructions": instructions,
        "configSchema": config_schema or {"type": "object"},
        "limits": limits,
        "legend": legend,
    }
    episodes, lock, ids = {}, threading.Lock(), itertools.count(1)

    def snapshot(env, observation):
        return {"text": env.snapshot() if hasattr(env, "snapshot") else observation, "state": None}

    def reset(body):
        env = make_env()
        observation = env.reset(int(body["seed"]), body.get("config") or {})
        with lock:
            episode = str(next(ids))
            episodes[episode] = env
        actions = getattr(env, "actions", None)
        answer = {"episode": episode, "observation": observation, "snapshot": snapshot(env, observation), "actions": actions}
        if actions is None:
            answer["actionFormat"] = getattr(env, "action_format", "free text")
        return answer

    def step(body):
        with lock:
            env = episodes.get(body["episode"])
        if env is None:
            raise KeyError(f'unknown episode "{body["episode"]}"')
        observation, reward, done, success = env.step(body["action"])
        if done:
            with lock:
                episodes.pop(body["episode"], None)
        return {"observation": observation, "reward": float(reward), "done": bool(done), "success": bool(success),
                "snapshot": snapshot(env, observation), "info": getattr(env, "info", {})}

    def close(body):
        with lock:
            episodes.pop(body.get("episode"), None)
        return {}

    routes = {("GET", "/describe"): lambda _: describe, ("POST", "/reset"): reset, ("POST", "/step"): step,
              ("POST", "/close"): close}

    class Handler(BaseHTTPRequestHandler):
        def handle_one(self, method):
            route = routes.get((method, self.path))
            try:
                if route is None:
                    raise LookupError(f"no route {method} {self.path}")
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}") if method == "POST" else None
                status, answer = 200, route(body)
            except Exception as e:  # the trainer shows this message as the environment's error
                status, answer = (404 if route is None else 500), {"error": {"message": f"{type(e).__name__}: {e}"}}
            data = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            self.handle_one("GET")

        def do_POST(self):
            self.handle_one("POST")

        def log_message(self, *args):
            pass

    port = int(port or os.environ.get("STARPO_ENV_PORT") or 8765)
    server = ThreadingHTTPServer((host or os.environ.get("STARPO_ENV_HOST") or "127.0.0.1", port), Handler)
    print(f"{name}: serving the StarPO environment protocol on http://{server.server_address[0]}:{port}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
