"""Refusing a gRPC call: the one way a handler ends a call with a status code
and a reason in plain words."""

from __future__ import annotations

from typing import NoReturn

import grpc


def abort(context: grpc.ServicerContext, code: grpc.StatusCode, message: str) -> NoReturn:
    """End the call with ``code``; ``context.abort`` returns only by raising."""
    context.abort(code, message)
    raise AssertionError("grpc.ServicerContext.abort returned")
