"""``crosspost sandbox``: run the WeChat and Zhihu emulators on loopback until Ctrl-C.

Prints each platform's base URL, the credentials that work against it (as environment
lines for config/crosspost.example.toml and as a curl line to try), then one line per
request it serves (secrets redacted). ``--port N`` puts WeChat on N and Zhihu on N + 1
(``--port 0``: any free ports); ``--state DIR`` keeps drafts, articles and images across
restarts; ``--fault`` and ``--option`` script the platforms (see docs/sandbox.md).
"""

from __future__ import annotations

import argparse
import json
import signal
import threading
from pathlib import Path
from typing import Any

from crosspost.errors import EXIT_OK, UsageError

DEFAULT_PORT = 8765


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the sandbox's flags."""
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only)",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=f"WeChat's port; Zhihu gets the next one (default {DEFAULT_PORT}; 0: any free)",
    )
    parser.add_argument(
        "--state", type=Path, metavar="DIR", help="keep the platforms' state in DIR"
    )
    parser.add_argument(
        "--fault",
        action="append",
        default=[],
        metavar="SPEC",
        help="PLATFORM:PATH=KIND[*COUNT][%%PROB], e.g. wechat:/cgi-bin/token=http:503*1",
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="PLATFORM.KEY=VALUE",
        help="emulator option, VALUE as JSON when it parses (e.g. wechat.verified=false)",
    )
    parser.add_argument("--quiet", action="store_true", help="do not print each request")


def parse_options(items: list[str]) -> dict[str, dict[str, Any]]:
    """``["wechat.verified=false"]`` → ``{"wechat": {"verified": False}}``."""
    options: dict[str, dict[str, Any]] = {}
    for item in items:
        key, equals, text = item.partition("=")
        platform, dot, name = key.partition(".")
        if not equals or not dot or platform not in ("wechat", "zhihu") or not name:
            raise UsageError(
                f"--option {item!r} is not PLATFORM.KEY=VALUE, e.g. wechat.verified=false"
            )
        try:
            value: Any = json.loads(text)
        except ValueError:
            value = text
        options.setdefault(platform, {})[name] = value
    return options


def run(args: argparse.Namespace) -> int:
    """Serve until Ctrl-C or SIGTERM, then save state and return 0."""
    from crosspost.sandbox.box import Sandbox, parse_fault

    faults = [parse_fault(spec) for spec in args.fault]
    port = args.port
    if not 0 <= port <= 65534:
        raise UsageError(f"--port {port} is not a port number (0 to 65534)")
    box = Sandbox(
        options=parse_options(args.option),
        state_dir=args.state,
        host=args.host,
        wechat_port=port,
        zhihu_port=port + 1 if port else 0,
        on_request=None if args.quiet else lambda entry: _say(entry.line()),
    )
    for fault in faults:
        box.faults.add_fault(fault)
    stopping = threading.Event()
    # Handlers of our own: a process started in the background inherits SIGINT ignored.
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stopping.set())
    box.start()
    try:
        _say(banner(box, args.state))
        while not stopping.wait(0.2):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        box.stop()
    _say("crosspost sandbox: stopped" + (f"; state saved in {args.state}" if args.state else ""))
    return EXIT_OK


def _say(line: str) -> None:
    print(line, flush=True)


def banner(box: Any, state: Path | None) -> str:
    """What a new user needs to point crosspost, or curl, at the sandbox."""
    lines = [
        f"crosspost sandbox: state {'in ' + str(state) if state else 'in memory'}; Ctrl-C stops",
    ]
    if "wechat" in box.servers:
        url, cred = box.wechat_url, box.wechat.credentials()
        lines += [
            f"  wechat  {url}",
            f"    export WECHAT_APP_ID={cred['app_id']} WECHAT_APP_SECRET={cred['app_secret']}",
            f'    curl "{url}/cgi-bin/token?grant_type=client_credential'
            f'&appid={cred["app_id"]}&secret={cred["app_secret"]}"',
        ]
    if "zhihu" in box.servers:
        url, cred = box.zhihu_url, box.zhihu.credentials()
        lines += [
            f"  zhihu   {url}",
            f"    export ZHIHU_Z_C0='{cred['z_c0']}' ZHIHU_XSRF={cred.get('xsrf', '')} "
            f"ZHIHU_D_C0={cred.get('d_c0', '')}",
            f"    curl -b 'z_c0={cred['z_c0']}' {url}/api/v4/me",
        ]
    first = next(iter(box.servers.values()))
    lines.append(f"  faults  curl {first.url}/__sandbox__/faults (see docs/sandbox.md)")
    return "\n".join(lines)
