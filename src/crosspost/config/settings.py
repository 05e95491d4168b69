"""The one settings path: CLI flag > environment > ``.env`` > config file > default.

Everything crosspost can be told (where the ledger lives, the default mode, the accounts
of each channel) is resolved here, once, by :func:`load_settings`, and every value
remembers where it came from (:meth:`Settings.source_of`), so "why is it publishing to
that account?" has a one-line answer. Secrets never live in the config file: an account
names the environment variables that hold its credentials, and those are wrapped in
:class:`Secret` the moment they are read. Nothing here prompts, ever: cron has no one to
answer.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from types import MappingProxyType
from typing import Any

from crosspost.config.accounts import (
    SECRET_CREDENTIALS,
    Account,
    Secret,
)
from crosspost.config.advice import command_line
from crosspost.config.sources import (
    ACCOUNT_NAME,
    CONFIG_NAME,
    CREDENTIAL_KEYS,
    CREDENTIAL_WORDS,
    DEFAULTS,
    FIELDS,
    FLAG_NAMES,
    MODES,
    SECRET_KEY,
    ConfigFile,
    Environment,
    Origin,
    add_arguments,
    check_keys,
    check_known_keys,
    default_env_name,
    default_state_dir,
    env_name,
    find_config,
    flag_problem,
    parse_duration,
    refuse_inline_secrets,
)
from crosspost.errors import ConfigError
from crosspost.platforms.base import ACCOUNT_FIELDS, Limits, Option, Platform
from crosspost.platforms.registry import PLATFORMS, platform_names
from crosspost.platforms.wechat import ACCOUNT_KINDS

__all__ = [
    "FLAG_NAMES",
    "MODES",
    "SECRET_CREDENTIALS",
    "Account",
    "Secret",
    "Settings",
    "add_arguments",
    "load_settings",
    "parse_duration",
    "settings_from_args",
]

LEDGER_NAME = "ledger.sqlite3"
#: The folder under the state dir that ``--sandbox`` rehearsals keep all their state in.
SANDBOX_FOLDER = "sandbox"


@dataclass(frozen=True)
class Settings:
    """Everything crosspost was told, resolved once, each value with its source."""

    state_dir: Path
    mode: str
    theme: str
    template_dirs: tuple[Path, ...]
    issue_dirs: tuple[Path, ...]
    grace: timedelta
    log_file: Path | None
    timeout: float
    notify_urls: tuple[Secret, ...]
    notify_on_success: bool
    #: Folders besides each issue's own that its local images may lie in (``[images] folders``).
    image_folders: tuple[Path, ...] = ()
    #: Whether remote images may come from loopback and private addresses (a company's
    #: own image server; ``[images] private_hosts``). Off: only public hosts.
    private_image_hosts: bool = False
    accounts: tuple[Account, ...] = ()
    #: The config file that was read, if any (named in messages about accounts).
    config_path: Path | None = None
    #: ``.env`` files that were read, most local last.
    env_files: tuple[Path, ...] = ()
    #: Channel → the account ``-c wechat`` means when the channel has several.
    default_accounts: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    #: Setting name (or ``"wechat:main.app_secret"``) → where its value came from.
    sources: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    #: Channel → limit name → value, from ``[channels.C.limits]`` (every account's base).
    limits: Mapping[str, Mapping[str, Any]] = field(default_factory=lambda: MappingProxyType({}))
    #: A ledger shared by several machines (``postgresql://…``); None: SQLite in the state dir.
    #: Its password is a secret: show it with :attr:`ledger_shown`, never as it is.
    ledger_url: str | None = None
    #: These are a ``--sandbox`` rehearsal's settings (:meth:`rehearsal`): the commands
    #: its messages advise carry ``--sandbox`` (see :mod:`crosspost.config.advice`).
    rehearsing: bool = False

    def platforms(self) -> Mapping[str, Platform]:
        """Every platform declaration with the config's channel limits laid over it: what
        ``check``, ``render`` and ``preview`` judge an issue by."""
        return MappingProxyType(
            {name: p.with_overrides(self.limits.get(name, {})) for name, p in PLATFORMS.items()}
        )

    def platform_for(self, account: Account) -> Platform:
        """The declaration of ``account``'s channel with its own limits laid over it."""
        return PLATFORMS[account.channel].with_overrides(account.limits)

    @property
    def image_probes(self) -> Path:
        """Where ``check`` and ``render`` remember what each image decoded to, by its
        bytes' hash: ``<state_dir>/image-probes`` (:mod:`crosspost.images.remembered`)."""
        return self.state_dir / "image-probes"

    @property
    def ledger_path(self) -> Path:
        """Where the ledger lives: ``<state_dir>/ledger.sqlite3``."""
        return self.state_dir / LEDGER_NAME

    @property
    def ledger(self) -> Path | str:
        """Where the ledger is, as :meth:`Ledger.open <crosspost.ledger.store.Ledger.open>`
        takes it: the PostgreSQL URL when one is set, else :attr:`ledger_path`."""
        return self.ledger_url or self.ledger_path

    @property
    def ledger_exists(self) -> bool:
        """Whether there is a ledger to read: a shared one always is (opening creates it)."""
        return self.ledger_url is not None or self.ledger_path.exists()

    @property
    def ledger_shown(self) -> str:
        """The ledger's place as a message may name it (a URL's password hidden)."""
        from crosspost.config.redaction import Redactor

        return Redactor()(str(self.ledger))

    def rehearsal(self) -> Settings:
        """These settings for a ``--sandbox`` rehearsal: everything under
        ``<state_dir>/sandbox`` (ledger, locks, token cache, scheduler state, the emulators'
        own state), so a rehearsal never enters the real ledger or settles a real tick: a
        shared PostgreSQL ledger included, a rehearsal's ledger is SQLite there."""
        if self.rehearsing:  # already the rehearsal's: never sandbox/sandbox
            return self
        return dataclasses.replace(
            self, state_dir=self.state_dir / SANDBOX_FOLDER, ledger_url=None, rehearsing=True
        )

    def command(self, *words: str) -> str:
        """``crosspost WORDS`` for a message of a run on these settings: with ``--sandbox``
        in a rehearsal, so the advice runs as printed."""
        return command_line(*words, rehearsal=self.rehearsing)

    def source_of(self, name: str) -> str:
        """Where a setting came from, e.g. ``"environment CROSSPOST_STATE_DIR"``."""
        try:
            return self.sources[name]
        except KeyError:
            raise ConfigError(f"there is no setting called '{name}'") from None

    def accounts_for(self, channel: str) -> tuple[Account, ...]:
        """Every configured account of ``channel``, in config-file order."""
        _known_channel(channel)
        return tuple(a for a in self.accounts if a.channel == channel)

    def account(self, spec: str) -> Account:
        """The one account ``"wechat:main"`` (or ``"wechat"``, when that is unambiguous)."""
        channel, _, name = spec.partition(":")
        accounts = self.accounts_for(channel)
        if not accounts:
            raise ConfigError(f"no {channel} account is configured; {self._where_to_add(channel)}")
        if not name:
            if len(accounts) == 1:
                return accounts[0]
            name = self.default_accounts.get(channel, "")
            if not name:
                names = ", ".join(f"{channel}:{a.name}" for a in accounts)
                raise ConfigError(
                    f"{channel} has {len(accounts)} accounts ({names}); name one, or set "
                    f"default_account under [channels.{channel}] in {self._config_name()}"
                )
        for account in accounts:
            if account.name == name:
                return account
        names = ", ".join(a.name for a in accounts)
        if all(a.rehearsal for a in accounts):
            # The config's accounts are not a rehearsal's: the emulators stand in for them.
            raise ConfigError(
                f"a --sandbox rehearsal has no {channel} account called '{name}': it sends to "
                f"the built-in emulator's account, {channel}:{accounts[0].name}; write "
                f"-c {channel} (or -c {channel}:{accounts[0].name})"
            )
        raise ConfigError(
            f"no {channel} account called '{name}' (configured: {names}); "
            f"check the spelling or add [channels.{channel}.accounts.{name}]"
        )

    def select(self, specs: Iterable[str] = ()) -> tuple[Account, ...]:
        """Accounts for ``-c`` flags: ``wechat`` means all its accounts; none means all."""
        chosen: list[Account] = []
        for spec in specs or [a.key for a in self.accounts]:
            channel, _, name = spec.partition(":")
            if name:
                found: tuple[Account, ...] = (self.account(spec),)
            else:
                found = self.accounts_for(channel)
                if not found:
                    raise ConfigError(
                        f"no {channel} account is configured; {self._where_to_add(channel)}"
                    )
            chosen.extend(a for a in found if a not in chosen)
        return tuple(chosen)

    def require_credentials(self, accounts: Iterable[Account]) -> tuple[Account, ...]:
        """The accounts, after checking each has every credential its channel needs.

        Checked per requested account, so a missing Zhihu cookie does not stop a
        WeChat-only run. Raises one :class:`ConfigError` naming every missing variable.
        """
        accounts = tuple(accounts)
        missing = [
            f"{a.key} needs {a.credential_env.get(k, k.upper())} ({k})"
            for a in accounts
            for k in a.missing_credentials()
        ]
        if missing:
            raise ConfigError(
                "; ".join(missing) + f": set {'them' if len(missing) > 1 else 'it'} in the "
                f"environment or in {self._env_hint()}; "
                "nothing was sent"
            )
        return accounts

    def mode_for(
        self, account: Account, issue_mode: str | None = None, asked: str | None = None
    ) -> str:
        """``draft``, ``publish`` or ``broadcast`` for one account: the most specific word
        wins, except that an account whose config says ``mode = "draft"`` only ever drafts.

        ``asked`` (the run's ``--mode``, also read from the flag the settings were loaded
        with), then the issue's own ``mode`` (its channel block), then the account's
        ``mode`` (its channel's, when it sets none), then the general mode (from the
        environment, the file or the default ``draft``). :meth:`mode_wanted` is the same
        without the ceiling, so a run can say what was not done.
        """
        if account.mode == "draft":
            return "draft"
        return self.mode_wanted(account, issue_mode, asked)

    def mode_wanted(
        self, account: Account, issue_mode: str | None = None, asked: str | None = None
    ) -> str:
        """What flag, issue, account and config ask of ``account``, before its ceiling."""
        if asked in MODES:
            return str(asked)
        if self.sources.get("mode", "").startswith("flag "):
            return self.mode
        for candidate in (issue_mode, account.mode):
            if candidate in MODES:
                return str(candidate)
        return self.mode

    def _config_name(self) -> str:
        return str(self.config_path) if self.config_path else f"./{CONFIG_NAME}"

    def _where_to_add(self, channel: str) -> str:
        if self.config_path is None:
            return (
                f"no config file was found; create ./{CONFIG_NAME} from "
                "config/crosspost.example.toml (or pass --config)"
            )
        return f"add [channels.{channel}.accounts.main] to {self.config_path}"

    def _env_hint(self) -> str:
        if self.env_files:
            return str(self.env_files[-1])
        beside = self.config_path and self.config_path.is_file()  # not a pipe's /dev/fd
        folder = self.config_path.parent if self.config_path and beside else Path.cwd()
        return str(folder / ".env")


