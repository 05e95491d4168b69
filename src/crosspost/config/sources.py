"""Where settings come from: the config file, the environment and ``.env``, and their parsers.

:mod:`crosspost.config.settings` decides precedence and builds the accounts; this module knows
the shapes: the table of settings (flag, variable, place in the file, parser), how to
read TOML so every problem names ``file:line``, and how to read ``.env`` files without
exporting them into ``os.environ``.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import stat
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from types import MappingProxyType
from typing import Any, NoReturn

from crosspost.errors import ConfigError, did_you_mean
from crosspost.patterns import pattern

MODES = ("draft", "publish", "broadcast")
CONFIG_NAME = "crosspost.toml"
#: A config with every account of a large team is a few KB; a bigger file is a mistake
#: (a log, a database) that should not be read into memory and parsed.
MAX_CONFIG_BYTES = 1_000_000

#: Keys that would put a secret in the config file itself. AppID is public, so inline is fine.
SECRET_KEY = pattern(
    r"^(app_?secret|secret|cookie|z_c0|d_c0|_?xsrf|token|access_token|password)$"
    r"|_(secret|token|cookie|password)$"
)
ENV_NAME = pattern(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: What a pasted credential looks like even where it passes :data:`ENV_NAME`: sixteen or
#: more letters and digits, a digit among them, and no ``_`` (a 32-hex AppSecret, a
#: base64 token). Names that long are words joined by ``_`` (WECHAT_BACKUP_APP_SECRET).
_PASTED_VALUE = pattern(r"^(?=.*[0-9])[A-Za-z0-9]{16,}$")
ACCOUNT_NAME = pattern(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
_DURATION = pattern(r"(\d+(?:\.\d+)?)\s*([dhms])")
_DURATION_UNITS = {"d": 86400.0, "h": 3600.0, "m": 60.0, "s": 1.0}
_TOP_LEVEL = {"state_dir", "mode", "theme", "template_dirs", "log_file", "timeout", "ledger_url"}
_TABLES = {
    "schedule": {"issue_dirs", "grace"},
    "notify": {"urls_env", "on_success"},
    "images": {"folders", "private_hosts"},
}


#: How an account's credentials are named in the config file, per channel:
#: credential key → the ``*_env`` key naming its environment variable.
CREDENTIAL_KEYS: Mapping[str, Mapping[str, str]] = MappingProxyType(
    {
        "wechat": MappingProxyType({"app_id": "app_id_env", "app_secret": "app_secret_env"}),
        "zhihu": MappingProxyType({"z_c0": "cookie_env", "xsrf": "xsrf_env", "d_c0": "d_c0_env"}),
    }
)


#: How messages name what each credential is, when a ``*_env`` key holds it instead of a name.
CREDENTIAL_WORDS: Mapping[str, str] = MappingProxyType(
    {
        "app_id": "AppID",
        "app_secret": "AppSecret",
        "z_c0": "z_c0 cookie",
        "xsrf": "_xsrf cookie",
        "d_c0": "d_c0 cookie",
    }
)


def env_name(origin: Origin, key: str, raw: Any, example: str, what: str) -> str:
    """``raw``, the value of a ``*_env`` key, if it is an environment variable's name as
    people write them: letters, digits and ``_``, and not a pasted value (see
    :data:`_PASTED_VALUE`). Else stop, naming the line and ``example`` (a good name) but
    never ``raw``: it may be the secret itself, and a message reaches the terminal,
    cron's mail, ``run-due.json`` and the log."""
    if isinstance(raw, str) and ENV_NAME.match(raw) and not _PASTED_VALUE.match(raw):
        return raw
    if isinstance(raw, str) and not raw.strip():
        origin.fail(f"'{key}' is empty; write the name of an environment variable, like {example}")
    problem = f"'{key}' must be the NAME of an environment variable (like {example}), not its value"
    bare = raw.strip().lstrip("$").strip("{}") if isinstance(raw, str) else ""
    if bare != raw and ENV_NAME.match(bare) and not _PASTED_VALUE.match(bare):
        origin.fail(f"{problem}; write the name alone, without $, braces or spaces")
    origin.fail(
        f"{problem}; this looks like the {what} itself: put it in the environment or .env "
        f'as {example}=… and write {key} = "{example}"'
    )


