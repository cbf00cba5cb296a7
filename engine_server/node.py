"""This process's hold on its engine node id: claimed at start, renewed while it serves.

An engine node (``STUD_ENGINE_NODE_ID``) owns a set of tables; one process at a time may
serve them, or two processes would write the same tables. At start :meth:`NodeLease.acquire`
claims the node in the registry (:mod:`engine_server.store.nodes`): at once when the node
is free (never started, stopped cleanly, or its lease has run out); when another process
holds it, it watches that holder's lease: a renewal shows the holder is alive and the start
is refused (:class:`NodeHeld`); a lease that runs out without one (a process killed with
``kill -9``) is claimed.

While serving, :meth:`NodeLease.run` renews the lease every third of it. It gives up — and
the engine stops serving its tables — when a renewal finds the node claimed again by
another process (the epoch moved on), or when a renewal fails (the database is unreachable)
and the lease could run out before the next one is answered: another process may claim the
node once the whole lease has run out, and this one must have stopped by then. After a
failed renewal the next one comes sooner (a quarter of the interval). A lease lost to an
unreachable database (:attr:`NodeLease.lost_to_outage`) is not lost to anyone: ``stud engine``
claims the node again once the database answers (:func:`engine_server.server.run_engine`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from datetime import datetime

from engine_server.store.models import EngineNodeRow, NodeState
from engine_server.store.nodes import NodeAddresses, NodeRegistry
from engine_server.store.types import utc_now

__all__ = ["LeaseLost", "NodeHeld", "NodeLease"]

log = logging.getLogger("stud.node")


class NodeHeld(Exception):
    """Another live process holds this node id: this one must not start."""


class LeaseLost(Exception):
    """This process lost its node's lease and stopped serving its tables."""