def _known_channel(channel: str) -> None:
    if channel not in PLATFORMS:
        raise ConfigError(
            f"unknown channel '{channel}'; crosspost knows {', '.join(platform_names())}"
        )


# --- the loader -----------------------------------------------------------------------------

#: What an account's table (and its channel's, the defaults of its accounts) may hold on
#: every channel, besides its credentials, the ``*_env`` keys naming them and its
#: platform's options declared ``in_config``. Each value's kind, as an option's; the
#: other keys (base_url, kind, limits) have checks of their own.
_ACCOUNT_VALUES: Mapping[str, str] = MappingProxyType(
    {"require_approval": "flag", **{name: "text" for name in ACCOUNT_FIELDS}}
)
_ACCOUNT_KEYS = frozenset({"base_url", "kind", "limits", *_ACCOUNT_VALUES})
#: Keys only a channel's own table holds.
_CHANNEL_KEYS = frozenset({"accounts", "default_account"})


def _check_table(
    config: ConfigFile, table: tuple[str, ...], channel: str, body: Mapping[str, Any]
) -> None:
    """Every key of a channel's (``len(table) == 2``) or an account's table known to
    crosspost, and each value of the kind it takes, or stop naming the line: a typo such
    as ``colum`` would otherwise publish without the column and pass ``doctor``."""
    options = {o.name: o for o in PLATFORMS[channel].options if o.in_config}
    own = _CHANNEL_KEYS if len(table) == 2 else frozenset()
    known = _known_keys(channel, own)
    for key in body:
        elsewhere = [c for c in PLATFORMS if key not in known and key in _known_keys(c, own)]
        if elsewhere:
            config.origin(table, key).fail(
                f"'{key}' is a {elsewhere[0]} setting, not a {channel} one; remove it (or move "
                f"it to a [channels.{elsewhere[0]}] table)"
            )
    check_keys(config, table, body, known)
    for credential, key in CREDENTIAL_KEYS[channel].items():
        if key in body:  # at once, so no later message can name what it holds
            example = default_env_name(channel, table[3] if len(table) > 3 else "main", credential)
            words = CREDENTIAL_WORDS[credential]
            env_name(config.origin(table, key), key, body[key], example, words)
    for key, value in body.items():
        option = options.get(key)
        kind = option.kind if option else _ACCOUNT_VALUES.get(key)
        problem = _value_problem(key, value, kind, option)
        if problem:
            config.origin(table, key).fail(problem)


