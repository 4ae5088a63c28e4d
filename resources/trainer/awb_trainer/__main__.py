"""python3 -m awb_trainer serve | run | ray-submit (docs/trainer-protocol.md, resources/trainer/README.md)."""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import sys
import threading
from typing import Optional

from .atomic import write_atomic


MIN_TOKEN = 16


def _token(workdir: str, token_file: Optional[str]) -> str:
    """The bearer token: --token-file's, else DIR/token, generated (0600, written atomically) on first start.

    A token shorter than MIN_TOKEN characters is refused wherever it comes from: an empty DIR/token (say, from a crash
    between creating and writing it by an older version) would otherwise let `Authorization: Bearer ` through.
    """
    path = token_file or os.path.join(workdir, "token")
    if token_file or os.path.exists(path):
        with open(path, "r", encoding="utf-8") as f:
            token = f.read().strip()
        if len(token) < MIN_TOKEN:
            hint = "" if token_file else " (delete it to have a new one generated)"
            raise SystemExit(f"awb-trainer: the token in {path} is shorter than {MIN_TOKEN} characters{hint}")
        if not token_file:
            print(f"awb-trainer: using the token in {path}", file=sys.stderr)
        return token
    token = secrets.token_urlsafe(32)
    write_atomic(path, token + "\n", mode=0o600)
    print(f"awb-trainer: token (saved in {path}, mode 0600): {token}", file=sys.stderr)
    return token


def _serve(args: argparse.Namespace) -> int:
    from .server import RunningService, TrainerService

    if args.gpus > 1:
        # Only more than one rank can exceed the CUDA devices (with CUDA there is at least one), so only then is torch
        # imported here (seconds): every job would fail in rank k ≥ device count (torch_util.GpuCountError): refuse at start.
        from .jobs import torch_info

        info = torch_info()
        if info["cuda"] and args.gpus > len(info["devices"]):
            raise SystemExit(f"awb-trainer: --gpus {args.gpus}, but this machine has {len(info['devices'])} CUDA device(s): {', '.join(info['devices'])}")
    from .publish_keys import PublishKeyArgError, parse_publish_keys

    try:
        publish_keys = parse_publish_keys(args.publish_key or [])
    except PublishKeyArgError as e:
        raise SystemExit(f"awb-trainer: {e}") from None
    os.makedirs(args.workdir, exist_ok=True)
    service = TrainerService(args.workdir, _token(args.workdir, args.token_file), gpus=args.gpus,
                             max_upload_bytes=int(args.max_upload_gib * (1 << 30)), log=not args.quiet,
                             upload_read_timeout=args.upload_read_timeout, publish_keys=publish_keys,
                             upload_quota_bytes=int(args.upload_quota_gib * (1 << 30)))
    # torch is imported before listening (seconds), after the quick refusals above: /v1/health reports it, and the
    # workbench's reachability check (on saving a profile, before a submit) gives the first health answer 3 s.
    from .jobs import torch_info

    torch_info()
    running = RunningService(service, args.host, args.port).start()
    print(f"awb-trainer listening on {running.url}", flush=True)
    done = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: done.set())
    done.wait()
    running.stop()
    return 0


def _run(args: argparse.Namespace) -> int:
    from .run import run_job_outcome

    job = os.path.abspath(args.job)
    status, error = run_job_outcome(job, args.events)
    if args.results and int(os.environ.get("RANK", "0")) == 0:
        from .ray_submit import publish_results

        # Ray workers run in a copy of the working directory: the finished job goes where the workbench can read it.
        dest = publish_results(job, args.results, status, error)
        print(f"awb-trainer: job results in {dest}", file=sys.stderr)
    return 1 if status == "failed" else 0


def _ray_submit(args: argparse.Namespace) -> int:
    from .ray_submit import RaySubmitError, submit

    headers = {}
    if args.token_env:
        headers["Authorization"] = f"Bearer {os.environ[args.token_env]}"
    try:
        answer = submit(args.address, os.path.abspath(args.job), gpus=args.gpus, results=args.results, headers=headers)
    except RaySubmitError as e:
        print(f"awb-trainer: {e}", file=sys.stderr)
        return 1
    print(f"submitted Ray job {answer.get('submission_id') or answer.get('job_id')}", flush=True)
    return 0


def main(argv: Optional[list[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m awb_trainer", description="awb remote trainer")
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("serve", help="run the HTTP trainer service")
    s.add_argument("--host", default="127.0.0.1", help="bind address (default loopback; use SSH/TLS in front for remote use)")
    s.add_argument("--port", type=int, default=8470, help="port (0 picks a free one; the listening line says which)")
    s.add_argument("--workdir", required=True, help="state: uploads/, jobs/<id>/, token")
    s.add_argument("--token-file", help="file holding the bearer token (default: DIR/token, generated on first start)")
    s.add_argument("--gpus", type=int, default=1, help="processes per job; > 1 runs jobs under torchrun")
    s.add_argument("--max-upload-gib", type=float, default=1024.0, help="largest accepted dataset bundle")
    s.add_argument("--upload-read-timeout", type=float, default=30.0,
                   help="seconds without upload bytes before a chunk is released (kept so far, 408); default 30")
    s.add_argument("--upload-quota-gib", type=float, default=2048.0,
                   help="all uploads in the workdir together (complete, and declared by those under way); default 2048")
    s.add_argument("--publish-key", action="append", metavar="VAR[=URL]",
                   help="an environment variable jobs may send as config.publish.apiKeyEnv, and the one base URL it may go to "
                        "(without =URL: any); repeatable; without it no job may send a key")
    s.add_argument("--quiet", action="store_true", help="no request log on stderr")
    r = sub.add_parser("run", help="run one job directory (job.json + dataset.tar) to its end")
    r.add_argument("--job", required=True)
    r.add_argument("--events", choices=("file", "stdout"), default="file", help="file: events.jsonl + job.json; stdout: for the service")
    r.add_argument("--results", help="publish the finished job under PATH/<job id> (Ray: shared storage the workbench reads)")
    y = sub.add_parser("ray-submit", help="submit a job directory through the Ray Jobs REST API")
    y.add_argument("--address", required=True, help="Ray dashboard, e.g. http://HEAD:8265")
    y.add_argument("--job", required=True)
    y.add_argument("--gpus", type=int, default=1)
    y.add_argument("--results", help="path on the cluster's shared storage; the finished job goes to PATH/<job id>")
    y.add_argument("--token-env", help="environment variable with a bearer token for the Ray dashboard")
    args = p.parse_args(argv)
    if args.cmd == "serve":
        return _serve(args)
    if args.cmd == "run":
        return _run(args)
    if args.cmd == "ray-submit":
        return _ray_submit(args)
    raise AssertionError(f"unhandled command {args.cmd!r}")  # argparse's required=True makes this unreachable


if __name__ == "__main__":
    sys.exit(main())
