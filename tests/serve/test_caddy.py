"""``pisa3d serve`` behind Caddy, as docs/serve-internet.md sets it up: the real server started with
``--public-url https://pisa.localhost:PORT``, Debian's ``caddy`` in front of it with an internal
(self-signed) certificate, and a person in Chromium who plays a whole match through the proxy,
WebSocket included. Everything listens on 127.0.0.1 only; Caddy writes nothing outside the test's
folder. Skipped, saying why, without /usr/bin/caddy, /usr/bin/chromium or Playwright."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import signal
import socket
import ssl
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from playwright.sync_api import expect

from tests.playwright_chromium import chromium_page

from .helpers import RealServer, free_port
from .pages import body_data, click_a_move, wait_my_turn

pytestmark = [pytest.mark.display, pytest.mark.slow]

CADDY = Path("/usr/bin/caddy")
PUBLIC_NAME = "pisa.localhost"
"""The name people use: *.localhost is loopback in browsers, so no DNS or /etc/hosts is involved."""
STRANGER_NAME = "stranger.localhost"
"""A second name Caddy also serves (as a catch-all site or a re-pointed DNS name would): Caddy
forwards it, the server must refuse it."""

CADDYFILE = """\
{{
	admin off
	skip_install_trust
	auto_https disable_redirects
}}

https://{public}:{proxy_port}, https://{stranger}:{proxy_port} {{
	bind 127.0.0.1
	tls internal
	reverse_proxy 127.0.0.1:{server_port}
}}
"""


@dataclass
class Proxied:
    server: RealServer
    port: int
    ca_file: Path
    """Caddy's internal root certificate: Python's requests verify the proxy's certificate with it."""

    @property
    def url(self) -> str:
        return f"https://{PUBLIC_NAME}:{self.port}"

    def request(self, method: str, path: str, name: str = PUBLIC_NAME, body: Any = None,
                headers: dict[str, str] | None = None) -> tuple[int, Any]:
        """(status, JSON answer) of a request through Caddy for the site ``name``, over TLS checked
        against Caddy's root; the connection goes to 127.0.0.1 whatever the name."""
        context = ssl.create_default_context(cafile=str(self.ca_file))
        connection = http.client.HTTPSConnection("127.0.0.1", self.port, timeout=30)
        connection.sock = context.wrap_socket(socket.create_connection(("127.0.0.1", self.port), timeout=30),
                                              server_hostname=name)
        try:
            data = None if body is None else json.dumps(body).encode()
            connection.request(method, path, body=data, headers={"Host": f"{name}:{self.port}", **(headers or {})})
            answer = connection.getresponse()
            raw = answer.read()
            return answer.status, json.loads(raw) if raw else None
        finally:
            connection.close()


