"""JSON-RPC as the LSP specification wants it, where pygls answers nothing or pops a message.

pygls 2 leaves three cases unanswered: a request whose params do not fit the
method's type (the client waits for ever), a request after ``shutdown`` (the
spec says: answer ``InvalidRequest``), and a body that is not JSON (pygls shows
"Error in server" in the editor instead of a ``ParseError`` response). The
protocol class here answers each with the spec's error code, and errors that
have nobody to answer go to the server's stderr (the editor's LSP log), not
into message boxes.
"""

from __future__ import annotations

import json
import logging
import sys
from typing import Any

from pygls.exceptions import (JsonRpcException, JsonRpcInvalidParams, JsonRpcInvalidRequest, JsonRpcParseError)
from pygls.protocol import LanguageServerProtocol

log = logging.getLogger(__name__)


class _Refused:
    """A request that could not be read: answered with ``error`` under its id, never handled."""

    jsonrpc = "2.0"

    def __init__(self, msg_id: Any, method: str, error: JsonRpcException) -> None:
        self.id, self.method, self.error = msg_id, method, error


class PddlProtocol(LanguageServerProtocol):
    """pygls' LSP protocol, answering malformed requests and requests after shutdown with error codes."""

    def structure_message(self, data: dict[str, Any]):
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if isinstance(data, dict) and "id" in data and "method" in data:
                return _Refused(data["id"], str(data.get("method")), exc)
            raise  # a notification: nobody to answer (logged by the read loop's error handler)

    def handle_message(self, message: Any) -> None:
        if isinstance(message, _Refused):
            error = message.error if isinstance(message.error, JsonRpcInvalidParams) else JsonRpcInvalidParams()
            self._send_response(message.id, None, error.to_response_error())
            return
        method = getattr(message, "method", None)
        if self._shutdown and method is not None and method != "exit" and getattr(message, "id", None) is not None:
            error = JsonRpcInvalidRequest(message=f"the server is shutting down: no '{method}' after 'shutdown'")
            self._send_response(message.id, None, error.to_response_error())
            return
        super().handle_message(message)


def report_error(server: Any, error: Exception, source: Any) -> None:
    """The server's error handler: a body that is not JSON gets ``ParseError`` (id null); the rest is logged."""
    if isinstance(error, json.JSONDecodeError) or (isinstance(error, ValueError) and "JSON" in str(error)):
        server.protocol._send_response(None, None, JsonRpcParseError().to_response_error())
        return
    print(f"pgt lsp: {type(error).__name__}: {error}", file=sys.stderr, flush=True)
