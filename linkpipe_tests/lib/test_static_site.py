"""The loopback site server: files, routes, placeholders and conditional requests."""

import http.client
import json
import socket
import struct
import time
import urllib.error
import urllib.request

import pytest

from linkpipe.lib.static_site import serve_site


@pytest.fixture()
def site(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "index.html").write_text('<link rel="canonical" href="__BASE_URL__/a/">')
    (tmp_path / "_routes.json").write_text(
        json.dumps(
            {
                "redirects": {"/old/": "/a/"},
                "headers": {"/a/": {"X-Robots-Tag": "noindex"}},
                "status": {"/a/": 200},
            }
        )
    )
    with serve_site(tmp_path) as served:
        yield served


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def test_files_placeholders_and_headers(site):
    with urllib.request.urlopen(site.base_url + "/a/?q=ignored") as r:
        assert r.read().decode() == f'<link rel="canonical" href="{site.base_url}/a/">'
        assert r.headers["X-Robots-Tag"] == "noindex"
        assert r.headers["Content-Type"] == "text/html; charset=utf-8"


def test_redirect_and_404(site):
    opener = urllib.request.build_opener(NoRedirect)
    with pytest.raises(urllib.error.HTTPError) as err:
        opener.open(site.base_url + "/old/")
    assert err.value.code == 301 and err.value.headers["Location"] == "/a/"
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(site.base_url + "/missing/")
    assert err.value.code == 404


def test_conditional_requests_get_304(site):
    with urllib.request.urlopen(site.base_url + "/a/") as r:
        etag, modified = r.headers["ETag"], r.headers["Last-Modified"]
    for headers in ({"If-None-Match": etag}, {"If-Modified-Since": modified}):
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(urllib.request.Request(site.base_url + "/a/", headers=headers))
        assert err.value.code == 304
    with urllib.request.urlopen(
        urllib.request.Request(site.base_url + "/a/", headers={"If-None-Match": '"other"'})
    ) as r:
        assert r.status == 200


def test_one_connection_serves_many_requests(site):
    # kept alive as a web server keeps it: a page, a redirect, a 304 and a miss on one socket
    conn = http.client.HTTPConnection(site.base_url.removeprefix("http://"), timeout=5)
    try:
        answers = []
        for path in ("/a/", "/old/", "/missing/", "/a/"):
            conn.request("GET", path)
            if not answers:
                sock = conn.sock
            response = conn.getresponse()
            answers.append((response.status, len(response.read()), response.will_close))
            assert conn.sock is sock
        conn.request("HEAD", "/a/")
        head = conn.getresponse()
        assert head.read() == b"" and int(head.headers["Content-Length"]) > 0
        conn.request("GET", "/a/", headers={"If-None-Match": head.headers["ETag"]})
        answers.append((conn.getresponse().status, 0, False))
        assert conn.sock is sock
    finally:
        conn.close()
    page = len(f'<link rel="canonical" href="{site.base_url}/a/">')
    assert answers[0] == (200, page, False) and answers[3] == answers[0]
    assert answers[1] == (301, 0, False) and answers[2][0] == 404 and answers[4][0] == 304


def test_a_client_hanging_up_a_kept_alive_connection_is_not_reported(site, capsys):
    host, port = site.base_url.removeprefix("http://").split(":")
    for _ in range(3):
        with socket.create_connection((host, int(port)), timeout=5) as conn:
            conn.sendall(b"GET /a/ HTTP/1.1\r\nHost: x\r\n\r\n")
            assert conn.recv(4096).startswith(b"HTTP/1.1 200")
            # close with a reset, as a crawler's pool does at its end: the server is reading
            # the next request when the connection goes
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    time.sleep(0.3)  # the handler threads see the reset
    with urllib.request.urlopen(site.base_url + "/a/") as r:
        assert r.status == 200  # still serving
    assert "Traceback" not in capsys.readouterr().err
