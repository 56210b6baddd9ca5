"""The audit of a day of logs in object storage: a local S3 (moto's server mode on loopback)
holding hourly Hive partitions of gzipped JSONL (benchmarks/gen_anthropic_log.py), audited with
one process, two local worker processes and a Dask LocalCluster of two workers (docs/scale.md).

    pip install 'cachelint[s3,dask]' 'moto[server]'
    python benchmarks/bench_storage.py --requests 4000 --hours 8
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=4000)
    parser.add_argument("--hours", type=int, default=8)
    args = parser.parse_args()
    import fsspec
    from moto.server import ThreadedMotoServer

    env = dict(os.environ, AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench", AWS_DEFAULT_REGION="us-east-1")
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    env["AWS_ENDPOINT_URL"] = f"http://{host}:{port}"
    os.environ.update(env)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            log = Path(tmp) / "day.jsonl"
            subprocess.run(
                [sys.executable, str(HERE / "gen_anthropic_log.py"), "--requests", str(args.requests), "-o", str(log)],
                check=True,
                stdout=subprocess.DEVNULL,
            )
            lines = log.read_bytes().splitlines(keepends=True)
            fs = fsspec.filesystem("s3", skip_instance_cache=True)
            fs.mkdir("bench")
            per_hour = -(-len(lines) // args.hours)
            stored = 0
            for hour in range(args.hours):
                data = gzip.compress(b"".join(lines[hour * per_hour : (hour + 1) * per_hour]))
                stored += len(data)
                fs.pipe(f"bench/agent/year=2026/month=12/day=01/hour={hour:02d}/requests.jsonl.gz", data)
            print(
                f"load average {os.getloadavg()[0]:.1f}; {len(lines)} requests, {log.stat().st_size / 1e6:.0f} MB in {args.hours} objects ({stored / 1e6:.1f} MB gzip)"
            )
            runs = {
                "1 process": ["--jobs", "1"],
                # a chunk under the objects' stored size: the workers are used (a run with less JSONL
                # than one chunk is audited in one process)
                "2 local workers": ["--jobs", "2", "--chunk-size", "65536"],
                "Dask LocalCluster, 2 workers": ["--jobs", "2", "--engine", "dask", "--chunk-size", "65536"],
            }
            for name, extra in runs.items():
                command = [
                    sys.executable,
                    "-m",
                    "cachelint",
                    "audit",
                    *extra,
                    "--output-format",
                    "json",
                    "s3://bench/agent/",
                ]
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                start = time.perf_counter()
                done = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
                wall = time.perf_counter() - start
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
                digest = hashlib.sha256(done.stdout).hexdigest()[:12]
                print(f"{name}: {wall:.2f} s wall, {cpu:.2f} s CPU, exit {done.returncode}, JSON sha256 {digest}")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