class NodeLease:
    """The lease of node ``node_id`` for this process (see the module's docstring)."""

    def __init__(
        self,
        registry: NodeRegistry,
        node_id: str,
        lease_seconds: float,
        *,
        clock: Callable[[], datetime] = utc_now,
    ) -> None:
        self.registry = registry
        self.node_id = node_id
        self.lease_seconds = lease_seconds
        self._clock = clock
        #: the fencing number this process claimed (0 until it has)
        self.epoch = 0
        #: set with the reason once the lease is lost
        self.lost_reason = ""
        #: the lease was lost because the database did not answer (not to another process):
        #: the process may claim its node again once the database is back
        self.lost_to_outage = False
        self._stopped = False
        self._last_renewal = 0.0
        self._task: asyncio.Task[None] | None = None
        #: a renewal still waiting for the database
        self._pending: asyncio.Task[bool] | None = None
        self._pending_since = 0.0
        #: the last renewal failed (the next comes after retry_delay)
        self._failing = False
        self._on_lost: Callable[[str], Awaitable[None]] | None = None
        self._losing: asyncio.Task[None] | None = None
        #: seconds :meth:`acquire` waited for another process's lease to run out (0: none)
        self.waited = 0.0

    @property
    def interval(self) -> float:
        return self.lease_seconds / 3

    @property
    def retry_delay(self) -> float:
        """The pause before the renewal after a failed one."""
        return self.interval / 4

    async def acquire(self, addresses: NodeAddresses) -> int:
        """Claim the node (state starting): its new epoch, or :class:`NodeHeld`.

        When another process's lease still runs (it was killed, or is still alive), the wait
        is logged when it begins — whose lease, until when, how long at most — and when it
        ends; :attr:`waited` keeps how long it took (the engine's ready line reports it).
        """
        seen: EngineNodeRow | None = None
        began = time.monotonic()
        while True:
            started = time.monotonic()
            epoch = await self.registry.claim(
                self.node_id, addresses, now=self._clock(), lease_seconds=self.lease_seconds
            )
            if epoch is not None:
                self.epoch, self._last_renewal = epoch, started
                if seen is None:
                    log.info("node %s claimed (epoch %d)", self.node_id, epoch)
                else:
                    self.waited = time.monotonic() - began
                    log.warning(
                        "node %s claimed (epoch %d) after waiting %.1f s: the lease of the "
                        "process that held it (epoch %d) ran out without a renewal",
                        self.node_id,
                        epoch,
                        self.waited,
                        seen.epoch,
                        extra={"waited_seconds": round(self.waited, 3), "epoch": epoch},
                    )
                return epoch
            holder = await self.registry.get(self.node_id)
            if holder is None:  # stopped and deleted meanwhile: claim again
                continue
            if seen is not None and (holder.epoch, holder.heartbeat_at) != (
                seen.epoch,
                seen.heartbeat_at,
            ):
                raise NodeHeld(
                    f"engine node {self.node_id!r} is held by a live process (epoch "
                    f"{holder.epoch}, state {holder.state}, renewed its lease at "
                    f"{holder.heartbeat_at.isoformat(timespec='seconds')}); stop it, or start "
                    f"this one with another STUD_ENGINE_NODE_ID"
                )
            left = (holder.expires_at - self._clock()).total_seconds()
            if seen is None:
                log.warning(
                    "node %s is held by another process (epoch %d, %s, last renewed at %s): "
                    "waiting up to %.1f s, until its lease runs out at %s, to see whether it "
                    "is alive (it renews the lease: this start is refused) or gone (a process "
                    "killed or cut off: this one then claims the node)",
                    self.node_id,
                    holder.epoch,
                    holder.state,
                    holder.heartbeat_at.isoformat(timespec="seconds"),
                    max(left, 0.0),
                    holder.expires_at.isoformat(timespec="seconds"),
                    extra={
                        "holder_epoch": holder.epoch,
                        "lease_expires_at": holder.expires_at.isoformat(),
                        "wait_seconds": round(max(left, 0.0), 3),
                    },
                )
            seen = holder
            # Poll often enough to see the holder's renewals, which come every third of its
            # lease; claim again as soon as its lease has run out.
            await asyncio.sleep(min(max(left, 0.0) + 0.01, self.lease_seconds / 6))

    async def publish(self, addresses: NodeAddresses, state: NodeState) -> None:
        """Set the node's addresses and state (serving once its ports listen)."""
        if not await self.registry.set_state(
            self.node_id, self.epoch, state, now=self._clock(), addresses=addresses
        ):
            raise LeaseLost(f"engine node {self.node_id!r} was claimed by another process")

    async def set_state(self, state: NodeState) -> None:
        """Draining or stopped (best effort: a node that cannot say so still stops)."""
        try:
            await self.registry.set_state(self.node_id, self.epoch, state, now=self._clock())
        except Exception:
            log.exception("node %s: could not record the state %s", self.node_id, state.value)

    def start(self, on_lost: Callable[[str], Awaitable[None]]) -> None:
        """Renew the lease every third of it until :meth:`stop`; ``on_lost(reason)`` once
        it is lost."""
        self._on_lost = on_lost
        self._task = asyncio.create_task(self._run(on_lost), name=f"lease {self.node_id}")

    def fenced(self, reason: str) -> None:
        """A write found the node claimed by another process (:class:`WriteFence`): the lease
        is lost, whatever the next renewal would say; ``on_lost(reason)`` runs once."""
        if not self._lose(reason):
            return
        self._stopped = True
        if self._task is not None:
            self._task.cancel()
        if self._on_lost is not None:
            self._losing = asyncio.get_running_loop().create_task(self._on_lost(reason))

    async def stop(self, state: NodeState = NodeState.STOPPED) -> None:
        """Stop renewing; record ``state`` (stopped: the lease is free at once)."""
        self._stopped = True
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self._pending is not None:
            self._pending.cancel()  # not awaited: it may be blocked in the database
        if not self.lost_reason:
            await self.set_state(state)

    async def _run(self, on_lost: Callable[[str], Awaitable[None]]) -> None:
        while not self._stopped:
            await asyncio.sleep(self.retry_delay if self._failing else self.interval)
            reason = await self._renew()
            if reason:
                if self._lose(reason):
                    await on_lost(reason)
                return

    def _lose(self, reason: str) -> bool:
        """Record the lease as lost for ``reason``: False when it already was."""
        if self.lost_reason:
            return False
        self.lost_reason = reason
        log.error("node %s: %s; stopping serving its tables", self.node_id, reason)
        return True

    async def _renew(self) -> str:
        """One renewal: "" when the lease holds, else why it is lost.

        The renewal runs as a task of its own, waited for at most a third of the lease and
        never cancelled: cancelling a statement blocked in the database would leave its
        connection to be cleaned up by another statement, which would block as well. A
        renewal still blocked when the next one is due counts as failed again.
        """
        if self._pending is None:
            # The lease the renewal writes runs from now: count from here, not from its answer.
            self._pending_since = time.monotonic()
            self._pending = asyncio.create_task(
                self.registry.renew(
                    self.node_id, self.epoch, now=self._clock(), lease_seconds=self.lease_seconds
                )
            )
        pending = self._pending
        await asyncio.wait((pending,), timeout=self.interval)
        error: BaseException | None
        if not pending.done():
            error = TimeoutError(f"no answer within {self.interval:.2g} s")
        else:
            self._pending = None
            error = pending.exception()
        if error is not None:
            since = time.monotonic() - self._last_renewal
            cause = str(error) or type(error).__name__
            # The next verdict comes at the latest a retry delay and a renewal's wait from
            # now: only if the lease surely holds until then may this process go on.
            if since + self.retry_delay + self.interval < self.lease_seconds:
                self._failing = True
                log.warning(
                    "node %s: lease renewal failed (%s); last renewed %.1f s ago",
                    self.node_id,
                    cause,
                    since,
                )
                return ""
            self.lost_to_outage = True
            return (
                f"lease not renewed for {since:.1f} s of {self.lease_seconds:g} "
                f"(the database is unreachable: {cause})"
            )
        if not pending.result():
            return f"lease lost: another process claimed engine node {self.node_id!r}"
        self._last_renewal = self._pending_since
        self._failing = False
        return ""
