"""Two builds of the head unit in the side by side, alternated: A, B, A,
B ... so that the machine's other load falls on both alike. Prints, per
build and run, the CPU time per notification and its user and kernel
parts, wake-ups, reads and writes per notification; then the medians.

    .venv/bin/python Benchmarks/Peer/ab.py OLD_BINARY NEW_BINARY [runs] [notifications]

BENCH_PIN=1 or 2 places the simulated phone and the head unit as the side
by side does (side_by_side.py). Identical runs of one build differ by
10-30% on a shared machine; a change is shown when every run of one build
is below every run of the other.
"""
import asyncio
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from side_by_side import PhoneOnConsumerCPU, run_headunit  # noqa: E402


def per_notification(cpu, count):
    return {"cpu_us": cpu["cpu_s"] / count * 1e6,
            "user_us": cpu["user_s"] / count * 1e6, "kernel_us": cpu["system_s"] / count * 1e6,
            "wakeups": cpu["wakeups"] / count, "reads": cpu["reads"] / count, "writes": cpu["writes"] / count}


async def main(binaries, runs, count):
    results = {b: [] for b in binaries}
    for run in range(runs):
        for label, binary in zip("AB", binaries):
            out = os.path.join("out", "ab", f"{label}{run}")
            with PhoneOnConsumerCPU():
                result = await run_headunit(binary, out, count, 0)
            figures = per_notification(result["cpu"], count)
            results[binary].append(figures)
            print(f"{label} run {run + 1}: " + ", ".join(f"{k} {v:.1f}" for k, v in figures.items()), flush=True)
    for label, binary in zip("AB", binaries):
        rows = results[binary]
        medians = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
        print(f"{label} {binary}: median " + ", ".join(f"{k} {v:.1f}" for k, v in medians.items()))


if __name__ == "__main__":
    old, new = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    count = int(sys.argv[4]) if len(sys.argv) > 4 else 1000
    asyncio.run(main([old, new], runs, count))
