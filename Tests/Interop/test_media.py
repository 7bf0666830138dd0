"""Media over the real server: uploads recognised by content, metadata stripped (GPS above
all), thumbnails checked with Pillow, caching and ranges, who may read, ownership, limits."""
import os
import struct
import zlib

import piexif
from PIL import PngImagePlugin

from media_support import encode, exif_with_gps, fetch, opened, picture, upload, uploaded
from meetings_support import create_meeting, iso


def test_each_format_is_accepted_and_served_with_thumbnails(meetupd):
    server = meetupd()
    ann = server.register_user()
    cases = [
        ("JPEG", "image/jpeg", picture(2000, 1500), {"quality": 90}),
        ("PNG", "image/png", picture(640, 480, "RGBA"), {}),
        ("WEBP", "image/webp", picture(300, 200), {"quality": 80}),
    ]
    for fmt, content_type, image, options in cases:
        status, headers, body = upload(server, ann, encode(image, fmt, **options), content_type)
        assert status == 201, body
        assert set(body) == {"id", "url", "width", "height", "contentType", "thumbnails"}
        assert (body["width"], body["height"], body["contentType"]) == (image.width, image.height, content_type)
        assert headers["Location"] == body["url"] == f"{server.base}/api/v1/media/{body['id']}"
        status, served_headers, served = fetch(body["url"], server, ann)
        assert status == 200 and served_headers["Content-Type"] == content_type
        served_image = opened(served)
        assert served_image.format == fmt and served_image.size == image.size

        if fmt == "WEBP":
            assert body["thumbnails"] == []  # no WebP codec on the machine: served as uploaded
            continue
        assert [t["maxSide"] for t in body["thumbnails"]] == [256, 1280]
        for thumbnail in body["thumbnails"]:
            longer = min(thumbnail["maxSide"], max(image.size))
            expected = (round(image.width * longer / max(image.size)), round(image.height * longer / max(image.size)))
            assert (thumbnail["width"], thumbnail["height"]) == expected
            status, thumb_headers, data = fetch(thumbnail["url"], server, ann)
            assert status == 200 and thumb_headers["Content-Type"] == thumbnail["contentType"]
            decoded = opened(data)
            assert decoded.size == expected
            # Transparency survives (PNG with alpha keeps PNG thumbnails); photos become JPEG.
            assert decoded.format == ("PNG" if fmt == "PNG" else "JPEG")
            assert decoded.mode == ("RGBA" if fmt == "PNG" else "RGB")


def test_an_opaque_png_gets_jpeg_thumbnails_and_a_small_image_is_never_enlarged(meetupd):
    server = meetupd()
    ann = server.register_user()
    body = uploaded(server, ann, encode(picture(200, 100, "L"), "PNG"), "image/png")
    assert [(t["maxSide"], t["width"], t["height"], t["contentType"]) for t in body["thumbnails"]] == [
        (256, 200, 100, "image/jpeg"), (1280, 200, 100, "image/jpeg")]
    assert opened(fetch(body["thumbnails"][0]["url"], server, ann)[2]).size == (200, 100)