def _known_keys(channel: str, own: frozenset[str]) -> frozenset[str]:
    """The keys of one of ``channel``'s tables (``own``: those only that table may hold)."""
    credentials = CREDENTIAL_KEYS[channel]
    return frozenset(
        {
            *_ACCOUNT_KEYS,
            *own,
            *(o.name for o in PLATFORMS[channel].options if o.in_config),
            *(key for key in credentials if not SECRET_KEY.search(key)),  # a public app_id
            *credentials.values(),
        }
    )


def _value_problem(key: str, value: Any, kind: str | None, option: Option | None) -> str | None:
    """What is wrong with ``key = value`` in an account's or a channel's table, if anything."""
    if kind == "flag":
        return flag_problem(key, value)
    if kind == "text" and not isinstance(value, str):
        return f"'{key}' must be text in quotes, e.g. {key} = \"…\", not {value!r}"
    if kind == "choice" and option is not None and value not in option.choices:
        return f"{key} {value!r} is not one of {', '.join(option.choices)}"
    if kind == "names" and not (
        isinstance(value, list) and all(isinstance(n, str) and n.strip() for n in value)
    ):
        if isinstance(value, str) and value.strip():
            return f"'{key}' must be a list of names: write {key} = [{_quoted(value)}]"
        written = (option.example if option else "").strip("[]").split(",")
        example = ", ".join(_quoted(name.strip()) for name in written if name.strip())
        return f"'{key}' must be a list of names in quotes, e.g. {key} = [{example}], not {value!r}"
    return None


