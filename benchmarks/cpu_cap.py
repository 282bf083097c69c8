"""A process held to a share of the machine's CPU, as if it ran on a machine of its own that size.

The kernel's CFS bandwidth control does it: a cgroup of its own per process, with a quota of CPU time per
period (cgroup v1's ``cpu.cfs_quota_us``, v2's ``cpu.max``). ``benchmarks/evening.py`` caps each Celery worker at
half a CPU, so that on a 2-CPU machine two workers leave a core to the database, the broker and the writer they
share it with, and the ratio of their recomputes per second shows how the queue scales out across machines,
not how many cores this one has.

Where no cgroup ``cpu`` controller can be written (no root, a read-only ``/sys/fs/cgroup``), ``CpuCap.make``
answers None and the caller runs uncapped.
"""

from __future__ import annotations

import os
from pathlib import Path

CGROUP = Path("/sys/fs/cgroup")
PERIOD_US = 20_000  # a short period: a 40 ms job is throttled in slices of 10 ms at half a CPU, not 50 ms


def cpu_root(cgroup: Path = CGROUP) -> tuple[Path, int] | None:
    """(the directory under which a capped cgroup is made, the cgroup version), or None when none can be."""
    v1 = cgroup / "cpu"
    if (v1 / "cpu.cfs_quota_us").exists() and os.access(v1, os.W_OK):
        return v1, 1
    for v2 in (cgroup, cgroup / "unified"):
        controllers = v2 / "cgroup.controllers"
        if controllers.exists() and "cpu" in controllers.read_text().split() and os.access(v2, os.W_OK):
            return v2, 2
    return None


class CpuCap:
    """One cgroup of the ``cpu`` controller: the processes added to it share at most ``cores`` CPUs (``set``)."""

    def __init__(self, path: Path, version: int):
        self.path = path
        self.version = version

    @classmethod
    def make(cls, name: str, cgroup: Path = CGROUP) -> CpuCap | None:
        """A new cgroup ``name`` with no cap yet; None where the machine does not let this process make one."""
        root = cpu_root(cgroup)
        if root is None:
            return None
        parent, version = root
        try:
            if version == 2 and "cpu" not in (parent / "cgroup.subtree_control").read_text().split():
                (parent / "cgroup.subtree_control").write_text("+cpu")
            path = parent / name
            path.mkdir(exist_ok=True)
            cap = cls(path, version)
            cap.set(None)
        except OSError:
            return None
        return cap

    def add(self, pid: int) -> None:
        """Move a process (all its threads) into the cgroup; the processes it starts later stay in it."""
        (self.path / "cgroup.procs").write_text(str(pid))

    def set(self, cores: float | None) -> None:
        """At most ``cores`` CPUs for the cgroup's processes together; None: no cap."""
        quota = round(cores * PERIOD_US) if cores else None
        if self.version == 1:
            (self.path / "cpu.cfs_period_us").write_text(str(PERIOD_US))
            (self.path / "cpu.cfs_quota_us").write_text(str(quota or -1))
        else:
            (self.path / "cpu.max").write_text(f"{quota or 'max'} {PERIOD_US}")

    def remove(self) -> None:
        """Delete the cgroup once its processes have exited (the kernel refuses it before: then it stays)."""
        try:
            self.path.rmdir()
        except OSError:
            pass
