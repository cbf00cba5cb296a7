"""Where a table went: the new engine node a refusal ``UNAVAILABLE`` / ``TABLE_MOVED`` names.

A table that moves between engine nodes, or that a live node takes over from one whose lease
ran out, ends its streams (and refuses later calls at the old node) with ``UNAVAILABLE`` and
an ``ErrorInfo`` of reason ``TABLE_MOVED`` whose metadata give the new node's addresses. A
node that died says nothing: then the lobby's answer for the seat (a ticket, a tournament
entry) names the node serving the table now.
"""

from __future__ import annotations

import grpc
from google.rpc import error_details_pb2, status_pb2

__all__ = ["moved_to"]


def moved_to(error: grpc.aio.AioRpcError) -> str | None:
    """The gRPC address a refusal ``UNAVAILABLE`` / ``TABLE_MOVED`` names for the table's new
    engine node (its ErrorInfo's ``grpc_address``); None for any other failure."""
    if error.code() != grpc.StatusCode.UNAVAILABLE:
        return None
    for key, value in error.trailing_metadata() or ():
        if key != "grpc-status-details-bin" or not isinstance(value, bytes):
            continue
        try:
            status = status_pb2.Status.FromString(value)
        except Exception:  # not a status: nothing to follow
            return None
        for detail in status.details:
            info = error_details_pb2.ErrorInfo()
            if detail.Unpack(info) and info.reason == "TABLE_MOVED":
                return info.metadata.get("grpc_address") or None
    return None