def _quoted(text: str) -> str:
    """``text`` as a TOML string (a JSON string is one)."""
    return json.dumps(text, ensure_ascii=False)


def _account(
    config: ConfigFile,
    env: Environment,
    channel: str,
    name: str,
    body: dict[str, Any],
    sources: dict[str, str],
) -> Account:
    table = ("channels", channel, "accounts", name)
    key = f"{channel}:{name}"
    credentials: dict[str, Secret] = {}
    credential_env: dict[str, str] = {}
    for credential, env_key in CREDENTIAL_KEYS[channel].items():
        inline = body.pop(credential, None)  # only reachable for app_id: the rest are refused
        # Checked in its own table by _check_table: a name, never a pasted value.
        variable = body.pop(env_key, None) or default_env_name(channel, name, credential)
        credential_env[credential] = variable
        if inline is not None:
            credentials[credential] = Secret(str(inline))
            sources[f"{key}.{credential}"] = f"config file {config.origin(table, credential).where}"
            continue
        found = env.get(variable)
        if found:
            credentials[credential] = Secret(found[0])
            sources[f"{key}.{credential}"] = found[1]
    limits = _limits(config, table, channel, body.pop("limits", {}))
    base_url = body.pop("base_url", None)
    if base_url is not None:
        if not isinstance(base_url, str) or not re.match(r"^https?://[^/\s]+", base_url):
            config.origin(table, "base_url").fail(
                "base_url must be an http:// or https:// URL, e.g. http://127.0.0.1:8765"
            )
        base_url = base_url.rstrip("/")
    kind = _kind(config, table, channel, body.pop("kind", None))
    return Account(
        channel=channel,
        name=name,
        base_url=base_url,
        credentials=MappingProxyType(credentials),
        options=MappingProxyType(body),
        credential_env=MappingProxyType(credential_env),
        limits=MappingProxyType(limits),
        kind=kind,
    )


