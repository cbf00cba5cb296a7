"""Thin adapters that expose the table runtime as gRPC and Connect/gRPC-Web services."""