def refuse_inline_secrets(
    config: ConfigFile, table: tuple[str, ...], body: Mapping[str, Any]
) -> None:
    """Stop at a key that would hold a secret in the file itself, saying which *_env to use."""
    for key in body:
        if SECRET_KEY.search(key) and not key.endswith("_env"):
            channel = table[1]
            env_key = {"z_c0": "cookie_env", "cookie": "cookie_env"}.get(key, f"{key}_env")
            if channel == "wechat" and key in {"secret", "appsecret"}:
                env_key = "app_secret_env"
            config.origin(table, key).fail(
                f"'{key}' puts a secret in the config file; remove it, put the value in an "
                f'environment variable (or .env) and name that variable with {env_key} = "..."'
            )


def default_env_name(channel: str, account: str, credential: str) -> str:
    """``WECHAT_APP_SECRET`` for the ``main`` account, ``WECHAT_BACKUP_APP_SECRET`` for others."""
    middle = "" if account == "main" else re.sub(r"\W", "_", account).upper() + "_"
    return f"{channel.upper()}_{middle}{credential.upper()}"


@dataclass(frozen=True)
class Origin:
    """Where a raw value was found: the words for messages and the folder for relative paths."""

    where: str
    base: Path
    #: The key the value was written under in the config file; None for a flag or an
    #: environment variable, which can only hold text.
    key: str | None = None

    def fail(self, problem: str) -> NoReturn:
        raise ConfigError(f"{self.where}: {problem}")


def _path(raw: Any, origin: Origin) -> Path:
    if not isinstance(raw, str | Path) or not str(raw).strip():
        origin.fail("expected a path")
    path = Path(str(raw)).expanduser()
    return path if path.is_absolute() else origin.base / path


def _paths(raw: Any, origin: Origin) -> tuple[Path, ...]:
    items = raw.split(os.pathsep) if isinstance(raw, str) else raw
    if not isinstance(items, list | tuple):
        origin.fail("expected a list of paths")
    return tuple(_path(item, origin) for item in items if str(item).strip())


def parse_mode(raw: Any, origin: Origin) -> str:
    if raw not in MODES:
        origin.fail(f"mode {raw!r} is not one of {', '.join(MODES)}")
    return str(raw)


def _text(raw: Any, origin: Origin) -> str:
    if not isinstance(raw, str) or not raw.strip():
        origin.fail("expected a non-empty string")
    return raw.strip()


def theme_file(name: str) -> Path | None:
    """The CSS file a theme given as a path names (it ends in ``.css``, or starts like a
    path: ``/``, ``~``, ``./``, ``../``), or None for a theme's name, which the template
    folders are searched for (``brand/dark`` names ``wechat/themes/brand/dark.css``)."""
    if name.lower().endswith(".css") or name.startswith(("/", "~", "./", "../")):
        return Path(name).expanduser()
    return None


def theme_file_problem(path: Path) -> str | None:
    """Why the theme file ``path`` cannot be used, or None when it can."""
    if path.is_file():
        return None
    shown = path.absolute()
    if path.is_dir():
        return f"theme {shown} is a folder, not a CSS file; name the .css file in it"
    return (
        f"theme file {shown} does not exist; check the path, or name a theme instead "
        f"(such as {DEFAULTS['theme']})"
    )


def _theme(raw: Any, origin: Origin) -> str:
    """A theme's name, or the path of a CSS file that must be there (relative: to the
    folder crosspost runs in, where the renderer will look for it)."""
    name = _text(raw, origin)
    path = theme_file(name)
    problem = theme_file_problem(path) if path is not None else None
    if problem:
        origin.fail(problem)
    return name


def _ledger_url(raw: Any, origin: Origin) -> str:
    """A shared ledger's ``postgresql://`` URL; its password never appears in a message."""
    from crosspost.config.redaction import Redactor

    url = raw.strip() if isinstance(raw, str) else ""
    if not url.lower().startswith(("postgresql://", "postgres://")):
        origin.fail(
            f"{Redactor()(str(raw))!r} is not a PostgreSQL URL; write "
            "postgresql://USER@HOST/DATABASE, or leave ledger_url out for the SQLite ledger "
            "in the state dir"
        )
    return url


