"""Helpers for the media interop tests: images made with Pillow, raw uploads, raw reads."""
import io
import json
import urllib.error
import urllib.request

import piexif
from PIL import Image

# Kyiv's Maidan, in EXIF's degrees/minutes/seconds rationals: what must never be served.
GPS = {
    piexif.GPSIFD.GPSLatitudeRef: b"N", piexif.GPSIFD.GPSLatitude: ((50, 1), (27, 1), (1, 1)),
    piexif.GPSIFD.GPSLongitudeRef: b"E", piexif.GPSIFD.GPSLongitude: ((30, 1), (31, 1), (25, 1)),
}


def exif_with_gps(orientation: int = 1) -> bytes:
    """An EXIF block such as a phone writes: camera, time, place, orientation."""
    return piexif.dump({
        "0th": {piexif.ImageIFD.Make: b"PhoneMaker", piexif.ImageIFD.Model: b"Phone 15",
                piexif.ImageIFD.Orientation: orientation},
        "Exif": {piexif.ExifIFD.DateTimeOriginal: b"2026:11:20 10:00:00"},
        "GPS": GPS,
    })


def picture(width: int, height: int, mode: str = "RGB") -> Image.Image:
    """A gradient (so that encoders have something to compress) of the given size."""
    image = Image.linear_gradient("L").resize((width, height))
    if mode == "L":
        return image
    return Image.merge("RGB", (image, image.transpose(Image.Transpose.FLIP_LEFT_RIGHT), image)).convert(mode)


def encode(image: Image.Image, fmt: str, **options) -> bytes:
    out = io.BytesIO()
    image.save(out, fmt, **options)
    return out.getvalue()


def upload(server, user, data: bytes, content_type: str = "image/jpeg"):
    """POST /api/v1/media with the raw image as the body; returns (status, headers, JSON)."""
    req = urllib.request.Request(server.base + "/api/v1/media", data=data, method="POST")
    req.add_header("Content-Type", content_type)
    req.add_header("Authorization", "Bearer " + user["token"])
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            return resp.status, resp.headers, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, err.headers, json.loads(err.read() or b"null")


def uploaded(server, user, data: bytes, content_type: str = "image/jpeg") -> dict:
    status, _, body = upload(server, user, data, content_type)
    assert status == 201, body
    return body


def fetch(url_or_path: str, server, user=None, headers: dict | None = None):
    """A GET returning (status, headers, raw bytes)."""
    url = url_or_path if url_or_path.startswith("http") else server.base + url_or_path
    req = urllib.request.Request(url, headers=headers or {})
    if user:
        req.add_header("Authorization", "Bearer " + user["token"])
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, resp.headers, resp.read()
    except urllib.error.HTTPError as err:
        return err.code, err.headers, err.read()


def opened(data: bytes) -> Image.Image:
    """The image Pillow decodes from `data`, fully loaded (so that corrupt pixels fail here)."""
    image = Image.open(io.BytesIO(data))
    image.load()
    return image
