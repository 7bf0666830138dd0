"""A local stand-in for APNs and FCM: HTTP/2 over TLS (hypercorn, self-signed certificate)
answering like the real services, error bodies included, and recording every request.

Tokens steer the answers: `gone…` is unregistered, `bad…` is not a token, `busy…` is
throttled once (429 with Retry-After: 1), `flaky…` fails once with a 5xx, `down…` always
answers 503; anything else is accepted. Provider tokens (APNs) and OAuth assertions (FCM) are
checked against the public keys the test made."""
import asyncio
import base64
import datetime as dt
import ipaddress
import json
import os
import socket
import threading
import time
import urllib.parse
import uuid

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.x509.oid import NameOID
from hypercorn.asyncio import serve
from hypercorn.config import Config

from loopback import free_port

APNS_KEY_ID = "KEY1234567"
TEAM_ID = "TEAM123456"
PROJECT = "meetup-test"


def _b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _jwt_parts(token):
    header, claims, signature = token.split(".")
    return (json.loads(_b64url_decode(header)), json.loads(_b64url_decode(claims)),
            f"{header}.{claims}".encode(), _b64url_decode(signature))


class Credentials:
    """The keys and certificate of one test, written into `folder`."""

    def __init__(self, folder):
        self.apns_key = ec.generate_private_key(ec.SECP256R1())
        self.apns_key_file = os.path.join(folder, "apns.p8")
        with open(self.apns_key_file, "wb") as f:
            f.write(self.apns_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                serialization.NoEncryption()))
        self.fcm_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
        now = dt.datetime.now(dt.timezone.utc)
        cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                .serial_number(x509.random_serial_number()).not_valid_before(now - dt.timedelta(minutes=5))
                .not_valid_after(now + dt.timedelta(days=1))
                .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
                .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                .sign(key, hashes.SHA256()))
        self.cert_file = os.path.join(folder, "cert.pem")
        self.key_file = os.path.join(folder, "key.pem")
        with open(self.cert_file, "wb") as f:
            f.write(cert.public_bytes(serialization.Encoding.PEM))
        with open(self.key_file, "wb") as f:
            f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption()))
        self.folder = folder

    def service_account(self, token_uri):
        path = os.path.join(self.folder, "service-account.json")
        with open(path, "w") as f:
            json.dump({"type": "service_account", "project_id": PROJECT, "client_email": f"push@{PROJECT}.example.org",
                       "private_key": self.fcm_key.private_bytes(
                           serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                           serialization.NoEncryption()).decode(),
                       "token_uri": token_uri}, f)
        return path

    def apns_token_ok(self, token):
        try:
            header, claims, signed, signature = _jwt_parts(token)
            r, s = int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big")
            self.apns_key.public_key().verify(encode_dss_signature(r, s), signed, ec.ECDSA(hashes.SHA256()))
        except Exception:
            return False
        return header == {"alg": "ES256", "kid": APNS_KEY_ID} and claims["iss"] == TEAM_ID and abs(claims["iat"] - time.time()) < 3600

    def fcm_assertion_ok(self, assertion, token_uri):
        try:
            header, claims, signed, signature = _jwt_parts(assertion)
            self.fcm_key.public_key().verify(signature, signed, padding.PKCS1v15(), hashes.SHA256())
        except Exception:
            return False
        return (header["alg"] == "RS256" and claims["aud"] == token_uri
                and claims["scope"] == "https://www.googleapis.com/auth/firebase.messaging"
                and claims["exp"] - claims["iat"] <= 3600)


