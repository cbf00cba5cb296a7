"""``stud describe [SYMBOL]``: what a running engine serves, read through gRPC reflection.

Without SYMBOL it lists the services; with a service's full name
(``stud.v1.TableService``) it prints each method with its request and response types
(``stream`` where the method streams); with a message's or enum's full name
(``stud.v1.ActRequest``) its fields or values. Nothing to install beyond the project: the
reflection client is grpcio-reflection's, over the engine's standard reflection service.

The engine is ``--engine``, else ``$STUD_ENGINE_ADDRESS``, else the room ``stud run`` is
running from this directory (``var/room.json``), else ``127.0.0.1:50051``. An
engine that cannot be reached, or a symbol it does not know, is one line on stderr and
exit status 1; a malformed address is exit status 2.
"""

from __future__ import annotations

import argparse
import os

import grpc
from google.protobuf import descriptor, descriptor_pool
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)

from engine_server.cli import CliError
from engine_server.cli.room import gone_note, room_address

__all__ = ["configure", "run"]

DEFAULT_ENGINE = "127.0.0.1:50051"
#: How long to wait for the engine to answer.
TIMEOUT_SECONDS = 5.0


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "symbol",
        nargs="?",
        metavar="SYMBOL",
        help="a service, message or enum, fully qualified (stud.v1.TableService); none lists",
    )
    parser.add_argument(
        "--engine",
        help="the engine's gRPC address ($STUD_ENGINE_ADDRESS, else the running stud run's, "
        f"else {DEFAULT_ENGINE})",
    )


def _type_name(field: descriptor.FieldDescriptor) -> str:
    if field.message_type is not None:
        if field.message_type.GetOptions().map_entry:
            key, value = field.message_type.fields
            return f"map<{_type_name(key)}, {_type_name(value)}>"
        return field.message_type.full_name
    if field.enum_type is not None:
        return field.enum_type.full_name
    names = {
        value: name.removeprefix("TYPE_").lower()
        for name, value in vars(descriptor.FieldDescriptor).items()
        if name.startswith("TYPE_")
    }
    return names[field.type]


def _describe_service(service: descriptor.ServiceDescriptor) -> list[str]:
    lines = [f"service {service.full_name} {{"]
    for method in service.methods:
        request = ("stream " if method.client_streaming else "") + method.input_type.full_name
        response = ("stream " if method.server_streaming else "") + method.output_type.full_name
        lines.append(f"  rpc {method.name}({request}) returns ({response});")
    lines.append("}")
    return lines


def _describe_message(message: descriptor.Descriptor) -> list[str]:
    lines = [f"message {message.full_name} {{"]
    oneofs = {field.name: oneof.name for oneof in message.oneofs for field in oneof.fields}
    for field in message.fields:
        oneof = oneofs.get(field.name)
        # proto3 `optional` is a one-field oneof named after its field (a "synthetic" oneof).
        optional = oneof == f"_{field.name}"
        label = "repeated " if field.is_repeated and not _is_map(field) else ""
        label = "optional " if optional else label
        note = f"  // oneof {oneof}" if oneof and not optional else ""
        lines.append(f"  {label}{_type_name(field)} {field.name} = {field.number};{note}")
    lines.append("}")
    return lines


def _is_map(field: descriptor.FieldDescriptor) -> bool:
    return field.message_type is not None and field.message_type.GetOptions().map_entry


def _describe_enum(enum: descriptor.EnumDescriptor) -> list[str]:
    return [
        f"enum {enum.full_name} {{",
        *(f"  {value.name} = {value.number};" for value in enum.values),
        "}",
    ]


def _describe(pool: descriptor_pool.DescriptorPool, symbol: str) -> list[str]:
    finders = (
        (pool.FindServiceByName, _describe_service),
        (pool.FindMessageTypeByName, _describe_message),
        (pool.FindEnumTypeByName, _describe_enum),
    )
    for find, describe in finders:
        try:
            found = find(symbol)
        except KeyError:
            continue
        return describe(found)  # type: ignore[arg-type]
    raise CliError(f"the engine serves no service, message or enum named {symbol!r}", code=1)


def run(args: argparse.Namespace) -> int:
    address = args.engine or os.environ.get("STUD_ENGINE_ADDRESS") or room_address("grpc")
    # Why the default, when a stud run that is gone left its addresses here.
    note = "" if address else gone_note("grpc")
    address = address or DEFAULT_ENGINE
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise CliError(f"--engine: expected HOST:PORT, got {address!r}")
    with grpc.insecure_channel(address) as channel:
        try:
            grpc.channel_ready_future(channel).result(timeout=TIMEOUT_SECONDS)
        except grpc.FutureTimeoutError:
            raise CliError(f"cannot reach the engine at {address}{note}", code=1) from None
        database = ProtoReflectionDescriptorDatabase(channel)
        try:
            if args.symbol is None:
                lines = sorted(database.get_services())
            else:
                lines = _describe(descriptor_pool.DescriptorPool(database), args.symbol)
        except grpc.RpcError as error:
            raise CliError(
                f"the engine at {address} answered {error.code().name}", code=1
            ) from None
    print("\n".join(lines))
    return 0
