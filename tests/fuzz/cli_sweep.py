#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The product under hostile files: mutated inputs through the real `kernelscope-cli run`, reader worker and all.

The libFuzzer targets call the readers in-process, where a crash inside libhdf5 ends the target. The product reads
files in a reader worker process instead, so the question here is the user's: whatever the file, does the CLI end
with a result or one line of error (exit 0, 1 for a run that failed, 2 for a refused input), within its time, with a
message of at most 200 characters that names the file? Each input is a seed with 1 to 8 bytes patched (or cut
short), written to OUTDIR, run once and deleted unless the CLI misbehaved on it.

  cli_sweep.py --cli PATH --class CLASS --seeds DIR [--count N] [--jobs J] [--seed S] --out OUTDIR

CLASS is the reader class and says how the file is run: sparse_hdf5 (spmv), expression_hdf5 (lrv), point_hdf5 (sdh),
series_hdf5 (linreg), vector_hdf5 (spmv --vector beside a small valid matrix), mtx (spmv), csv (linreg), pdb (sdh).
Writes OUTDIR/CLASS.json (counts by exit code, the slowest input, the longest message, every misbehaving input) and
prints one summary line; exits 1 when any input misbehaved.
"""
import argparse
import concurrent.futures
import json
import os
import random
import shutil
import subprocess
import sys
import time

# How each class's file is handed to the CLI.
WORKLOAD = {
    "sparse_hdf5": ("spmv", ".h5"),
    "expression_hdf5": ("lrv", ".h5"),
    "point_hdf5": ("sdh", ".h5"),
    "series_hdf5": ("linreg", ".h5"),
    "vector_hdf5": ("spmv", ".h5"),
    "mtx": ("spmv", ".mtx"),
    "csv": ("linreg", ".csv"),
    "pdb": ("sdh", ".pdb"),
}
# A run of one CPU variant, once, with nothing to flush: the file's reading is what is under test.
RUN_ARGS = ["--variant", "cpu_openmp", "--warmup", "0", "--min-reps", "1", "--max-reps", "1", "--time-limit", "0.1",
            "--no-flush", "--no-calibrate"]
# One thread per run: the sweep runs many at once.
RUN_ENV = dict(os.environ, OMP_NUM_THREADS="1")
# Exit codes of an orderly end: a result (0), a run that failed (1), a refused input (2).
ORDERLY = {0, 1, 2}
TIMEOUT_S = 120
MAX_MESSAGE = 200


def mutate(data: bytes, rng: random.Random) -> bytes:
    """1 to 8 bytes patched at random places (a quarter of the time one region, as a corrupted sector), or the file
    cut short (one input in ten)."""
    if len(data) > 16 and rng.random() < 0.1:
        return data[: rng.randrange(8, len(data))]
    out = bytearray(data)
    n = rng.randint(1, 8)
    if rng.random() < 0.25:
        start = rng.randrange(0, max(1, len(out) - n))
        places = range(start, min(len(out), start + n))
    else:
        places = [rng.randrange(0, len(out)) for _ in range(n)]
    for p in places:
        out[p] = rng.choice([0, 0xFF, rng.randrange(256), out[p] ^ (1 << rng.randrange(8))])
    return bytes(out)


def small_matrix(folder: str) -> str:
    """A valid 4 × 4 matrix for the vector class (a vector of 4 values is then what the matrix asks for)."""
    path = os.path.join(folder, "matrix4.mtx")
    with open(path, "w") as f:
        f.write("%%MatrixMarket matrix coordinate real general\n4 4 5\n1 1 1\n2 2 2\n3 3 3\n4 4 4\n1 4 0.5\n")
    return path


def run_one(cli, cls, path, matrix):
    workload, _ = WORKLOAD[cls]
    if cls == "vector_hdf5":
        argv = [cli, "run", "--workload", workload, "--input", matrix, "--vector", path] + RUN_ARGS
    else:
        argv = [cli, "run", "--workload", workload, "--input", path] + RUN_ARGS
    start = time.monotonic()
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=TIMEOUT_S, env=RUN_ENV)
        code, stderr = done.returncode, done.stderr.decode("utf-8", "replace")
        stdout = done.stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired as e:
        code, stderr, stdout = "timeout", (e.stderr or b"").decode("utf-8", "replace"), ""
    seconds = time.monotonic() - start
    errors = [line for line in stderr.splitlines() if line.startswith("error:")]
    message = errors[-1] if errors else ""
    if code == 1 and not message:
        # A run that failed says why in its row of the table on stdout.
        rows = [line.strip() for line in stdout.splitlines() if " failed " in line]
        message = rows[-1] if rows else ""
    problems = []
    if code not in ORDERLY:
        problems.append(f"exit {code}")
    if code == 2:
        if not message:
            problems.append("refused without an error line")
        elif len(message) > MAX_MESSAGE:
            problems.append(f"message of {len(message)} characters")
        elif os.path.basename(path) not in message:
            problems.append("message does not name the file")
    return code, seconds, message, problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cli", required=True)
    ap.add_argument("--class", dest="cls", required=True, choices=sorted(WORKLOAD))
    ap.add_argument("--seeds", required=True, nargs="+")
    ap.add_argument("--count", type=int, default=10000)
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    seeds = []
    for folder in args.seeds:
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            if os.path.isfile(path) and os.path.getsize(path) > 0:
                with open(path, "rb") as f:
                    seeds.append(f.read())
    if not seeds:
        sys.exit(f"cli_sweep.py: no seed files in {args.seeds}")
    work = os.path.join(args.out, args.cls)
    kept = os.path.join(args.out, args.cls + "-kept")
    os.makedirs(work, exist_ok=True)
    os.makedirs(kept, exist_ok=True)
    matrix = small_matrix(args.out)
    rng = random.Random(args.seed)
    suffix = WORKLOAD[args.cls][1]

    def job(i):
        data = mutate(seeds[i % len(seeds)], random.Random(rng_seeds[i]))
        path = os.path.join(work, f"in{i:06d}{suffix}")
        with open(path, "wb") as f:
            f.write(data)
        code, seconds, message, problems = run_one(args.cli, args.cls, path, matrix)
        if problems or code == 1:
            # Misbehaving inputs, and those whose run failed (worth a look: the reader took them), are kept.
            shutil.move(path, os.path.join(kept, os.path.basename(path)))
        else:
            os.remove(path)
        return i, code, seconds, message, problems

    rng_seeds = [rng.getrandbits(64) for _ in range(args.count)]
    counts, bad, failed, slowest, longest = {}, [], [], (0.0, ""), (0, "")
    began = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for i, code, seconds, message, problems in pool.map(job, range(args.count)):
            counts[str(code)] = counts.get(str(code), 0) + 1
            if seconds > slowest[0]:
                slowest = (seconds, f"in{i:06d}{suffix}")
            if message.startswith("error:") and len(message) > longest[0]:
                longest = (len(message), message)
            if code == 1:
                failed.append({"input": f"in{i:06d}{suffix}", "row": message})
            if problems:
                bad.append({"input": f"in{i:06d}{suffix}", "exit": code, "problems": problems, "message": message})
    report = {
        "class": args.cls,
        "workload": WORKLOAD[args.cls][0],
        "inputs": args.count,
        "seeds": len(seeds),
        "wall_s": round(time.monotonic() - began, 1),
        "exit_codes": counts,
        "slowest_s": round(slowest[0], 2),
        "slowest_input": slowest[1],
        "longest_message_chars": longest[0],
        "longest_message": longest[1],
        "failed_runs": failed,
        "misbehaved": bad,
    }
    with open(os.path.join(args.out, args.cls + ".json"), "w") as f:
        json.dump(report, f, indent=1)
    shutil.rmtree(work, ignore_errors=True)
    print(f"{args.cls}: {args.count} inputs in {report['wall_s']} s, exits {counts}, slowest {report['slowest_s']} s, "
          f"longest message {longest[0]} chars, misbehaved {len(bad)}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
