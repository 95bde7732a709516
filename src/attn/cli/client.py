"""The CLI's HTTP client for a running ``attn serve``.

Every failure becomes a :class:`CliError` with one line a person can act on:
the server is not running, the agent is unknown, the request was refused (with
the server's error code and message).
"""

from __future__ import annotations

import os
from typing import Any

import httpx

#: Where the CLI looks for the server unless told otherwise (``--url`` or ``ATTN_URL``).
DEFAULT_URL = "http://127.0.0.1:8765"
URL_ENV = "ATTN_URL"
TOKEN_ENV = "ATTN_TOKEN"


class CliError(Exception):
    """A command failed; ``str(self)`` is the one line printed to stderr.

    Attributes:
        exit_code: the process exit status (1 for failures, 2 for bad usage or config).
        code: the server's error code when it refused the request (``run_not_found``), else None.
    """

    def __init__(self, message: str, *, exit_code: int = 1, code: str | None = None) -> None:
        super().__init__(message)
        self.exit_code = exit_code
        self.code = code


def default_url() -> str:
    """``$ATTN_URL`` when set, else :data:`DEFAULT_URL`."""
    return os.environ.get(URL_ENV) or DEFAULT_URL


def check_client_token(token: str | None) -> None:
    """Refuse a ``--token`` (or ``$ATTN_TOKEN``) that cannot go in an HTTP header.

    Raises:
        CliError: exit status 2, naming the rule the token breaks.
    """
    from attn.tokens import token_problem

    problem = token_problem(token, min_chars=0) if token else None
    if problem is not None:
        raise CliError(f"--token (or {TOKEN_ENV}): the API token {problem}", exit_code=2)


class ApiClient:
    """A small synchronous client of the attn HTTP API.

    Args:
        url: base URL of the server, e.g. ``http://127.0.0.1:8765``.
        token: bearer token, when the server requires one.
        timeout_s: connect/write timeout in seconds; reads wait ``read_timeout_s``.
        read_timeout_s: how long to wait for a response (None: as long as it takes).
    """

    def __init__(
        self,
        url: str,
        *,
        token: str | None = None,
        timeout_s: float = 10.0,
        read_timeout_s: float | None = 30.0,
    ) -> None:
        self.url = url.rstrip("/")
        check_client_token(token)
        self.has_token = bool(token)
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._client = httpx.Client(
            base_url=self.url,
            headers=headers,
            timeout=httpx.Timeout(timeout_s, read=read_timeout_s),
        )

    def __enter__(self) -> ApiClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection pool."""
        self._client.close()

    def request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        read_timeout_s: float | None = None,
        wait_forever: bool = False,
    ) -> Any:
        """Send one request and return the decoded JSON body (None for a 204).

        Raises:
            CliError: the server cannot be reached, timed out, or answered an error.
        """
        timeout = self._client.timeout
        if wait_forever or read_timeout_s is not None:
            timeout = httpx.Timeout(timeout.connect, read=read_timeout_s)
        clean = {k: v for k, v in (params or {}).items() if v is not None}
        try:
            response = self._client.request(
                method, path, json=json, params=clean, headers=headers, timeout=timeout
            )
        except httpx.ConnectError:
            raise CliError(
                f"cannot reach the attn server at {self.url} (is `attn serve` running? "
                f"set --url or {URL_ENV})"
            ) from None
        except httpx.TimeoutException:
            raise CliError(f"the attn server at {self.url} did not answer in time") from None
        except httpx.HTTPError as exc:
            raise CliError(f"request to {self.url} failed: {exc}") from None
        if response.status_code >= 400:
            raise CliError(self._error_line(response), code=_error_code(response))
        if response.status_code == 204:  # No Content (a DELETE)
            return None
        try:
            return response.json()
        except ValueError:
            raise CliError(
                f"{self.url} answered {response.status_code} with a body that is not JSON; "
                "is it an attn server?"
            ) from None

    def _error_line(self, response: httpx.Response) -> str:
        """One line for an error answer: the server's message and code, and for 401 what to do."""
        status = response.status_code
        try:
            error = response.json()["error"]
            message, code = str(error["message"]), str(error["code"])
        except (ValueError, KeyError, TypeError):
            text = response.text.strip().splitlines()[0][:200] if response.text.strip() else ""
            return f"server answered {status}" + (f": {text}" if text else "")
        if status == 401:
            # The server's hint names the HTTP header; a CLI user needs the option.
            message = message.split(";")[0]
            if self.has_token:
                message = (
                    f"the server at {self.url} refused the API token ({message}); "
                    f"check --token or {TOKEN_ENV}"
                )
            else:
                message = (
                    f"the server at {self.url} needs an API token ({message}); "
                    f"pass --token TOKEN or set {TOKEN_ENV}"
                )
        return f"{message} ({status} {code})"


def _error_code(response: httpx.Response) -> str | None:
    """The ``code`` of an error answer's ``{"error": {"code"}}`` body, or None."""
    try:
        code = response.json()["error"]["code"]
    except (ValueError, KeyError, TypeError):
        return None
    return code if isinstance(code, str) else None