#: The longest network timeout that makes sense (a day); inf/nan/huge values are typos.
MAX_TIMEOUT_SECONDS = 86_400.0
#: The longest duration accepted (a year): far beyond any grace period, far below the
#: point where ``timedelta`` overflows.
MAX_DURATION_SECONDS = 366 * 86_400.0


def _seconds(raw: Any, origin: Origin) -> float:
    try:
        value = float(raw)
    except (TypeError, ValueError, OverflowError):
        origin.fail(f"{raw!r} is not a number of seconds")
    if not math.isfinite(value):
        origin.fail(f"{raw!r} is not a number of seconds")
    if value <= 0:
        origin.fail("must be more than 0 seconds")
    if value > MAX_TIMEOUT_SECONDS:
        origin.fail(f"{raw!r} seconds is too long; at most {MAX_TIMEOUT_SECONDS:g}")
    return value


def parse_duration(raw: Any, origin_words: str = "duration") -> timedelta:
    """``"24h"``, ``"90m"``, ``"1d12h"``, ``"45s"`` or a number of seconds, as a timedelta."""
    origin = Origin(origin_words, Path.cwd())
    is_number = isinstance(raw, int | float) and not isinstance(raw, bool)
    try:
        if is_number or (isinstance(raw, str) and re.fullmatch(r"\s*\d+(\.\d+)?\s*", raw)):
            seconds = float(raw)
        elif isinstance(raw, str) and re.fullmatch(rf"\s*({_DURATION.pattern}\s*)+", raw):
            seconds = sum(float(n) * _DURATION_UNITS[u] for n, u in _DURATION.findall(raw))
        else:
            origin.fail(f"{raw!r} is not a duration; write e.g. 24h, 90m, 1d12h or 3600")
    except OverflowError:  # an int too large for a float
        seconds = math.inf
    if math.isnan(seconds):
        origin.fail(f"{raw!r} is not a duration; write e.g. 24h, 90m, 1d12h or 3600")
    if seconds < 0:
        origin.fail("a duration cannot be negative")
    if seconds > MAX_DURATION_SECONDS:
        origin.fail(f"{raw!r} is too long a duration; at most 366d")
    return timedelta(seconds=seconds)


def _duration(raw: Any, origin: Origin) -> timedelta:
    return parse_duration(raw, origin.where)


def flag_problem(key: str, value: Any) -> str | None:
    """What is wrong with ``key = value`` for a true-or-false setting of the config file,
    if anything: TOML has ``true`` and ``false``, and every such setting of the file (the
    ``[notify]`` and ``[images]`` switches, an account's, a limit) takes only those; a
    quoted ``"yes"`` is refused alike everywhere, never read one way here, another there."""
    if isinstance(value, bool):
        return None
    return f"'{key}' must be true or false (without quotes), not {value!r}"


def _flag(raw: Any, origin: Origin) -> bool:
    if isinstance(raw, bool):
        return raw
    problem = flag_problem(origin.key, raw) if origin.key is not None else None
    if problem:  # the config file's own true and false, nothing else
        origin.fail(problem)
    # A flag or an environment variable is text: CROSSPOST_NOTIFY_ON_SUCCESS=yes.
    word = str(raw).strip().lower()
    if word in {"1", "true", "yes", "on"}:
        return True
    if word in {"0", "false", "no", "off"}:
        return False
    origin.fail(f"{raw!r} is not true or false")


@dataclass(frozen=True)
class _Field:
    """One setting: its flag, environment variable, place in the config file and parser."""

    name: str
    env: str
    file_key: tuple[str, ...]
    parse: Callable[[Any, Origin], Any]

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


