"""What a class's processes use, sampled while the class benchmark runs (delivery/hub_bench.py): resident memory
every second, CPU seconds of each student's server and kernel, proportional set size."""

from __future__ import annotations

import threading

import psutil

from delivery.hub.server import HubServer, tree_rss


class MemorySampler(threading.Thread):
    """Every second: each student's server+kernel RSS (peak kept), and the browser's RSS."""

    def __init__(self, hub: HubServer):
        super().__init__(daemon=True)
        self.hub = hub
        self.stop_event = threading.Event()
        self.peak_per_student: dict[str, int] = {}
        self.peak_total = self.peak_browser = 0  # bytes

    def run(self) -> None:
        while not self.stop_event.wait(1.0):
            try:
                sizes = {name: tree_rss(proc) for name, proc in self.hub.student_servers().items()}
                self.hub.remember_processes()
            except Exception:  # a process ending while it is read: next sample
                continue
            for name, size in sizes.items():
                self.peak_per_student[name] = max(size, self.peak_per_student.get(name, 0))
            self.peak_total = max(self.peak_total, sum(sizes.values()))
            self.peak_browser = max(self.peak_browser, browser_usage()[0])


def browser_usage() -> tuple[int, float]:
    """Resident memory (bytes) and CPU seconds so far of the simulated students' Chromium processes."""
    rss, cpu = 0, 0.0
    for proc in psutil.Process().children(recursive=True):
        try:
            if "chrom" in proc.name():
                rss += proc.memory_info().rss
                times = proc.cpu_times()
                cpu += times.user + times.system
        except psutil.NoSuchProcess:
            continue
    return rss, cpu


def cpu_seconds(proc: psutil.Process) -> float:
    """CPU time (user + system) a student's server and kernel have used so far."""
    total = 0.0
    for member in [proc, *proc.children(recursive=True)]:
        try:
            times = member.cpu_times()
            total += times.user + times.system
        except psutil.NoSuchProcess:
            continue
    return total


def cpu_split(proc: psutil.Process) -> dict:
    """CPU seconds of a student's single-user server itself and of its children (the kernel)."""
    try:
        times = proc.cpu_times()
        server = times.user + times.system
    except psutil.NoSuchProcess:
        return {}
    return {"server": server, "kernel": cpu_seconds(proc) - server}


def pss(proc: psutil.Process) -> int:
    total = 0
    for member in [proc, *proc.children(recursive=True)]:
        try:
            total += member.memory_full_info().pss
        except (psutil.NoSuchProcess, psutil.AccessDenied, AttributeError):
            continue
    return total
