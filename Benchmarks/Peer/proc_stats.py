"""CPU time and wake-ups of a running process, from /proc (every thread)."""
import os

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def _tasks(pid):
    try:
        return os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []


def snapshot(pid):
    """cpu_s (scheduler run time, nanosecond resolution), ticks_s (utime +
    stime, 1/CLK_TCK resolution), switches (voluntary + involuntary context
    switches: each time a thread went to sleep or was preempted), wakeups
    (voluntary switches alone: each sleep in poll(2) that ended), reads and
    writes (read(2)- and write(2)-family system calls, from /proc/PID/io:
    exact counts without a tracer slowing the process down)."""
    cpu_ns = 0
    voluntary = involuntary = 0
    for tid in _tasks(pid):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                cpu_ns += int(f.read().split()[0])
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                for line in f:
                    if line.startswith("voluntary_ctxt_switches:"):
                        voluntary += int(line.split()[1])
                    elif line.startswith("nonvoluntary_ctxt_switches:"):
                        involuntary += int(line.split()[1])
        except OSError:
            continue
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    user, system = int(fields[11]), int(fields[12])
    io = {}
    with open(f"/proc/{pid}/io") as f:
        for line in f:
            key, _, value = line.partition(":")
            io[key] = int(value)
    return {"cpu_s": cpu_ns / 1e9, "ticks_s": (user + system) / CLOCK_TICKS, "user_s": user / CLOCK_TICKS,
            "system_s": system / CLOCK_TICKS, "wakeups": voluntary,
            "switches": voluntary + involuntary, "reads": io["syscr"], "writes": io["syscw"]}


def delta(before, after):
    return {k: after[k] - before[k] for k in before}


def peak_rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return None