FIELDS: tuple[_Field, ...] = (
    _Field("state_dir", "CROSSPOST_STATE_DIR", ("state_dir",), _path),
    _Field("mode", "CROSSPOST_MODE", ("mode",), parse_mode),
    _Field("theme", "CROSSPOST_THEME", ("theme",), _theme),
    _Field("template_dirs", "CROSSPOST_TEMPLATE_DIRS", ("template_dirs",), _paths),
    _Field("issue_dirs", "CROSSPOST_ISSUE_DIRS", ("schedule", "issue_dirs"), _paths),
    _Field("grace", "CROSSPOST_GRACE", ("schedule", "grace"), _duration),
    _Field("log_file", "CROSSPOST_LOG_FILE", ("log_file",), _path),
    _Field("timeout", "CROSSPOST_TIMEOUT", ("timeout",), _seconds),
    _Field("notify_on_success", "CROSSPOST_NOTIFY_ON_SUCCESS", ("notify", "on_success"), _flag),
    _Field("image_folders", "CROSSPOST_IMAGE_FOLDERS", ("images", "folders"), _paths),
    _Field(
        "private_image_hosts", "CROSSPOST_PRIVATE_IMAGE_HOSTS", ("images", "private_hosts"), _flag
    ),
    _Field("ledger_url", "CROSSPOST_LEDGER_URL", ("ledger_url",), _ledger_url),
)
#: Argparse destinations :func:`settings_from_args` reads (``config`` picks the file).
FLAG_NAMES: tuple[str, ...] = ("config", *(f.name for f in FIELDS))


def line_of(text: str, table: Sequence[str], key: str | None = None) -> int | None:
    """Best-effort 1-based line of ``key`` in ``[table]`` (or of the header itself)."""
    lines = text.splitlines()
    start = 0
    if table:
        header = re.sub(r"[\s\"']", "", "[" + ".".join(table))  # as `bare` below: quoted names
        start = -1
        for number, line in enumerate(lines):
            bare = re.sub(r"[\s\"']", "", line.split("#")[0])
            if bare == header + "]":
                start = number + 1
                break
            if key is None and bare.startswith(header + "."):
                return number + 1  # [channels.weibo] only exists through a sub-table
        if key is None:
            return start if start > 0 else None
    if key is None:
        return None
    # `key = …`, or a dotted `key.sub = …`, which TOML reads as a table under the key.
    pattern = re.compile(rf"^\s*[\"']?{re.escape(key)}[\"']?\s*[=.]")
    if start >= 0:
        for number in range(start, len(lines)):
            if lines[number].lstrip().startswith("["):
                break
            if pattern.match(lines[number]):
                return number + 1
    found = next((n + 1 for n, line in enumerate(lines) if pattern.match(line)), None)
    # A key that is a table of its own has a header instead: [chanels.wechat] for a
    # misspelt 'chanels'.
    return found or line_of(text, (*table, key))


class ConfigFile:
    """The parsed TOML with its text, so every problem can name ``file:line``."""

    def __init__(self, path: Path | None, cwd: Path | None = None) -> None:
        self.path = path
        #: The bytes as read, once: a pipe (``--config <(…)``) cannot be read twice.
        self.raw = b""
        self.text = ""
        self.data: dict[str, Any] = {}
        #: What relative paths in the file are relative to: its folder, or for a pipe
        #: (whose folder is /dev/fd) the folder crosspost runs in.
        self.base = cwd or Path.cwd()
        if path is None:
            return
        try:
            with path.open("rb") as handle:
                opened = os.fstat(handle.fileno())
                self.raw = handle.read(MAX_CONFIG_BYTES + 1)
            if len(self.raw) > MAX_CONFIG_BYTES:
                size = (
                    f"{opened.st_size:,}" if opened.st_size else f"more than {MAX_CONFIG_BYTES:,}"
                )
                raise ConfigError(
                    f"{path}: is {size} bytes, too big for a crosspost config (at most "
                    f"{MAX_CONFIG_BYTES:,}); is it the right file?"
                )
            # Newlines as Path.read_text gives them, so every line number stays the same.
            self.text = self.raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
        except UnicodeDecodeError as error:
            line = error.object[: error.start].count(b"\n") + 1
            raise ConfigError(f"{path}:{line}: not UTF-8 text; save it as UTF-8") from None
        except OSError as error:
            raise ConfigError(
                f"{path}: cannot be read ({error.strerror}); check the path"
            ) from None
        if stat.S_ISREG(opened.st_mode):
            self.base = path.parent
        import tomllib  # here, not at the top: commands import add_arguments to start fast

        try:
            self.data = tomllib.loads(self.text)
        except tomllib.TOMLDecodeError as error:
            found = re.search(r"\(at line (\d+), column (\d+)\)", str(error))
            problem = re.sub(r"\s*\(at line.*\)", "", str(error))
            where = f"{path}:{found.group(1)}" if found else str(path)
            raise ConfigError(f"{where}: not valid TOML ({problem}); fix that line") from None
        except RecursionError:
            # tomllib recurses once per nested array or inline table.
            raise ConfigError(
                f"{path}: nests arrays or tables too deeply to read; a crosspost config "
                "needs two levels ([wechat.main]), flatten it"
            ) from None

    def origin(self, table: Sequence[str], key: str | None = None) -> Origin:
        assert self.path is not None
        line = line_of(self.text, table, key)
        return Origin(f"{self.path}:{line}" if line else str(self.path), self.base, key)

    def table(self, *keys: str) -> dict[str, Any]:
        node: Any = self.data
        for depth, key in enumerate(keys):
            node = node.get(key, {})
            if not isinstance(node, dict):
                self.origin(keys[:depth], key).fail(f"'{key}' must be a table ([{key}])")
        return dict(node)


