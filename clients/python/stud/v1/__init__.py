"""Generated code for ``package stud.v1`` (``scripts/generate``; checked by ``scripts/check-generated``).

Modules: ``*_pb2`` (messages, google.protobuf), ``*_pb2.pyi`` (mypy-protobuf types),
``*_pb2_grpc`` (grpcio stubs and servicers) and ``*_connect`` (connectrpc ASGI/WSGI apps
and clients over the same ``*_pb2`` classes).
"""
