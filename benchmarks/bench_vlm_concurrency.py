"""VLM study throughput against one endpoint as ``--max-inflight`` grows, and an ``--rpm`` cap holding.

A VLM study waits on its endpoint, so its speed is set by how many requests are
open at once. This runs the same small VLM study (ViPlan grounder protocol on
viplan-bw/simple, ``--no-cache``) against the local OpenAI-compatible test server
(``tests/support/openai_server.py``), whose every reply takes a fixed latency,
once per ``--max-inflight`` value and once more with the largest value under an
``--rpm`` cap. Replies are a hash of the request (image and question), so every
run asks exactly the same questions; the script checks that, and prints per run
the requests per second, its speed-up over one request in flight, the ideal
speed-up (the in-flight limit), and the most requests the server saw open at once.

Usage: python -m benchmarks.bench_vlm_concurrency [--latency 0.05] [--problems 4] [--inflight 1,2,4,8,16]
       [--rpm 1200]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))

from openai_server import Reply, start_fake_openai  # noqa: E402 - the test server lives with the tests

from benchmarks.runner import run_study  # noqa: E402
from benchmarks.store import read_records  # noqa: E402
from benchmarks.study_config import RunConfig  # noqa: E402


class LatencyEndpoint:
    """Replies after ``latency`` seconds, "Yes" or "No" from a hash of the request; counts requests open at once.

    The counters are shared memory: the server runs in its own process, as a real
    endpoint would, so it takes no CPU time from the study being measured.
    """

    def __init__(self, latency: float) -> None:
        self.latency = latency
        self.open_now, self.most_open, self.requests = (multiprocessing.Value("i", 0) for _ in range(3))

    def reset(self) -> None:
        for value in (self.open_now, self.most_open, self.requests):
            value.value = 0

    def __call__(self, request: dict) -> Reply:
        with self.open_now.get_lock():
            self.open_now.value += 1
            self.requests.value += 1
            self.most_open.value = max(self.most_open.value, self.open_now.value)
        time.sleep(self.latency)
        digest = hashlib.sha256(json.dumps(request["messages"], sort_keys=True).encode()).digest()
        with self.open_now.get_lock():
            self.open_now.value -= 1
        return Reply("Yes" if digest[0] % 2 else "No", prompt_tokens=450, completion_tokens=1)


def _serve(endpoint: LatencyEndpoint, urls: multiprocessing.SimpleQueue) -> None:
    server = start_fake_openai(endpoint)
    urls.put(server.base_url)
    threading.Event().wait()  # until the parent terminates this process


def serve_in_process(endpoint: LatencyEndpoint) -> tuple[multiprocessing.Process, str]:
    """The test server in a child process; returns it and its base URL."""
    urls: multiprocessing.SimpleQueue = multiprocessing.get_context("fork").SimpleQueue()
    process = multiprocessing.get_context("fork").Process(target=_serve, args=(endpoint, urls), daemon=True)
    process.start()
    return process, urls.get()


def run(endpoint: LatencyEndpoint, url: str, problems: int, inflight: int, rpm: float | None) -> dict:
    config = RunConfig(suite="viplan-bw/simple", grounder="vlm", model="bench-vlm", base_url=url, no_cache=True,
                       problems=problems, max_steps=1, max_inflight=inflight, rpm=rpm)
    endpoint.reset()
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        episodes = run_study(config, Path(tmp) / "run", progress=False)
        elapsed = time.perf_counter() - start
        records = read_records(episodes)
    return {"inflight": inflight, "rpm": rpm, "seconds": elapsed, "requests": endpoint.requests.value,
            "episodes": len(records), "most_open": endpoint.most_open.value,
            "questions": sum(r["questions"] for r in records)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--latency", type=float, default=0.05, help="seconds per reply (default 0.05)")
    parser.add_argument("--problems", type=int, default=4, help="viplan-bw/simple problems (default 4)")
    parser.add_argument("--inflight", default="1,2,4,8,16", help="--max-inflight values (default 1,2,4,8,16)")
    parser.add_argument("--rpm", type=float, default=1200.0, help="the cap of the last run, with the largest "
                        "in-flight value (default 1200)")
    args = parser.parse_args(argv)
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
    limits = [int(v) for v in args.inflight.split(",")]
    endpoint = LatencyEndpoint(args.latency)
    print(f"VLM study against the local test server, {args.latency * 1000:.0f} ms a reply: viplan-grounder on "
          f"viplan-bw/simple, {args.problems} problems, max 1 step, --no-cache")
    print(f"{'--max-inflight':>14} {'--rpm':>7} {'requests':>9} {'seconds':>8} {'req/s':>7} {'req/min':>8} "
          f"{'speed-up':>9} {'ideal':>6} {'most open':>10}")
    rows = []
    server, url = serve_in_process(endpoint)
    try:
        for inflight in limits:
            rows.append(run(endpoint, url, args.problems, inflight, None))
        rows.append(run(endpoint, url, args.problems, limits[-1], args.rpm))
    finally:
        server.terminate()
        server.join()
    base = rows[0]["requests"] / rows[0]["seconds"]
    for row in rows:
        rate = row["requests"] / row["seconds"]
        ideal = f"{row['inflight'] / rows[0]['inflight']:.0f}x" if row["rpm"] is None else "cap"
        rpm = f"{row['rpm']:.0f}" if row["rpm"] else "-"
        print(f"{row['inflight']:>14} {rpm:>7} {row['requests']:>9} {row['seconds']:>8.2f} {rate:>7.1f} "
              f"{rate * 60:>8.0f} {rate / base:>8.2f}x {ideal:>6} {row['most_open']:>10}")
    same = len({(r["requests"], r["questions"]) for r in rows}) == 1
    capped = rows[-1]
    allowed = max(1.0, args.rpm / 60) + args.rpm / 60 * capped["seconds"]  # the bucket's one-second burst + rate
    print(f"same questions in every run: {'yes' if same else 'NO'}; in flight never above the limit: "
          f"{'yes' if all(r['most_open'] <= r['inflight'] for r in rows) else 'NO'}; --rpm {args.rpm:.0f} held: "
          f"{'yes' if capped['requests'] <= allowed else 'NO'} ({capped['requests']} requests in "
          f"{capped['seconds']:.1f} s, at most {allowed:.0f} allowed)")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