class Environment:
    """The real environment over the ``.env`` files, which are read but never exported."""

    def __init__(self, environ: Mapping[str, str], env_files: Sequence[Path]) -> None:
        self.environ = environ
        self.files = tuple(env_files)
        self.dotenv: dict[str, tuple[str, Path]] = {}
        if not self.files:  # no .env file, no need to load its reader
            return
        from dotenv import dotenv_values  # here, not at the top: see ConfigFile

        for path in self.files:  # most local last, so it wins
            try:
                values = dotenv_values(path, interpolate=False)
            except (OSError, UnicodeDecodeError) as error:
                raise ConfigError(f"{path}: cannot be read ({error}); fix or remove it") from None
            self.dotenv.update({k: (v, path) for k, v in values.items() if v})

    def get(self, name: str) -> tuple[str, str] | None:
        """(value, where it came from) or None; an empty variable counts as unset."""
        if self.environ.get(name):
            return self.environ[name], f"environment {name}"
        if name in self.dotenv:
            value, path = self.dotenv[name]
            return value, f".env {path} ({name})"
        return None


def find_config(
    flag: Any, env: Environment, cwd: Path, home: Path | None
) -> tuple[Path | None, str]:
    """The config file and why it was chosen: flag, CROSSPOST_CONFIG, ./, then ~/.config
    (``home`` None: a user with no home folder, whose ~/.config is not looked in)."""
    explicit = (str(flag), "flag --config") if flag else env.get("CROSSPOST_CONFIG")
    if explicit:
        path = Path(explicit[0]).expanduser()
        path = path if path.is_absolute() else cwd / path
        problem = _not_a_config(path)
        if problem:
            raise ConfigError(f"{explicit[1]}: {problem}")
        return path, explicit[1]
    xdg = env.get("XDG_CONFIG_HOME")
    user_dir = Path(xdg[0]) if xdg else None if home is None else home / ".config"
    candidates = [cwd / CONFIG_NAME]
    if user_dir is not None:
        candidates.append(user_dir / "crosspost" / CONFIG_NAME)
    for candidate in candidates:
        if candidate.is_file():
            return candidate, "found"
    return None, "none found"


#: Kinds of file that are no config, in the words a message uses.
_FILE_KINDS = {
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
}


def _not_a_config(path: Path) -> str | None:
    """Why ``path``, named by ``--config`` or CROSSPOST_CONFIG, is no config file, or None.

    A pipe is one (``--config <(sops -d crosspost.toml)``, a named FIFO): it is read once,
    like a file.
    """
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return f"config file {path} does not exist; check the path"
    except OSError as error:
        return f"config file {path} cannot be read ({error.strerror}); check the path"
    if stat.S_ISREG(mode) or stat.S_ISFIFO(mode):
        return None
    if stat.S_ISDIR(mode):
        inside = path / CONFIG_NAME
        name = str(inside) if inside.is_file() else f"the {CONFIG_NAME} in it"
        return f"{path} is a folder, not a config file; name {name}"
    kind = _FILE_KINDS.get(stat.S_IFMT(mode), "not a regular file")
    return f"{path} is {kind}, not a config file; name a TOML file such as {CONFIG_NAME}"