def _caddy(tmp_path: Path, proxy_port: int, server_port: int) -> tuple[subprocess.Popen[bytes], Path]:
    """``caddy run`` on the test's Caddyfile, its home, data and config inside ``tmp_path``."""
    home = tmp_path / "caddy-home"
    config = tmp_path / "Caddyfile"
    config.write_text(CADDYFILE.format(public=PUBLIC_NAME, stranger=STRANGER_NAME, proxy_port=proxy_port,
                                       server_port=server_port))
    env = {**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home / "data"),
           "XDG_CONFIG_HOME": str(home / "config")}
    log = tmp_path / "caddy.log"
    with log.open("wb") as out:
        process = subprocess.Popen([str(CADDY), "run", "--config", str(config), "--adapter", "caddyfile"],
                                   stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    return process, home / "data" / "caddy" / "pki" / "authorities" / "local" / "root.crt"


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


@pytest.fixture
def proxied(tmp_path: Path) -> Iterator[Proxied]:
    if not CADDY.exists():
        pytest.skip(f"{CADDY} is missing (Debian: apt-get install caddy)")
    proxy_port = free_port()
    server = RealServer(tmp_path / "data", "--public-url", f"https://{PUBLIC_NAME}:{proxy_port}").start()
    caddy, ca_file = _caddy(tmp_path, proxy_port, server.port)
    log = tmp_path / "caddy.log"
    try:
        live = Proxied(server, proxy_port, ca_file)
        deadline = time.monotonic() + 30
        while True:  # Caddy is up once its certificate verifies and the server answers through it
            if caddy.poll() is not None:
                raise RuntimeError(f"caddy ended with {caddy.returncode}: {log.read_text()[-2000:]}")
            with contextlib.suppress(OSError, ssl.SSLError, http.client.HTTPException):
                if ca_file.exists() and live.request("GET", "/api/games")[0] == 200:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError(f"caddy did not answer within 30 s: {log.read_text()[-2000:]}")
            time.sleep(0.2)
        yield live
    finally:
        _stop(caddy)
        server.stop()


@contextlib.contextmanager
def _browser_page() -> Iterator[Any]:
    """A Chromium page that accepts Caddy's internal certificate (it is in no trust store) and
    reaches pisa.localhost at 127.0.0.1 (Chromium would also try ::1, where nothing listens)."""
    with chromium_page(1280, 800, extra_args=[f"--host-resolver-rules=MAP {PUBLIC_NAME} 127.0.0.1"],
                       ignore_https_errors=True) as page:
        yield page


def test_the_server_answers_through_caddy_only_to_its_public_name(proxied: Proxied) -> None:
    status, games = proxied.request("GET", "/api/games")
    assert status == 200 and games["protocol"] == 2
    # A name Caddy forwards but the server was not told about: refused by the server, not served.
    status, answer = proxied.request("GET", "/api/games", name=STRANGER_NAME)
    assert status == 421, answer
    assert STRANGER_NAME in answer["error"]
    # A page of another site, through the proxy, cannot create a match.
    match = {"game": "cards", "players": 3, "seats": ["heuristic"] * 3, "options": {"rounds": 1}}
    status, answer = proxied.request("POST", "/api/matches", body=match,
                                     headers={"Content-Type": "application/json", "Origin": "https://evil.example"})
    assert status == 403, answer
    # The same request from the public origin (the server's own pages) is taken.
    status, answer = proxied.request("POST", "/api/matches", body=match,
                                     headers={"Content-Type": "application/json", "Origin": proxied.url})
    assert status == 201, answer


def test_a_person_plays_a_whole_match_through_caddy(proxied: Proxied) -> None:
    with _browser_page() as page:
        requests: list[str] = []
        sockets: list[str] = []
        page.on("request", lambda request: requests.append(request.url))
        page.on("websocket", lambda ws: sockets.append(ws.url))
        # The lobby through Caddy: cards, three players, a person and two bots, one round.
        page.goto(proxied.url + "/")
        page.get_by_role("radio", name="Pisa (cards)").check()
        page.select_option("#players", "3")
        for seat in (1, 2):
            page.select_option(f"select[data-seat='{seat}']", "heuristic")
        page.fill("#opt-rounds", "1")
        page.click("#create-btn")  # a POST from the public origin, which the server must accept
        page.wait_for_selector("#created:not(.hidden)")
        match_id = page.locator("#created-id").inner_text()
        seat_link = page.locator("#created-links a[href*='token=']").first.get_attribute("href")
        assert seat_link
        page.goto(proxied.url + seat_link)
        # The page asks for a name once: given, it travels over the proxied socket and comes back.
        name_input = page.locator("#name-form-input")
        name_input.wait_for(state="visible", timeout=30_000)
        name_input.fill("Ann")
        name_input.press("Enter")
        expect(page.locator("#my-name")).to_have_text("Ann")
        made = 0
        while wait_my_turn(page):
            click_a_move(page)
            made += 1
            assert made < 100, "the game did not end"
        page.locator("#end").wait_for(state="visible")
        assert made >= 10  # at least every card of the person's hand
        status, summary = proxied.request("GET", f"/api/matches/{match_id}")
        assert status == 200 and summary["status"] == "over"
        assert summary["seats"][0]["name"] == "Ann"
        assert body_data(page)["over"] == "1"
    # Every request and the socket went to the public address, none to the server's own port.
    assert f"wss://{PUBLIC_NAME}:{proxied.port}/ws/{match_id}?" in "".join(sockets)
    assert all(url.startswith(f"wss://{PUBLIC_NAME}:{proxied.port}/ws/") for url in sockets)
    strays = [url for url in requests if urlparse(url).netloc != f"{PUBLIC_NAME}:{proxied.port}"
              and not url.startswith(("data:", "about:", "blob:"))]
    assert strays == []
