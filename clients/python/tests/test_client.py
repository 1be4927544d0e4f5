"""The client against a real StarPO Studio API (``STARPO_URL``, ``STARPO_TOKEN``).

A small forwarding proxy sits between them, to count requests and to answer 503 on demand.
"""
from __future__ import annotations

import http.server
import json
import os
import subprocess
import sys
import textwrap
import threading
import unittest
import urllib.request
from typing import Any, Dict, List

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import starpo  # noqa: E402
from starpo import StarpoError, StarpoTracking, trajectory_from_ragen  # noqa: E402
from starpo.transport import Transport  # noqa: E402

URL = os.environ.get("STARPO_URL")
TOKEN = os.environ.get("STARPO_TOKEN")


class Proxy:
    """Forwards to the API; ``fail(n)`` makes the next n ingestion requests answer 503."""

    def __init__(self, target: str) -> None:
        self.target = target.rstrip("/")
        self.requests: List[Dict[str, Any]] = []
        self.failures = 0
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _forward(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else None
                proxy.requests.append({"method": self.command, "path": self.path, "bytes": length})
                if proxy.failures and "/ingest/" in self.path:
                    proxy.failures -= 1
                    self.send_response(503)
                    self.send_header("content-type", "application/json")
                    self.end_headers()
                    self.wfile.write(b'{"error":"unavailable","message":"injected","details":[]}')
                    return
                req = urllib.request.Request(proxy.target + self.path, data=body, method=self.command)
                for h in ("authorization", "content-type"):
                    if self.headers.get(h):
                        req.add_header(h, self.headers[h])
                try:
                    with urllib.request.urlopen(req, timeout=60) as res:
                        status, payload = res.status, res.read()
                except urllib.error.HTTPError as err:
                    status, payload = err.code, err.read()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_PATCH = _forward

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def ingests(self, kind: str) -> List[Dict[str, Any]]:
        return [r for r in self.requests if r["path"].endswith(f"/ingest/{kind}")]


def episode(think: str = "The box is at (2, 2).", observation: str = "######\n#P_O_#\n#_X__#\n######") -> Dict[str, Any]:
    return {"success": False, "turns": [{"observation": observation, "rawReply": f"<think>{think}</think><answer>Right</answer>",
                                         "think": think, "answer": "Right", "actions": ["Right"], "reward": -0.1}]}


@unittest.skipUnless(URL and TOKEN, "needs STARPO_URL and STARPO_TOKEN of a running API")
class ClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.proxy = Proxy(URL)
        cls.api = Transport(URL, TOKEN)

    def setUp(self) -> None:
        self.proxy.requests.clear()
        self.proxy.failures = 0

    def new_run(self, **kw: Any) -> starpo.Run:
        kw.setdefault("env", "sokoban")
        run = starpo.init(self.proxy.url, TOKEN, name=self.id().split(".")[-1], flush_interval=0.2,
                          finish_at_exit=False, **kw)
        self.addCleanup(lambda: run.finished or run.finish("succeeded"))
        return run

    def points(self, run_id: str, key: str) -> List[Dict[str, Any]]:
        series = self.api.request("GET", f"/api/runs/{run_id}/metrics?keys={key}")
        return series[0]["points"] if series else []

    def trajectories(self, run_id: str) -> List[Dict[str, Any]]:
        return self.api.request("GET", f"/api/runs/{run_id}/trajectories?limit=200")["items"]

    def test_batches_within_the_server_limits(self) -> None:
        run = self.new_run()
        for step in range(1250):
            run.log({"train/success": step / 1250, "train/reward": {"mean": 1.0}}, step=step)
        # ~270 kB each (three turns of 45,000-character thinks, the server's cap being 50,000)
        big = [episode(think=f"{i} " + "x" * 45_000) for i in range(5)]
        for t in big:
            t["turns"] = t["turns"] * 3
        run.log_trajectories(big, step=1, split="val")
        run.flush()
        self.assertEqual(len(self.points(run.id, "train/success")), 1250)
        self.assertEqual(len(self.points(run.id, "train/reward/mean")), 1250)
        metric_posts = self.proxy.ingests("metrics")
        self.assertGreaterEqual(len(metric_posts), 3)  # 2,500 points, at most 1,000 a request
        traj_posts = self.proxy.ingests("trajectories")
        self.assertGreaterEqual(len(traj_posts), 2)  # 1.5 MB of thinks, at most 1 MB a request
        self.assertTrue(all(r["bytes"] <= 1_000_000 for r in metric_posts + traj_posts))
        self.assertEqual(len(self.trajectories(run.id)), 5)

    def test_retries_after_503_and_stores_everything_once(self) -> None:
        run = self.new_run()
        self.proxy.failures = 2
        run.log({"val/success": 0.5}, step=3)
        run.log_trajectories([episode()], step=3, split="val")
        run.flush(timeout=60)
        self.assertEqual(self.proxy.failures, 0)
        self.assertGreaterEqual(run._t.retries, 2)
        self.assertEqual([p["value"] for p in self.points(run.id, "val/success")], [0.5])
        self.assertEqual(len(self.trajectories(run.id)), 1)

    def test_replay_is_idempotent(self) -> None:
        run = self.new_run()
        batch = [episode(), episode(think="The box is at (1, 1).")]
        run.log({"train/success": 0.25}, step=7)
        run.log_trajectories(batch, step=7)
        run.flush()
        # a restarted trainer reattaches and sends the same step again
        again = starpo.init(self.proxy.url, TOKEN, run_id=run.id, finish_at_exit=False, flush_interval=0.2)
        again.log({"train/success": 0.25}, step=7)
        again.log_trajectories(batch, step=7)
        again.flush()
        self.assertEqual(len(self.points(run.id, "train/success")), 1)
        self.assertEqual(sorted(t["indexInGroup"] for t in self.trajectories(run.id)), [0, 1])

    def test_field_errors_raise_with_the_servers_details(self) -> None:
        with self.assertRaises(StarpoError) as bad_init:
            starpo.init(self.proxy.url, TOKEN, tags=["x" * 80], finish_at_exit=False)
        self.assertEqual(bad_init.exception.status, 400)
        self.assertEqual(bad_init.exception.details[0]["path"], "tags.0")
        self.assertIn("tags.0", str(bad_init.exception))

        run = self.new_run()
        bad = episode()
        bad["turns"][0]["reward"] = "lots"
        run.log_trajectories([bad], step=1)
        with self.assertRaises(StarpoError) as refused:
            run.flush()
        self.assertEqual(refused.exception.status, 400)
        self.assertEqual(refused.exception.error, "validation_failed")
        self.assertEqual(refused.exception.details[0]["path"], "trajectories.0.turns.0.reward")
        # later data still flows
        run.log_trajectories([episode()], step=2)
        run.flush()
        self.assertEqual([t["step"] for t in self.trajectories(run.id)], [2])
        with self.assertRaises(StarpoError):
            starpo.init(self.proxy.url, "stp_wrong", finish_at_exit=False)

    def test_finish_sends_what_is_queued_and_closes_the_run(self) -> None:
        run = self.new_run(total_steps=10, config={"algorithm": {"adv_estimator": "grpo"}, "lr": 1e-6})
        run.log({"val/success": 1.0}, step=10)
        run.finish("succeeded")
        detail = self.api.request("GET", f"/api/runs/{run.id}")
        self.assertEqual(detail["status"], "succeeded")
        self.assertEqual(detail["totalSteps"], 10)
        self.assertEqual(detail["algorithm"], "grpo")
        self.assertEqual(detail["config"], {"algorithm": {"adv_estimator": "grpo"}, "lr": 1e-6,
                                            "env": {"name": "sokoban"}, "training": {"steps": 10}})
        self.assertEqual(len(self.points(run.id, "val/success")), 1)
        with self.assertRaises(StarpoError):
            run.log({"val/success": 1.0}, step=11)
        with self.assertRaises(ValueError):
            self.new_run().finish("exploded")

    def test_flushes_and_finishes_at_exit(self) -> None:
        script = textwrap.dedent(f"""
            import sys; sys.path.insert(0, {os.path.dirname(HERE)!r})
            import starpo
            run = starpo.init({self.proxy.url!r}, {TOKEN!r}, name="exit", env="sokoban", flush_interval=60)
            print(run.id, flush=True)
            run.log({{"train/success": 0.5}}, step=1)
            if sys.argv[1] == "crash":
                raise RuntimeError("trainer died")
        """)
        for mode, status in (("clean", "succeeded"), ("crash", "failed")):
            out = subprocess.run([sys.executable, "-c", script, mode], capture_output=True, text=True, timeout=120)
            run_id = out.stdout.split()[0]
            detail = self.api.request("GET", f"/api/runs/{run_id}")
            self.assertEqual(detail["status"], status, out.stderr)
            self.assertEqual(len(self.points(run_id, "train/success")), 1)

    def test_ragen_records_and_the_verl_backend(self) -> None:
        class VerlTracking:  # the shape of verl's Tracking: backends in a dict
            def __init__(self) -> None:
                self.logger: Dict[str, Any] = {}

            def log(self, data: Dict[str, Any], step: int) -> None:
                for backend in self.logger.values():
                    backend.log(data=data, step=step)

        tracking = VerlTracking()
        backend = StarpoTracking.attach(tracking, project_name="ragen", experiment_name="verl-adapter",
                                        config={"trainer": {"total_training_steps": 50}, "env": "SimpleSokoban"},
                                        url=self.proxy.url, token=TOKEN)
        tracking.log({"train/SimpleSokoban/success": 0.1, "val/SimpleSokoban/pass@16": 0.4, "timing_s/gen": 3.2,
                      "val/generations": [["a", "b", 1.0]]}, step=1)
        prompt = ("<|im_start|>user\nTurn 1:\nState:\n######\n#P_O_#\n#_X__#\n######\nYou have 10 actions left. "
                  "Always output: <think> [Your thoughts] </think> <answer> [your answer] </answer>\n<|im_end|>\n"
                  "<|im_start|>assistant\n<think>The box is at (1, 3).</think><answer>Down</answer><|im_end|>\n"
                  "<|im_start|>user\nReward:\n-0.1\n\nTurn 2:\nState:\n######\n#__O_#\n#PX__#\n######\n"
                  "You have 9 actions left.<|im_end|>\n<|im_start|>assistant\n<think>")
        record = trajectory_from_ragen(prompt, "The box is right of me.</think><answer>Right</answer>", success=False)
        backend.run.log_trajectories([record], step=1, split="val")
        backend.finish()
        detail = self.api.request("GET", f"/api/runs/{backend.run.id}")
        self.assertEqual((detail["environment"], detail["totalSteps"], detail["status"]), ("sokoban", 50, "succeeded"))
        self.assertIn("ragen", detail["tags"])
        self.assertEqual(len(self.points(backend.run.id, "val/SimpleSokoban/pass@16")), 1)
        [item] = self.trajectories(backend.run.id)
        replay = self.api.request("GET", f"/api/trajectories/{item['id']}")
        first, second = replay["turns"]
        self.assertEqual(first["stateSnapshot"]["player"], [1, 1])  # rebuilt from the text
        self.assertEqual(second["stateSnapshot"]["boxes"], [[2, 2]])
        self.assertEqual(first["diagnostics"]["contradicted"], 1)  # the box is not at (1, 3)
        self.assertEqual(item["flags"], ["hallucinated"])


class OfflineTest(unittest.TestCase):
    """Parts that need no server."""

    def test_ragen_generations_and_reply_parsing(self) -> None:
        trajs = starpo.trajectories_from_generations([
            ("Turn 1:\nState:\nP_\n_G\nYou have 3 actions left.\n", "<think>down</think><answer>Down || Right</answer>", 1.0),
            ("Turn 1:\nState:\nP_\n_G\n", "no tags at all", 0.0),
        ])
        self.assertEqual([t["success"] for t in trajs], [True, False])
        self.assertEqual(trajs[0]["turns"][0]["actions"], ["Down", "Right"])
        self.assertEqual(trajs[0]["turns"][0]["observation"], "P_\n_G")
        self.assertEqual(trajs[0]["turns"][0]["reward"], 1.0)
        self.assertFalse(trajs[1]["turns"][0]["formatOk"])
        self.assertEqual([t["indexInGroup"] for t in trajs], [0, 1])

    def test_config_is_made_json_safe(self) -> None:
        self.assertEqual(starpo._clean({"a": (1, float("nan")), "b": {"c": object} }),
                         {"a": [1, "nan"], "b": {"c": str(object)}})


if __name__ == "__main__":
    unittest.main()
