"""`GET /openapi.yaml` is a valid OpenAPI 3.1 document and every operation in it exists."""
import re
import urllib.request

import yaml
from openapi_spec_validator import validate

METHODS = {"get", "put", "post", "delete", "patch"}


def fetch_spec(server) -> dict:
    with urllib.request.urlopen(server.base + "/openapi.yaml", timeout=30) as resp:
        assert resp.headers["Content-Type"].startswith("application/yaml")
        return yaml.safe_load(resp.read())


def test_document_is_valid_openapi_3_1(meetupd):
    spec = fetch_spec(meetupd())
    assert spec["openapi"].startswith("3.1")
    validate(spec)


def test_every_documented_operation_is_routed(meetupd):
    server = meetupd()
    spec = fetch_spec(server)
    for path, item in spec["paths"].items():
        concrete = re.sub(r"\{[^}]+\}", "x", path)
        for method in METHODS & item.keys():
            status, _, body = server.request(method.upper(), concrete)
            code = (body or {}).get("code") if isinstance(body, dict) else None
            assert code not in ("route.notFound", "request.methodNotAllowed"), f"{method.upper()} {path} is not served"
