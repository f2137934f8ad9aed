"""A fuzzer over the web API, driven by its own OpenAPI description (a small schemathesis).

Hypothesis picks an operation of ``/openapi.json``, fills its path, query and header parameters
and its body with values of the declared shape or anything else (wrong types, huge numbers,
control characters, raw bytes), and the answer must be a success or a 4xx ``{"detail": "one
line"}``: never a 500, never a hang. Bounded to a few hundred examples so that it runs in seconds.
"""

from __future__ import annotations

import json
import string

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sumito.web.app import create_app
from sumito.web.limits import WebLimits

TOKEN = "fuzz-client-token-0123456789"
EXAMPLES = 300
STATUSES: list[int] = []  # what the fuzzer got, for a look when it is run alone


@pytest.fixture(scope="module")
def fuzz(tmp_path_factory):
    """One server for the whole module, with a game of two people to aim at and the operations."""
    home = tmp_path_factory.mktemp("fuzz")
    app = create_app(home / "web.sqlite", home / "games.sqlite", workers=1, warm=False,
                     limits=WebLimits(max_time=0.3, grace=1.0))
    with TestClient(app, base_url="http://127.0.0.1", headers={"X-Sumito-Token": TOKEN}) as client:
        game = client.post("/api/games", json={"black": "human", "white": "human", "layout": "mini"}).json()
        operations = [
            (path, method.upper(), spec)
            for path, methods in client.get("/openapi.json").json()["paths"].items()
            for method, spec in methods.items()
        ]
        yield client, game["id"], operations


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
    st.text(alphabet=string.ascii_lowercase + string.digits + ":=,./", max_size=40),
    st.sampled_from(["human", "random", "engine:depth=2", "td:net=/dev/zero", "a1b2", "black", "mini", "1-0"]),
    st.fixed_dictionaries({"initial": st.floats(-1, 20), "increment": st.floats(-1, 5)}),
)
json_values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=10,
)


def _body_for(spec: dict, draw) -> dict | object:
    """A body with the declared fields (each a value of any type), or any JSON at all."""
    content = spec.get("requestBody", {}).get("content", {}).get("application/json", {})
    ref = content.get("schema", {})
    fields = ["black", "white", "layout", "position", "speed", "win_threshold", "inline_only", "move", "side", "text",
              "clock", "seconds", "start", "count"]
    if draw(st.booleans()):
        keys = draw(st.lists(st.sampled_from(fields), max_size=4, unique=True))
        return {key: draw(json_values) for key in keys}
    return draw(json_values) if ref or draw(st.booleans()) else None


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_the_api_answers_every_request_with_a_success_or_a_one_line_4xx(fuzz, data):
    client, game_id, operations = fuzz
    path, method, spec = data.draw(st.sampled_from(operations))
    for name in ("game_id", "stored_id"):
        if "{" + name + "}" in path:
            numbers = st.integers(-(2**70), 2**70).map(str)
            value = data.draw(st.one_of(st.just(game_id), numbers, st.text(string.printable, max_size=30)))
            safe = "".join(c if c.isalnum() or c in "-_." else f"%{ord(c):02X}" for c in value) or "x"
            path = path.replace("{" + name + "}", safe)
    params = {}
    for parameter in spec.get("parameters", []):
        if parameter["in"] == "query" and data.draw(st.booleans()):
            params[parameter["name"]] = data.draw(st.one_of(st.integers(-(10**25), 10**25), st.text(max_size=20)))
    headers = {}
    if data.draw(st.booleans()):
        headers["X-Sumito-Token"] = data.draw(st.sampled_from([TOKEN, "short", "x" * 129, "other-token-000000000000"]))
    kwargs: dict = {"params": params, "headers": headers}
    if method in ("POST", "PUT", "PATCH"):
        if data.draw(st.integers(0, 9)) == 0:
            kwargs["content"] = data.draw(st.binary(max_size=200))
            headers["content-type"] = data.draw(st.sampled_from(["application/json", "text/plain"]))
        else:
            body = _body_for(spec, data.draw)
            if body is not None:
                kwargs["content"] = json.dumps(body).encode()
                headers["content-type"] = "application/json"
    response = client.request(method, path, **kwargs)
    STATUSES.append(response.status_code)
    assert response.status_code < 500, (method, path, kwargs, response.text)
    if response.status_code >= 400 and response.headers.get("content-type", "").startswith("application/json"):
        detail = response.json()["detail"]
        assert isinstance(detail, str) and detail and "\n" not in detail, detail