def _kind(config: ConfigFile, table: tuple[str, ...], channel: str, raw: Any) -> str | None:
    """An account's ``kind``: one of the WeChat account kinds, checked against their table."""
    if raw is None:
        return None
    if channel != "wechat":
        config.origin(table, "kind").fail(
            f"'kind' describes a WeChat Official Account; a {channel} account has none, remove it"
        )
    if raw not in ACCOUNT_KINDS:
        config.origin(table, "kind").fail(
            f"kind {raw!r} is not a WeChat account kind; use one of {', '.join(ACCOUNT_KINDS)} "
            "(crosspost doctor tells which one an account is)"
        )
    return str(raw)


def _limits(config: ConfigFile, table: tuple[str, ...], channel: str, raw: Any) -> dict[str, Any]:
    """A ``limits`` table, checked against the platform's declaration (names and types),
    so a typo stops the run naming its line rather than leaving a limit unchanged."""
    if not isinstance(raw, dict):
        config.origin(table, "limits").fail(
            "'limits' must be a table, e.g. [channels.wechat.limits]"
        )
    for key, value in raw.items():  # one at a time, so the message names the key's line
        problem = flag_problem(key, value) if key in _SWITCH_LIMITS else None
        try:
            PLATFORMS[channel].with_overrides({key: value})
        except ConfigError as error:
            problem = problem or str(error)
        if problem:
            config.origin((*table, "limits"), key).fail(problem)
    return dict(raw)


#: The limits that are true or false (``cover_required``): written as every switch of
#: the file is, and refused in the same words when quoted.
_SWITCH_LIMITS = frozenset(f.name for f in dataclasses.fields(Limits) if f.type == "bool")


def _accounts(
    config: ConfigFile, env: Environment, sources: dict[str, str], limits: dict[str, Any]
) -> tuple[tuple[Account, ...], dict[str, str]]:
    """Every account, and each channel's default account; fills ``limits`` (channel →
    its ``[channels.C.limits]`` table)."""
    accounts: list[Account] = []
    defaults: dict[str, str] = {}
    for channel in config.table("channels"):
        if channel not in PLATFORMS:
            config.origin(("channels", channel)).fail(
                f"unknown channel '{channel}'; crosspost knows {', '.join(platform_names())}"
            )
        shared = config.table("channels", channel)
        refuse_inline_secrets(config, ("channels", channel), shared)
        _check_table(config, ("channels", channel), channel, shared)
        shared.pop("accounts", None)
        default_account = shared.pop("default_account", None)
        channel_limits = _limits(config, ("channels", channel), channel, shared.pop("limits", {}))
        if channel_limits:
            limits[channel] = channel_limits
        names = config.table("channels", channel, "accounts")
        for name in names:
            table = ("channels", channel, "accounts", name)
            if not ACCOUNT_NAME.match(name):
                config.origin(table).fail(
                    f"account name '{name}' should be letters, digits, '-' or '_'"
                )
            body = config.table(*table)
            refuse_inline_secrets(config, table, body)
            _check_table(config, table, channel, body)
            own = body.pop("limits", {})
            if not isinstance(own, dict):
                config.origin(table, "limits").fail("'limits' must be a table of limit = value")
            merged = {**shared, **body, "limits": {**channel_limits, **own}}
            accounts.append(_account(config, env, channel, name, merged, sources))
        if default_account is not None:
            if default_account not in names:
                config.origin(("channels", channel), "default_account").fail(
                    f"default_account '{default_account}' is not one of the {channel} accounts"
                )
            defaults[channel] = str(default_account)
    return tuple(accounts), defaults


