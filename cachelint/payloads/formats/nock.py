"""nock recordings (JavaScript): the JSON array of definitions ``nock.recorder.rec({output_objects:
true})`` returns and ``nock.back`` writes as a fixture file, one an HTTP exchange:
``{scope, method, path, body, status, response, rawHeaders, reqheaders?}``. ``scope`` is the
origin (``https://api.openai.com:443``), ``path`` the path and query, ``body`` the request body
(parsed when it is JSON: ``JSON.parse`` keeps the order of its keys), ``response`` the response
body: parsed JSON, text (a server-sent event stream), or, when the response was content-encoded
(gzip), the list of its chunks as hex strings. ``rawHeaders`` are the response headers, a flat
``[name, value, …]`` list (an object in nock 14); the ``Date`` among them is the time. Sources:
https://github.com/nock/nock#recording (``output_objects``), nock's ``lib/recorder.js``.
"""

from __future__ import annotations

from typing import Any, Iterator

from cachelint.payloads.formats import registry
from cachelint.payloads.formats.common import make_record
from cachelint.payloads.model import Origin
from cachelint.payloads.readers.files import inflated_body
from cachelint.payloads.jsonio import loads

NAME = "nock"


def matches(value: Any) -> bool:
    scope = value.get("scope")
    return (
        isinstance(scope, str)
        and scope.startswith(("http://", "https://"))
        and isinstance(value.get("method"), str)
        and isinstance(value.get("path"), str)
    )


def response_headers(raw: Any) -> dict[str, str]:
    """nock's ``rawHeaders``: a flat ``[name, value, name, value…]`` list, or a mapping."""
    if isinstance(raw, dict):
        return {str(k): ", ".join(map(str, v)) if isinstance(v, list) else str(v) for k, v in raw.items()}
    out: dict[str, str] = {}
    if isinstance(raw, list):
        for name, value in zip(raw[0::2], raw[1::2]):
            if isinstance(name, str) and isinstance(value, (str, int)):
                out[name.lower()] = str(value)
    return out


def response_body(response: Any, headers: dict[str, str]) -> Any:
    """The recorded response as text or JSON: hex chunks of a content-encoded body joined and
    inflated (gzip, deflate; another encoding, e.g. brotli, is not read)."""
    if not (isinstance(response, list) and response and all(isinstance(c, str) for c in response)):
        return response
    try:
        data = b"".join(bytes.fromhex(chunk) for chunk in response)
    except ValueError:
        return response  # a JSON array response, not hex chunks
    encoding = headers.get("content-encoding", "").lower()
    if "gzip" in encoding or "deflate" in encoding:
        inflated = inflated_body(data)
        if inflated is None:
            return None
        data = inflated
    elif encoding and encoding != "identity":
        return None
    return data.decode("utf-8", "replace")


def records(value: dict, origin: Origin, ctx: registry.ReadContext, context: tuple) -> Iterator[registry.Item]:
    body = value.get("body")
    if isinstance(body, str) and body.lstrip().startswith("{"):
        try:
            body = loads(body)  # a body nock could not parse as JSON is kept as text
        except (ValueError, RecursionError):
            pass
    if not isinstance(body, dict):
        body = None  # a GET, a form, a file upload: no LLM request
    headers = response_headers(value.get("rawHeaders", value.get("headers")))
    url = value["scope"].rstrip("/") + value["path"]
    record = make_record(
        origin,
        body,
        ctx.redactor,
        fmt=NAME,
        response=response_body(value.get("response"), headers),
        time=headers.get("date"),
        url=url,
        method=value.get("method", "").upper() or None,
        headers=value.get("reqheaders") if isinstance(value.get("reqheaders"), dict) else None,
        status=value.get("status"),
    )
    record.response_headers = ctx.redactor.header_dict(headers)
    yield record


FORMAT = registry.LogFormat(
    name=NAME,
    title="nock recording",
    fidelity="wire",
    recording=True,
    keeps={
        "wire bytes": "the body parsed (JSON.parse keeps its keys' order)",
        "key order": "yes",
        "cache markers": "yes",
        "usage": "yes (response)",
        "time": "the response's Date header",
        "session key": "reqheaders; one recording a file",
    },
    matches=matches,
    records=records,
    source="https://github.com/nock/nock#recording",
)