def test_disguised_and_broken_files_are_refused(meetupd):
    server = meetupd()
    ann = server.register_user()
    jpeg = encode(picture(64, 48), "JPEG")
    png = encode(picture(64, 48), "PNG")

    def refused(data, content_type, status, code):
        got, _, problem = upload(server, ann, data, content_type)
        assert (got, problem["code"]) == (status, code), problem

    refused(b"just some text, saved as holiday.jpg\n" * 10, "image/jpeg", 415, "media.unsupportedType")
    refused(b"tiny", "image/jpeg", 415, "media.unsupportedType")
    refused(png, "image/jpeg", 415, "media.typeMismatch")
    refused(jpeg, "image/webp", 415, "media.typeMismatch")
    refused(jpeg, "text/plain", 415, "media.unsupportedType")
    refused(jpeg, "application/octet-stream", 415, "media.unsupportedType")
    refused(jpeg[: len(jpeg) * 2 // 3], "image/jpeg", 422, "media.malformed")
    refused(png[:-20], "image/png", 422, "media.malformed")
    corrupt = bytearray(png)
    corrupt[40] ^= 0xFF  # inside IDAT: its CRC no longer matches
    refused(bytes(corrupt), "image/png", 422, "media.malformed")
    refused(decompression_bomb(), "image/png", 422, "media.tooManyPixels")
    # Nothing refused was kept.
    assert [name for name in list_media_files(server) if not name.startswith("incoming")] == []


def test_gps_and_other_metadata_are_gone_from_what_is_served(meetupd):
    server = meetupd()
    ann = server.register_user()
    # A portrait photo as phones store it: landscape pixels, orientation 6 (turn 90° clockwise).
    photo = encode(picture(400, 300), "JPEG", exif=exif_with_gps(orientation=6),
                   comment=b"taken at home")
    assert piexif.load(photo)["GPS"]
    body = uploaded(server, ann, photo)
    assert (body["width"], body["height"]) == (300, 400)  # as shown
    served = fetch(body["url"], server, ann)[2]
    exif = piexif.load(served)
    assert exif["GPS"] == {} and exif["Exif"] == {}
    assert exif["0th"] == {piexif.ImageIFD.Orientation: 6}  # the only tag kept
    assert b"PhoneMaker" not in served and b"taken at home" not in served
    assert opened(served).size == (400, 300)
    small = fetch(body["thumbnails"][0]["url"], server, ann)[2]
    assert opened(small).size == (192, 256)  # orientation applied to thumbnails
    assert b"Exif" not in small

    png = encode(picture(120, 80), "PNG", exif=exif_with_gps(), pnginfo=png_text("Location", "50.45,30.52"))
    body = uploaded(server, ann, png, "image/png")
    served = fetch(body["url"], server, ann)[2]
    assert b"eXIf" not in served and b"tEXt" not in served and b"50.45" not in served
    assert opened(served).getexif() == {}

    webp = encode(picture(120, 80), "WEBP", exif=exif_with_gps(), xmp=b"<x:xmpmeta>GPSLatitude 50.45</x:xmpmeta>")
    assert b"EXIF" in webp and b"XMP " in webp
    body = uploaded(server, ann, webp, "image/webp")
    served = fetch(body["url"], server, ann)[2]
    assert b"EXIF" not in served and b"XMP " not in served and b"PhoneMaker" not in served
    assert opened(served).size == (120, 80)
    for name in list_media_files(server):
        with open(f"{server.data}/media/{name}", "rb") as f:
            assert b"PhoneMaker" not in f.read(), name


def test_etag_304_immutable_caching_and_ranges(meetupd):
    server = meetupd()
    ann = server.register_user()
    body = uploaded(server, ann, encode(picture(800, 600), "JPEG"))
    status, headers, data = fetch(body["url"], server, ann)
    assert status == 200 and int(headers["Content-Length"]) == len(data)
    assert "immutable" in headers["Cache-Control"] and headers["Accept-Ranges"] == "bytes"
    etag = headers["ETag"]
    assert etag.startswith('"') and etag.endswith('"')

    status, headers, empty = fetch(body["url"], server, ann, {"If-None-Match": etag})
    assert status == 304 and empty == b"" and headers["ETag"] == etag
    assert fetch(body["url"], server, ann, {"If-None-Match": '"other", ' + etag})[0] == 304
    assert fetch(body["url"], server, ann, {"If-None-Match": '"other"'})[0] == 200

    status, headers, part = fetch(body["url"], server, ann, {"Range": "bytes=0-99"})
    assert status == 206 and part == data[:100] and headers["Content-Range"] == f"bytes 0-99/{len(data)}"
    assert int(headers["Content-Length"]) == 100
    status, headers, part = fetch(body["url"], server, ann, {"Range": "bytes=-10"})
    assert status == 206 and part == data[-10:]
    status, _, part = fetch(body["url"], server, ann, {"Range": "bytes=100-"})
    assert status == 206 and part == data[100:]
    status, headers, _ = fetch(body["url"], server, ann, {"Range": f"bytes={len(data)}-"})
    assert status == 416 and headers["Content-Range"] == f"bytes */{len(data)}"
    # A range for another version is ignored: the whole current file comes back.
    status, _, whole = fetch(body["url"], server, ann, {"Range": "bytes=0-9", "If-Range": '"old"'})
    assert status == 200 and whole == data

    thumbnail = body["thumbnails"][0]["url"]
    status, headers, _ = fetch(thumbnail, server, ann)
    assert status == 200 and headers["ETag"] != etag
    assert fetch(thumbnail, server, ann, {"If-None-Match": headers["ETag"]})[0] == 304
    assert fetch(body["url"] + "/64", server, ann)[0] == 404
    assert fetch(body["url"] + "/big", server, ann)[0] == 404

    # The same photo uploaded again is one file on disk, under its content hash.
    again = uploaded(server, ann, encode(picture(800, 600), "JPEG"))
    assert again["id"] != body["id"]
    assert fetch(again["url"], server, ann)[1]["ETag"] == etag
    assert len([n for n in list_media_files(server) if "-" not in n.split("/")[-1]]) == 1


def test_who_may_read(meetupd):
    server = meetupd()
    ann, bob, cy = server.register_user(), server.register_user(), server.register_user()
    jpeg = encode(picture(64, 48), "JPEG")

    unused = uploaded(server, ann, jpeg)
    assert fetch(unused["url"], server, ann)[0] == 200
    assert fetch(unused["url"], server, bob)[0] == 404  # nothing shows it yet
    assert fetch(unused["url"], server)[0] == 401

    public_photo = uploaded(server, ann, jpeg)
    create_meeting(server, ann, photoId=public_photo["id"])
    assert fetch(public_photo["url"], server, bob)[0] == 200
    assert fetch(public_photo["thumbnails"][0]["url"], server, bob)[0] == 200

    private_photo = uploaded(server, ann, jpeg)
    meeting = create_meeting(server, ann, visibility="private", photoId=private_photo["id"], inviteeIds=[bob["id"]])
    for url in (private_photo["url"], private_photo["thumbnails"][1]["url"]):
        status, _, problem = fetch(url, server, cy)
        assert status == 404 and b"media.notFound" in problem  # same as an id that does not exist
        assert fetch(url, server, bob)[0] == 200  # invited: sees the meeting and its photo
    assert fetch("/api/v1/media/doesNotExist", server, cy)[0] == 404

    profile_photo = uploaded(server, cy, jpeg)
    assert server.request("PUT", "/api/v1/me/profile", {"displayName": "Cy", "photoId": profile_photo["id"]}, cy["token"])[0] == 200
    assert fetch(profile_photo["url"], server, ann)[0] == 200
    # A block hides the profile, and its photo with it.
    assert server.request("POST", "/api/v1/blocks", {"userId": ann["id"]}, cy["token"])[0] == 204
    assert fetch(profile_photo["url"], server, ann)[0] == 404
    assert meeting["visibility"] == "private"


def test_photo_ids_must_be_the_callers_own_uploads(meetupd):
    server = meetupd()
    ann, bob = server.register_user(), server.register_user()
    anns = uploaded(server, ann, encode(picture(64, 48), "JPEG"))["id"]

    status, _, problem = server.request("PUT", "/api/v1/me/profile", {"displayName": "Bob", "photoId": anns}, bob["token"])
    assert status == 422 and problem["errors"] == [
        {"field": "photoId", "code": "media.notOwned", "detail": problem["errors"][0]["detail"]}]
    status, _, problem = server.request("POST", "/api/v1/meetings", {
        "title": "Run", "visibility": "public", "startsAt": iso(24),
        "place": {"lat": 50.45, "lon": 30.52}, "photoId": anns}, bob["token"])
    assert status == 422 and problem["errors"][0]["code"] == "media.notOwned"
    bobs_meeting = create_meeting(server, bob)
    status, _, problem = server.request("PATCH", "/api/v1/meetings/" + bobs_meeting["id"], {"photoId": anns}, bob["token"])
    assert status == 422 and problem["errors"][0]["code"] == "media.notOwned"
    status, _, problem = server.request("PUT", "/api/v1/me/profile", {"displayName": "Bob", "photoId": "neverUploaded"}, bob["token"])
    assert status == 422 and problem["errors"][0]["code"] == "media.notOwned"

    bobs = uploaded(server, bob, encode(picture(64, 48), "JPEG"))["id"]
    status, _, profile = server.request("PUT", "/api/v1/me/profile", {"displayName": "Bob", "photoId": bobs}, bob["token"])
    assert status == 200 and profile["photoId"] == bobs
    status, _, edited = server.request("PATCH", "/api/v1/meetings/" + bobs_meeting["id"], {"photoId": bobs}, bob["token"])
    assert status == 200 and edited["photoId"] == bobs


def test_uploads_per_hour_are_limited(meetupd):
    server = meetupd("--media-uploads-per-hour", "2")
    ann, bob = server.register_user(), server.register_user()
    jpeg = encode(picture(64, 48), "JPEG")
    uploaded(server, ann, jpeg)
    uploaded(server, ann, jpeg)
    status, headers, problem = upload(server, ann, jpeg)
    assert status == 429 and problem["code"] == "media.tooManyUploads"
    assert 3500 <= int(headers["Retry-After"]) <= 3600
    uploaded(server, bob, jpeg)  # the limit is per user


def test_total_bytes_per_user_are_limited(meetupd):
    server = meetupd("--media-quota-mib", "1")
    ann = server.register_user()
    noisy = picture(900, 900).effect_spread(40)  # noise compresses badly: about 750 KB
    first = encode(noisy, "PNG")
    assert 600_000 < len(first) < 1 << 20
    uploaded(server, ann, first, "image/png")
    status, headers, problem = upload(server, ann, encode(noisy.rotate(90), "PNG"), "image/png")
    assert status == 429 and problem["code"] == "media.quotaExceeded"
    # Space comes back when the unused upload is swept, a day after it was made.
    assert 86_000 <= int(headers["Retry-After"]) <= 86_400


def decompression_bomb() -> bytes:
    """A valid PNG of 20,000 × 20,000 black pixels (400 megapixels) in about 50 KB."""
    width = height = 20_000
    row = b"\x00" + b"\x00" * (width // 8)  # filter byte, then 1-bit grey pixels
    compressor = zlib.compressobj(9)
    data = b"".join(compressor.compress(row) for _ in range(height)) + compressor.flush()

    def chunk(kind: bytes, payload: bytes) -> bytes:
        return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))

    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", data) + chunk(b"IEND", b"")


def png_text(key: str, value: str):
    info = PngImagePlugin.PngInfo()
    info.add_text(key, value)
    return info


def list_media_files(server) -> list[str]:
    root = os.path.join(server.data, "media")
    return sorted(os.path.relpath(os.path.join(folder, name), root)
                  for folder, _, names in os.walk(root) for name in names)