def default_state_dir(env: Environment, home: Path | None) -> tuple[Path, str]:
    """Where the ledger lives when nothing says: $XDG_STATE_HOME, else the home folder.

    A process with neither (a container's user without a passwd entry or HOME) is told
    to say where, rather than given a folder it would lose: the ledger is what keeps an
    issue from going out twice."""
    xdg = env.get("XDG_STATE_HOME")
    if xdg:
        return Path(xdg[0]) / "crosspost", f"default ($XDG_STATE_HOME/crosspost, from {xdg[1]})"
    if home is None:
        raise ConfigError(
            "no home folder to keep the ledger in (HOME is not set and this user has no "
            "passwd entry); set CROSSPOST_STATE_DIR, or pass --state-dir"
        )
    return home / ".local" / "state" / "crosspost", "default (~/.local/state/crosspost)"


DEFAULTS: Mapping[str, Any] = MappingProxyType(
    {
        "mode": "draft",
        "theme": "default",
        "template_dirs": (),
        "issue_dirs": (),
        "grace": timedelta(hours=24),
        "log_file": None,
        "timeout": 30.0,
        "notify_on_success": False,
        "image_folders": (),
        "private_image_hosts": False,
        "ledger_url": None,
    }
)


def check_known_keys(config: ConfigFile) -> None:
    """Stop at a key crosspost does not read at the top level or in [schedule], [notify],
    [images]; the channel and account tables go through :func:`check_keys` too."""
    check_keys(config, (), config.data, {*_TOP_LEVEL, *_TABLES, "channels"})
    for table, keys in _TABLES.items():
        body = config.table(table)
        if table == "notify" and "urls" in body:
            config.origin((table,), "urls").fail(
                "notification URLs carry tokens, so they are not written here; put them in "
                "an environment variable (or .env) and name it with urls_env = "
                '"CROSSPOST_NOTIFY_URLS"'
            )
        check_keys(config, (table,), body, keys)


def check_keys(
    config: ConfigFile, table: Sequence[str], body: Mapping[str, Any], known: Collection[str]
) -> None:
    """Stop at the first key of ``[table]`` that is not in ``known``, naming its line and
    the known key it is closest to (a typo), else every known key: one rule for every
    table of the file, so a misspelt key never quietly falls back to a default."""
    for key in body:
        if key in known:
            continue
        where = f" in [{'.'.join(table)}]" if table else ""
        hint = did_you_mean(key, known) or f"known: {', '.join(sorted(known))}"
        config.origin(table, key).fail(f"unknown setting '{key}'{where}; {hint}")


def add_arguments(parser: argparse.ArgumentParser, *names: str) -> None:
    """Add the shared settings flags (``--config``, ``--state-dir``, …) a command wants."""
    helps = {
        # Each default in the order find_config and default_state_dir look, as README says it.
        "config": (
            f"config file (default: $CROSSPOST_CONFIG, else ./{CONFIG_NAME}, else "
            f"crosspost/{CONFIG_NAME} in $XDG_CONFIG_HOME, else in ~/.config)"
        ),
        "state_dir": (
            "where the ledger (unless ledger_url is set), locks and caches live (default: "
            "$CROSSPOST_STATE_DIR, else state_dir in the config, else "
            "$XDG_STATE_HOME/crosspost, else ~/.local/state/crosspost)"
        ),
        "mode": (
            "draft: leave drafts for review; publish: publish them (a link, nothing pushed); "
            "broadcast: WeChat 群发 to followers (default: the issue's, account's or config's "
            'mode, else draft; an account with mode = "draft" only ever drafts)'
        ),
        "theme": "rendering theme name or CSS file",
        "grace": "how late a scheduled issue may still be published, e.g. 6h (default 24h)",
        "log_file": "also write the log to this file",
        "timeout": "seconds to wait for a platform before giving up on a request",
    }
    for name in names or ("config", "state_dir"):
        flag = "--" + name.replace("_", "-")
        choices = MODES if name == "mode" else None
        parser.add_argument(flag, dest=name, default=None, choices=choices, help=helps.get(name))