def _home(environ: Mapping[str, str]) -> Path | None:
    """The user's home folder: $HOME, else the passwd entry's; None when there is neither
    (a container running as a user the system does not list)."""
    if environ.get("HOME"):
        return Path(environ["HOME"])
    try:
        return Path.home()
    except RuntimeError:
        return None


def load_settings(
    flags: Mapping[str, Any] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    home: Path | None = None,
) -> Settings:
    """Resolve every setting: flag > environment > ``.env`` > config file > default.

    ``flags`` maps setting names (see :data:`FLAG_NAMES`) to values, None meaning "not
    given". ``environ``, ``cwd`` and ``home`` default to the process's own; tests pass
    their own so they never read the user's real configuration. ``.env`` files (beside
    the config file, then in ``cwd``, which wins) are read without touching ``os.environ``.
    """
    flags = {k: v for k, v in (flags or {}).items() if v is not None}
    environ = os.environ if environ is None else environ
    cwd = cwd or Path.cwd()
    home = home or _home(environ)
    local_env = [cwd / ".env"] if (cwd / ".env").is_file() else []
    env = Environment(environ, local_env)
    config_path, _ = find_config(flags.get("config"), env, cwd, home)
    if config_path is not None:
        beside = config_path.parent / ".env"
        if beside.is_file() and beside.resolve() not in {p.resolve() for p in local_env}:
            env = Environment(environ, [beside, *local_env])
    config = ConfigFile(config_path, cwd)
    check_known_keys(config)

    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for spec in FIELDS:
        raw: Any = None
        if spec.name in flags:
            raw, origin = flags[spec.name], Origin(f"flag {spec.flag}", cwd)
            label = origin.where
        elif found := env.get(spec.env):
            raw, origin = found[0], Origin(found[1], cwd)
            label = origin.where
        else:
            *tables, key = spec.file_key
            if key in config.table(*tables):
                raw = config.table(*tables)[key]
                origin = config.origin(tables, key)
                label = f"config file {origin.where}"
        if raw is None:
            if spec.name == "state_dir":
                values[spec.name], sources[spec.name] = default_state_dir(env, home)
            else:
                values[spec.name], sources[spec.name] = DEFAULTS[spec.name], "default"
            continue
        values[spec.name], sources[spec.name] = spec.parse(raw, origin), label

    urls_env = "CROSSPOST_NOTIFY_URLS"
    if "urls_env" in config.table("notify"):
        urls_env = env_name(
            config.origin(("notify",), "urls_env"),
            "urls_env",
            config.table("notify")["urls_env"],
            urls_env,
            "notification URL",
        )
    found_urls = env.get(urls_env)
    urls = re.split(r"[\s,]+", found_urls[0].strip()) if found_urls else []
    sources["notify_urls"] = found_urls[1] if found_urls else "default"

    limits: dict[str, Any] = {}
    accounts, default_accounts = _accounts(config, env, sources, limits)
    return Settings(
        **values,
        notify_urls=tuple(Secret(u) for u in urls if u),
        accounts=accounts,
        config_path=config_path,
        env_files=env.files,
        default_accounts=MappingProxyType(default_accounts),
        sources=MappingProxyType(sources),
        limits=MappingProxyType(limits),
    )


def settings_from_args(args: argparse.Namespace, **kwargs: Any) -> Settings:
    """:func:`load_settings` with whatever of :data:`FLAG_NAMES` a command's parser defined."""
    flags = {name: getattr(args, name, None) for name in FLAG_NAMES}
    return load_settings(flags, **kwargs)