class FakePushService:
    """APNs and FCM on one local HTTPS port; `requests` holds what they were sent."""

    def __init__(self, credentials):
        self.credentials = credentials
        self.port = free_port()
        self.url = f"https://127.0.0.1:{self.port}"
        self.token_uri = self.url + "/token"
        self.requests = []
        self.access_tokens = set()
        self.seen = {}
        self.lock = threading.Lock()
        self._stop = None
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._ready = threading.Event()

    def __enter__(self):
        self._thread.start()
        assert self._ready.wait(20), "the fake push service did not start"
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return self
            except OSError:
                assert time.monotonic() < deadline, "the fake push service is not listening"
                time.sleep(0.05)

    def __exit__(self, *exc):
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)

    def _run(self):
        self._loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self._loop)
        self._stop = asyncio.Event()
        config = Config()
        config.bind = [f"127.0.0.1:{self.port}"]
        config.certfile, config.keyfile = self.credentials.cert_file, self.credentials.key_file
        config.alpn_protocols = ["h2", "http/1.1"]
        config.loglevel = "WARNING"
        config.accesslog = None
        self._ready.set()
        self._loop.run_until_complete(serve(self._app, config, shutdown_trigger=self._stop.wait))

    def recorded(self, kind=None):
        with self.lock:
            return [r for r in self.requests if kind is None or r["kind"] == kind]

    def _first_time(self, key):
        with self.lock:
            self.seen[key] = self.seen.get(key, 0) + 1
            return self.seen[key] == 1

    async def _app(self, scope, receive, send):
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        path = scope["path"]
        record = {"path": path, "headers": headers, "body": body, "http_version": scope["http_version"],
                  "client_port": scope["client"][1], "at": time.monotonic()}
        if path.startswith("/3/device/"):
            record["kind"] = "apns"
            status, extra, answer = self._apns(path[len("/3/device/"):], headers)
        elif path == "/token":
            record["kind"] = "token"
            status, extra, answer = self._token(body)
        elif path == f"/v1/projects/{PROJECT}/messages:send":
            record["kind"] = "fcm"
            status, extra, answer = self._fcm(json.loads(body), headers)
        else:
            record["kind"] = "other"
            status, extra, answer = 404, {}, {"error": "no such path"}
        record["status"] = status
        with self.lock:
            self.requests.append(record)
        payload = json.dumps(answer).encode() if answer is not None else b""
        response_headers = [(b"content-type", b"application/json")] + [(k.encode(), v.encode()) for k, v in extra.items()]
        await send({"type": "http.response.start", "status": status, "headers": response_headers})
        await send({"type": "http.response.body", "body": payload})

    def _apns(self, token, headers):
        auth = headers.get("authorization", "")
        if not auth.startswith("bearer ") or not self.credentials.apns_token_ok(auth[len("bearer "):]):
            return 403, {}, {"reason": "InvalidProviderToken"}
        if token.startswith("gone"):
            return 410, {}, {"reason": "Unregistered", "timestamp": int(time.time() * 1000)}
        if token.startswith("bad"):
            return 400, {}, {"reason": "BadDeviceToken"}
        if token.startswith("busy") and self._first_time(token):
            return 429, {"retry-after": "1"}, {"reason": "TooManyRequests"}
        if token.startswith("flaky") and self._first_time(token):
            return 500, {}, {"reason": "InternalServerError"}
        if token.startswith("down"):
            return 503, {}, {"reason": "ServiceUnavailable"}
        return 200, {"apns-id": str(uuid.uuid4()).upper()}, None

    def _token(self, body):
        form = urllib.parse.parse_qs(body.decode())
        if (form.get("grant_type") != ["urn:ietf:params:oauth:grant-type:jwt-bearer"]
                or not self.credentials.fcm_assertion_ok(form.get("assertion", [""])[0], self.token_uri)):
            return 400, {}, {"error": "invalid_grant", "error_description": "Invalid JWT Signature."}
        token = "ya29.fake-" + uuid.uuid4().hex
        with self.lock:
            self.access_tokens.add(token)
        return 200, {}, {"access_token": token, "expires_in": 3599, "token_type": "Bearer"}

    def _fcm(self, body, headers):
        def error(code, status, message, error_code=None):
            details = [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": error_code}] if error_code else []
            return {"error": {"code": code, "message": message, "status": status, "details": details}}

        auth = headers.get("authorization", "")
        with self.lock:
            known = auth.startswith("Bearer ") and auth[len("Bearer "):] in self.access_tokens
        if not known:
            return 401, {}, error(401, "UNAUTHENTICATED", "Request had invalid authentication credentials.")
        token = body["message"]["token"]
        if token.startswith("gone"):
            return 404, {}, error(404, "NOT_FOUND", "Requested entity was not found.", "UNREGISTERED")
        if token.startswith("bad"):
            return 400, {}, error(400, "INVALID_ARGUMENT", "The registration token is not a valid FCM registration token",
                                  "INVALID_ARGUMENT")
        if token.startswith("busy") and self._first_time(token):
            return 429, {"retry-after": "1"}, error(429, "RESOURCE_EXHAUSTED", "Quota exceeded.", "QUOTA_EXCEEDED")
        if token.startswith("flaky") and self._first_time(token):
            return 500, {}, error(500, "INTERNAL", "Internal error encountered.", "INTERNAL")
        if token.startswith("down"):
            return 503, {}, error(503, "UNAVAILABLE", "The service is currently unavailable.", "UNAVAILABLE")
        return 200, {}, {"name": f"projects/{PROJECT}/messages/{uuid.uuid4().hex}"}
