"""The one settings path: what wins, where each value came from, and the messages a user sees.

Every test builds its own folder, environment and home, so none of them can read the
real ``~/.config/crosspost`` or the real environment of whoever runs the suite.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import pickle
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pytest

from crosspost.config.settings import (
    Account,
    Secret,
    Settings,
    add_arguments,
    load_settings,
    parse_duration,
    settings_from_args,
)
from crosspost.errors import EXIT_BAD_INPUT, ConfigError

REPO_ROOT = Path(__file__).resolve().parents[1]

WECHAT_ACCOUNTS = """
[channels.wechat]
need_open_comment = true
default_account = "main"

[channels.wechat.accounts.main]
app_id_env = "WECHAT_APP_ID"
app_secret_env = "WECHAT_APP_SECRET"

[channels.wechat.accounts.backup]
base_url = "http://127.0.0.1:9999/"
mode = "publish"

[channels.zhihu.accounts.main]
cookie_env = "ZHIHU_Z_C0"
column = "c_42"
"""


@dataclass
class Place:
    """A working folder, a home folder and an environment, all private to one test."""

    cwd: Path
    home: Path
    environ: dict[str, str]

    def config(self, text: str, name: str = "crosspost.toml") -> Path:
        path = self.cwd / name
        path.write_text(text, "utf-8")
        return path

    def dotenv(self, text: str, folder: Path | None = None) -> Path:
        path = (folder or self.cwd) / ".env"
        path.write_text(text, "utf-8")
        return path

    def load(self, **flags: object) -> Settings:
        return load_settings(flags, environ=self.environ, cwd=self.cwd, home=self.home)


@pytest.fixture
def place(tmp_path: Path) -> Place:
    (tmp_path / "work").mkdir()
    (tmp_path / "home").mkdir()
    return Place(tmp_path / "work", tmp_path / "home", {})


def error_of(place: Place, **flags: object) -> str:
    with pytest.raises(ConfigError) as caught:
        place.load(**flags)
    assert caught.value.exit_code == EXIT_BAD_INPUT
    return str(caught.value)


# --- precedence -----------------------------------------------------------------------------

# (flag, environment, .env, config file) → the value and source the user is told about.
PRECEDENCE = [
    ("publish", "draft", "draft", "draft", "publish", "flag --mode"),
    (None, "publish", "draft", "draft", "publish", "environment CROSSPOST_MODE"),
    (None, None, "publish", "draft", "publish", ".env {cwd}/.env (CROSSPOST_MODE)"),
    (None, None, None, "publish", "publish", "config file {cwd}/crosspost.toml:1"),
    (None, None, None, None, "draft", "default"),
]


@pytest.mark.parametrize(("flag", "env", "dotenv", "file", "value", "source"), PRECEDENCE)
def test_flag_beats_environment_beats_dotenv_beats_file_beats_default(
    place: Place,
    flag: str | None,
    env: str | None,
    dotenv: str | None,
    file: str | None,
    value: str,
    source: str,
) -> None:
    if env:
        place.environ["CROSSPOST_MODE"] = env
    if dotenv:
        place.dotenv(f"CROSSPOST_MODE={dotenv}\n")
    if file:
        place.config(f'mode = "{file}"\n')
    settings = place.load(mode=flag)
    assert settings.mode == value
    assert settings.source_of("mode") == source.format(cwd=place.cwd)


def test_state_dir_from_environment_says_so(place: Place) -> None:
    place.environ["CROSSPOST_STATE_DIR"] = "/srv/crosspost"
    settings = place.load()
    assert settings.state_dir == Path("/srv/crosspost")
    assert settings.source_of("state_dir") == "environment CROSSPOST_STATE_DIR"
    assert settings.ledger_path == Path("/srv/crosspost/ledger.sqlite3")


@pytest.mark.parametrize(
    ("environ", "expected", "source"),
    [
        ({"XDG_STATE_HOME": "/xdg/state"}, "/xdg/state/crosspost", "XDG_STATE_HOME"),
        ({}, "{home}/.local/state/crosspost", "~/.local/state/crosspost"),
    ],
)
def test_default_state_dir_follows_xdg(
    place: Place, environ: dict[str, str], expected: str, source: str
) -> None:
    place.environ.update(environ)
    settings = place.load()
    assert settings.state_dir == Path(expected.format(home=place.home))
    assert source in settings.source_of("state_dir")


def test_relative_paths_in_the_file_are_relative_to_the_file(place: Place) -> None:
    folder = place.cwd / "conf"
    folder.mkdir()
    config = folder / "crosspost.toml"
    config.write_text('state_dir = "state"\n[schedule]\nissue_dirs = ["issues", "/abs"]\n')
    settings = place.load(config=str(config))
    assert settings.state_dir == folder / "state"
    assert settings.issue_dirs == (folder / "issues", Path("/abs"))


def test_env_file_beside_the_config_is_read_and_cwd_env_wins(place: Place) -> None:
    folder = place.cwd / "conf"
    folder.mkdir()
    place.dotenv("CROSSPOST_THEME=far\nCROSSPOST_GRACE=2h\n", folder)
    place.dotenv("CROSSPOST_THEME=near\n")
    settings = place.load(config=str(place.config("", "conf/crosspost.toml")))
    assert (settings.theme, settings.grace) == ("near", timedelta(hours=2))
    assert settings.env_files == (folder / ".env", place.cwd / ".env")


def test_env_file_does_not_leak_into_os_environ(place: Place) -> None:
    import os

    place.dotenv("CROSSPOST_TEST_LEAK=1\n")
    place.load()
    assert "CROSSPOST_TEST_LEAK" not in os.environ


def test_config_file_lookup_order(place: Place) -> None:
    user = place.home / ".config" / "crosspost"
    user.mkdir(parents=True)
    (user / "crosspost.toml").write_text('theme = "user"\n')
    assert place.load().theme == "user"
    place.config('theme = "local"\n')
    assert place.load().theme == "local"
    named = place.config('theme = "named"\n', "other.toml")
    place.environ["CROSSPOST_CONFIG"] = str(named)
    assert place.load().theme == "named"
    flagged = place.config('theme = "flagged"\n', "flagged.toml")
    settings = place.load(config=str(flagged))
    assert (settings.theme, settings.config_path) == ("flagged", flagged)


def test_settings_from_argparse_flags(place: Place) -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser, "config", "state_dir", "mode", "grace")
    args = parser.parse_args(["--state-dir", "st", "--mode", "publish", "--grace", "90m"])
    settings = settings_from_args(args, environ={}, cwd=place.cwd, home=place.home)
    assert settings.state_dir == place.cwd / "st"
    assert settings.grace == timedelta(minutes=90)
    assert settings.source_of("grace") == "flag --grace"


@pytest.mark.parametrize(
    ("text", "expected"),
    [("24h", 86400), ("90m", 5400), ("1d12h", 129600), ("45s", 45), ("3600", 3600), (60, 60)],
)
def test_durations(text: str | int, expected: int) -> None:
    assert parse_duration(text) == timedelta(seconds=expected)


# --- accounts ---------------------------------------------------------------------------------


def test_accounts_from_the_file_with_credentials_from_named_variables(place: Place) -> None:
    place.config(WECHAT_ACCOUNTS)
    place.environ["WECHAT_APP_ID"] = "wx0123456789"
    place.dotenv("WECHAT_APP_SECRET=s3cr3t-app-secret\n")
    settings = place.load()
    assert [a.key for a in settings.accounts] == ["wechat:main", "wechat:backup", "zhihu:main"]
    main_account = settings.account("wechat:main")
    assert main_account.credentials["app_secret"].reveal() == "s3cr3t-app-secret"
    assert main_account.options == {"need_open_comment": True}
    assert (
        settings.source_of("wechat:main.app_secret") == f".env {place.cwd}/.env (WECHAT_APP_SECRET)"
    )
    backup = settings.account("wechat:backup")
    assert backup.base_url == "http://127.0.0.1:9999"
    assert backup.mode == "publish"
    assert backup.credential_env == {
        "app_id": "WECHAT_BACKUP_APP_ID",
        "app_secret": "WECHAT_BACKUP_APP_SECRET",
    }
    assert settings.account("wechat") == main_account  # default_account
    assert settings.account("zhihu").options["column"] == "c_42"
    assert settings.select(["wechat"]) == settings.accounts_for("wechat")
    assert [a.key for a in settings.select(["zhihu", "wechat:backup", "zhihu:main"])] == [
        "zhihu:main",
        "wechat:backup",
    ]


def test_missing_credential_is_reported_only_for_the_accounts_asked_for(place: Place) -> None:
    place.config(WECHAT_ACCOUNTS)
    place.environ.update(WECHAT_APP_ID="wx0123456789", WECHAT_APP_SECRET="s3cr3t-app-secret")
    settings = place.load()  # the Zhihu cookie is missing: loading must not fail
    assert settings.require_credentials([settings.account("wechat:main")])
    with pytest.raises(ConfigError) as caught:
        settings.require_credentials(settings.select(["zhihu"]))
    assert str(caught.value) == (
        f"zhihu:main needs ZHIHU_Z_C0 (z_c0): set it in the environment or in "
        f"{place.cwd}/.env; nothing was sent"
    )
    assert caught.value.exit_code == EXIT_BAD_INPUT


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("wechat:nope", r"no wechat account called 'nope' \(configured: main, backup\)"),
        ("weibo", "unknown channel 'weibo'; crosspost knows wechat, zhihu"),
    ],
)
def test_unknown_account_or_channel(place: Place, spec: str, message: str) -> None:
    place.config(WECHAT_ACCOUNTS)
    with pytest.raises(ConfigError, match=message):
        place.load().account(spec)


def test_two_accounts_and_no_default_asks_to_name_one(place: Place) -> None:
    place.config(WECHAT_ACCOUNTS.replace('default_account = "main"\n', ""))
    with pytest.raises(ConfigError, match=r"wechat has 2 accounts \(wechat:main, wechat:backup\)"):
        place.load().account("wechat")


def test_no_config_file_says_where_to_start(place: Place) -> None:
    with pytest.raises(ConfigError, match=r"no config file was found; create \./crosspost\.toml"):
        place.load().account("wechat")


# --- bad configuration: one line naming file:line -----------------------------------------------

BAD_CONFIGS = [
    ('mode = "draft"\ntheme = \n', "{path}:2: not valid TOML (Invalid value); fix that line"),
    ('mode = "pubish"\n', "{path}:1: mode 'pubish' is not one of draft, publish, broadcast"),
    (
        '[channels.wechat.accounts.main]\nkind = "verified"\n',
        "{path}:2: kind 'verified' is not a WeChat account kind; use one of "
        "verified_subscription, verified_service, unverified, personal, lapsed",
    ),
    ('[channels.zhihu.accounts.main]\n\nkind = "personal"\n', "{path}:3: 'kind' describes a"),
    ("[channels.weibo.accounts.main]\nx = 1\n", "{path}:1: unknown channel 'weibo'"),
    ("[schedule]\ngrace = 'soon'\n", "{path}:2: 'soon' is not a duration"),
    ("[schedule]\ngrace = inf\n", "{path}:2: inf is too long a duration; at most 366d"),
    ("[schedule]\ngrace = nan\n", "{path}:2: nan is not a duration"),
    ("[schedule]\ngrace = '99999999999999d'\n", "{path}:2: '99999999999999d' is too long"),
    ("[schedule]\ngrace = 9223372036854775807\n", "{path}:2: 9223372036854775807 is too long"),
    ("timeout = nan\n", "{path}:1: nan is not a number of seconds"),
    ("timeout = inf\n", "{path}:1: inf is not a number of seconds"),
    ("timeout = 1e300\n", "{path}:1: 1e+300 seconds is too long"),
    (
        '[channels.wechat.accounts.main]\napp_id = "wx1"\napp_secret = "abc123"\n',
        "{path}:3: 'app_secret' puts a secret in the config file; remove it, put the value in an "
        'environment variable (or .env) and name that variable with app_secret_env = "..."',
    ),
    (
        '[channels.zhihu.accounts.main]\n\nz_c0 = "2|1:0|10:1700000000"\n',
        "{path}:3: 'z_c0' puts a secret in the config file; remove it, put the value in an "
        'environment variable (or .env) and name that variable with cookie_env = "..."',
    ),
    (
        '[channels.zhihu.accounts.main]\ncookie_env = "2|1:0|10:1700000000|4:z_c0"\n',
        "{path}:2: 'cookie_env' must be the NAME of an environment variable (like ZHIHU_Z_C0), "
        "not its value",
    ),
    ("[notify]\nurls = ['wecombot://KEY']\n", "{path}:2: notification URLs carry tokens"),
    ('[channels.wechat.accounts.main]\nbase_url = "localhost"\n', "{path}:2: base_url must be"),
    ("[channels.wechat]\ndefault_account = 'x'\n", "{path}:2: default_account 'x' is not one"),
]


@pytest.mark.parametrize(("text", "message"), BAD_CONFIGS)
def test_bad_config_names_file_and_line(place: Place, text: str, message: str) -> None:
    path = place.config(text)
    assert error_of(place).startswith(message.format(path=path))


# Every table is checked as the top level is: a key crosspost does not read is refused on
# its line (with the key it is closest to), and so is a value of the wrong kind; neither
# falls back quietly to a default (no column, the default variable name).
TABLE_MISTAKES = [
    (
        "stat_dir = 'x'\n",
        "{path}:1: unknown setting 'stat_dir'; did you mean 'state_dir'?",
    ),
    (
        '[channels.zhihu.accounts.main]\ntopics = ["AI"]\ncolum = "c_123"\n',
        "{path}:3: unknown setting 'colum' in [channels.zhihu.accounts.main]; "
        "did you mean 'column'?",
    ),
    (
        "[channels.wechat]\nneed_open_coment = true\n[channels.wechat.accounts.main]\n",
        "{path}:2: unknown setting 'need_open_coment' in [channels.wechat]; "
        "did you mean 'need_open_comment'?",
    ),
    (
        '[channels.wechat.accounts.main]\napp_id_env = "A"\napp_secrt_env = "MY_SECRET"\n',
        "{path}:3: unknown setting 'app_secrt_env' in [channels.wechat.accounts.main]; "
        "did you mean 'app_secret_env'?",
    ),
    (
        '[channels.zhihu.accounts.main]\ncooki_env = "MY_COOKIE"\n',
        "{path}:2: unknown setting 'cooki_env' in [channels.zhihu.accounts.main]; "
        "did you mean 'cookie_env'?",
    ),
    (
        '[channels.zhihu.accounts.main]\nnickname = "x"\n',
        "{path}:2: unknown setting 'nickname' in [channels.zhihu.accounts.main]; known: "
        "author, base_url, column, cookie_env, d_c0_env, digest, kind, limits, mode, "
        "require_approval, source_url, topics, xsrf_env",
    ),
    (
        "[channels.zhihu]\nneed_open_comment = true\n",
        "{path}:2: 'need_open_comment' is a wechat setting, not a zhihu one; remove it (or "
        "move it to a [channels.wechat] table)",
    ),
    (
        '[channels.wechat]\ndefault_account = "main"\n[channels.wechat.accounts.main]\n'
        'default_account = "main"\n',
        "{path}:4: unknown setting 'default_account' in [channels.wechat.accounts.main]; "
        "known: app_id, app_id_env, app_secret_env, author, base_url, digest, kind, limits, "
        "mode, need_open_comment, only_fans_can_comment, require_approval, source_url",
    ),
    (
        '[channels.wechat]\nneed_open_comment = "yes"\n',
        "{path}:2: 'need_open_comment' must be true or false (without quotes), not 'yes'",
    ),
    (
        "[channels.wechat.accounts.main]\nrequire_approval = 1\n",
        "{path}:2: 'require_approval' must be true or false (without quotes), not 1",
    ),
    (
        '[channels.zhihu.accounts.main]\ntopics = "AI"\n',
        "{path}:2: 'topics' must be a list of names: write topics = [\"AI\"]",
    ),
    (
        "[channels.zhihu]\n\ntopics = 5\n",
        "{path}:3: 'topics' must be a list of names in quotes, e.g. topics = [\"人工智能\"], not 5",
    ),
    (
        '[channels.zhihu.accounts.main]\ntopics = ["AI", 3]\n',
        "{path}:2: 'topics' must be a list of names in quotes, e.g. topics = [\"人工智能\"], "
        "not ['AI', 3]",
    ),
    (
        "[channels.zhihu.accounts.main]\ncolumn = 123\n",
        "{path}:2: 'column' must be text in quotes, e.g. column = \"…\", not 123",
    ),
    (
        '[channels.zhihu]\nmode = "pubish"\n[channels.zhihu.accounts.main]\n',
        "{path}:2: mode 'pubish' is not one of draft, publish, broadcast",
    ),
]


@pytest.mark.parametrize(("text", "message"), TABLE_MISTAKES)
def test_every_table_is_checked_like_the_top_level(place: Place, text: str, message: str) -> None:
    path = place.config(text)
    assert error_of(place) == message.format(path=path)


def test_a_channel_default_and_an_account_own_value_are_both_read(place: Place) -> None:
    place.config(
        '[channels.zhihu]\ntopics = ["人工智能"]\nauthor = "编辑部"\n'
        '[channels.zhihu.accounts.main]\ncolumn = "c_123"\nrequire_approval = true\n'
    )
    assert place.load().account("zhihu:main").options == {
        "topics": ["人工智能"],
        "author": "编辑部",
        "column": "c_123",
        "require_approval": True,
    }


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("CROSSPOST_TIMEOUT", "1e400", "environment CROSSPOST_TIMEOUT: '1e400' is not a number"),
        ("CROSSPOST_GRACE", "9" * 400, "environment CROSSPOST_GRACE: '999"),
    ],
)
def test_an_endless_number_in_the_environment_names_the_variable(
    place: Place, name: str, value: str, message: str
) -> None:
    place.environ[name] = value
    assert error_of(place).startswith(message)


def test_a_pasted_secret_is_never_echoed_back(place: Place) -> None:
    place.config('[channels.zhihu.accounts.main]\ncookie_env = "2|1:0|10:1700000000|4:z_c0"\n')
    assert "1700000000" not in error_of(place)


APP_SECRET = "aa5026d45547eb252493a03554257620"

# A *_env value is a variable's name as people write it: letters, digits and _, not
# starting with a digit, and not 16+ letters and digits with a digit and no _ (what a
# pasted AppSecret, AppID or token looks like). The line never holds the value.
ENV_NAME_MISTAKES = [
    (
        f'[channels.wechat.accounts.main]\napp_secret_env = "{APP_SECRET}"\n',
        "{path}:2: 'app_secret_env' must be the NAME of an environment variable (like "
        "WECHAT_APP_SECRET), not its value; this looks like the AppSecret itself: put it in "
        "the environment or .env as WECHAT_APP_SECRET=… and write app_secret_env = "
        '"WECHAT_APP_SECRET"',
    ),
    (
        f'[channels.wechat]\napp_secret_env = "{APP_SECRET.upper()}"\n',
        "{path}:2: 'app_secret_env' must be the NAME of an environment variable (like "
        "WECHAT_APP_SECRET), not its value; this looks like the AppSecret itself: put it in "
        "the environment or .env as WECHAT_APP_SECRET=… and write app_secret_env = "
        '"WECHAT_APP_SECRET"',
    ),
    (
        '[channels.wechat.accounts.backup]\napp_id_env = "wx0123456789abcdef"\n',
        "{path}:2: 'app_id_env' must be the NAME of an environment variable (like "
        "WECHAT_BACKUP_APP_ID), not its value; this looks like the AppID itself: put it in "
        "the environment or .env as WECHAT_BACKUP_APP_ID=… and write app_id_env = "
        '"WECHAT_BACKUP_APP_ID"',
    ),
    (
        "[channels.zhihu.accounts.main]\nd_c0_env = 1700000000\n",
        "{path}:2: 'd_c0_env' must be the NAME of an environment variable (like ZHIHU_D_C0), "
        "not its value; this looks like the d_c0 cookie itself: put it in the environment or "
        '.env as ZHIHU_D_C0=… and write d_c0_env = "ZHIHU_D_C0"',
    ),
    (
        '[channels.wechat.accounts.main]\napp_secret_env = "${WECHAT_APP_SECRET}"\n',
        "{path}:2: 'app_secret_env' must be the NAME of an environment variable (like "
        "WECHAT_APP_SECRET), not its value; write the name alone, without $, braces or spaces",
    ),
    (
        '[channels.zhihu.accounts.main]\ncookie_env = ""\n',
        "{path}:2: 'cookie_env' is empty; write the name of an environment variable, like "
        "ZHIHU_Z_C0",
    ),
    (
        '[notify]\nurls_env = "wecombot://k3y-1234567890"\n',
        "{path}:2: 'urls_env' must be the NAME of an environment variable (like "
        "CROSSPOST_NOTIFY_URLS), not its value; this looks like the notification URL itself: "
        "put it in the environment or .env as CROSSPOST_NOTIFY_URLS=… and write urls_env = "
        '"CROSSPOST_NOTIFY_URLS"',
    ),
]


@pytest.mark.parametrize(("text", "message"), ENV_NAME_MISTAKES)
def test_a_value_where_a_variable_name_belongs_is_refused_without_showing_it(
    place: Place, text: str, message: str
) -> None:
    path = place.config(text)
    assert error_of(place) == message.format(path=path)


@pytest.mark.parametrize(
    "name", ["WECHAT_APP_SECRET", "WECHAT_BACKUP_APP_SECRET", "my_secret", "ZHIHU2", "S3CRET_V2"]
)
def test_names_as_people_write_them_are_read(place: Place, name: str) -> None:
    place.config(f'[channels.wechat.accounts.main]\napp_secret_env = "{name}"\n')
    place.environ[name] = "s3cr3t-app-secret"
    account = place.load().account("wechat:main")
    assert account.credential_env["app_secret"] == name
    assert account.credentials["app_secret"].reveal() == "s3cr3t-app-secret"


def test_bad_environment_value_names_the_variable(place: Place) -> None:
    place.environ["CROSSPOST_TIMEOUT"] = "soon"
    assert error_of(place) == "environment CROSSPOST_TIMEOUT: 'soon' is not a number of seconds"


def test_missing_named_config_file(place: Place) -> None:
    message = error_of(place, config="nowhere.toml")
    assert (
        message
        == f"flag --config: config file {place.cwd}/nowhere.toml does not exist; check the path"
    )


def test_a_folder_named_as_the_config_says_so(place: Place) -> None:
    folder = place.cwd / "conf"
    folder.mkdir()
    place.environ["CROSSPOST_CONFIG"] = str(folder)
    assert error_of(place) == (
        f"environment CROSSPOST_CONFIG: {folder} is a folder, not a config file; "
        "name the crosspost.toml in it"
    )
    place.config('mode = "publish"\n', "conf/crosspost.toml")
    assert error_of(place, config="conf") == (
        f"flag --config: {folder} is a folder, not a config file; name {folder}/crosspost.toml"
    )


def test_a_device_named_as_the_config_says_what_it_is(place: Place) -> None:
    assert error_of(place, config="/dev/null") == (
        "flag --config: /dev/null is a character device, not a config file; name a TOML "
        "file such as crosspost.toml"
    )


def test_a_pipe_is_read_once_as_a_config(place: Place) -> None:
    """``--config <(sops -d crosspost.toml)``: a pipe has no folder of its own, so relative
    paths in it are the working folder's."""
    import os
    import threading

    pipe = place.cwd / "config.pipe"
    os.mkfifo(pipe)
    text = 'mode = "publish"\nstate_dir = "state"\n'
    writer = threading.Thread(target=lambda: pipe.write_text(text, "utf-8"))
    writer.start()
    settings = place.load(config=str(pipe))
    writer.join(timeout=10)
    assert (settings.mode, settings.state_dir) == ("publish", place.cwd / "state")
    assert settings.source_of("mode") == f"config file {pipe}:1"


def test_a_theme_file_that_is_not_there_is_named_on_its_line(place: Place) -> None:
    missing = place.cwd / "nothere.css"
    path = place.config(f'mode = "draft"\ntheme = "{missing}"\n')
    assert error_of(place) == (
        f"{path}:2: theme file {missing} does not exist; check the path, or name a theme "
        "instead (such as default)"
    )
    place.config(f'theme = "{place.home}"\n')
    assert error_of(place) == (
        f"{path}:1: theme {place.home} is a folder, not a CSS file; name the .css file in it"
    )
    place.config("")
    place.environ["CROSSPOST_THEME"] = str(place.cwd / "themes/x.css")
    assert error_of(place).startswith(
        f"environment CROSSPOST_THEME: theme file {place.cwd}/themes/x.css does not exist; "
    )
    assert error_of(place, theme="/srv/no/house.css").startswith(
        "flag --theme: theme file /srv/no/house.css does not exist; "
    )
    missing.write_text(".article p { color: #123456; }\n", "utf-8")
    assert place.load(theme=str(missing)).theme == str(missing)


def test_the_shipped_example_config_loads(place: Place) -> None:
    example = REPO_ROOT / "config" / "crosspost.example.toml"
    settings = place.load(config=str(example))
    assert [a.key for a in settings.accounts] == ["wechat:main", "wechat:backup", "zhihu:main"]
    assert settings.mode == "draft"
    env_example = (REPO_ROOT / "config" / ".env.example").read_text()
    for account in settings.accounts:
        for variable in account.credential_env.values():
            assert f"{variable}=" in env_example


# --- Secret ---------------------------------------------------------------------------------------


def test_secret_never_shows(caplog: pytest.LogCaptureFixture) -> None:
    secret = Secret("wx-app-secret-123")
    account = Account("wechat", "main", None, {"app_secret": secret})
    shown = [repr(secret), str(secret), f"{secret}", f"{secret!r}", f"{secret:>20}", repr(account)]
    logging.getLogger("crosspost.test").warning("secret %s in %r", secret, account)
    shown.append(caplog.text)
    assert all("wx-app-secret-123" not in text for text in shown)
    assert "***" in caplog.text
    assert secret.reveal() == "wx-app-secret-123"


def test_secret_compares_by_value_and_refuses_pickling() -> None:
    assert Secret("a-value") == Secret("a-value")
    assert Secret("a-value") != Secret("other")
    assert len({Secret("a-value"), Secret("a-value")}) == 1
    with pytest.raises(TypeError, match="cannot be pickled"):
        pickle.dumps(Secret("a-value"))


def test_notify_urls_are_secrets_from_the_environment(place: Place) -> None:
    place.config('[notify]\nurls_env = "MY_NOTICES"\non_success = true\n')
    place.environ["MY_NOTICES"] = "wecombot://KEY123, mailto://u:p@example.org"
    settings = place.load()
    assert [u.reveal() for u in settings.notify_urls] == [
        "wecombot://KEY123",
        "mailto://u:p@example.org",
    ]
    assert settings.notify_on_success is True
    assert "KEY123" not in repr(settings)


def test_pointed_at_swaps_server_and_credentials() -> None:
    account = Account("zhihu", "main", None, {})
    sandboxed = account.pointed_at("http://127.0.0.1:5000", {"z_c0": "sandbox-cookie"})
    assert sandboxed.base_url == "http://127.0.0.1:5000"
    assert sandboxed.credentials["z_c0"].reveal() == "sandbox-cookie"
    assert sandboxed.missing_credentials() == ()
    assert account.missing_credentials() == ("z_c0",)


def test_fingerprint_changes_with_a_fixed_credential_and_hides_it() -> None:
    old = Account("wechat", "main", None, {"app_id": Secret("wx1"), "app_secret": Secret("bad")})
    fixed = old.pointed_at("http://127.0.0.1:1", {"app_id": "wx1", "app_secret": "good"})
    same = Account("wechat", "main", None, {"app_id": Secret("wx1"), "app_secret": Secret("bad")})
    assert old.fingerprint() == same.fingerprint()
    assert old.fingerprint() != fixed.fingerprint()
    assert len(old.fingerprint()) == 16 and "bad" not in old.fingerprint()


@pytest.mark.parametrize(
    ("flag", "issue_mode", "account_mode", "expected"),
    [
        ("draft", "publish", "publish", "draft"),
        (None, "publish", "draft", "draft"),  # the account's "draft" is a ceiling
        (None, "broadcast", "publish", "broadcast"),
        ("publish", None, "draft", "draft"),
        (None, None, "publish", "publish"),
        (None, None, None, "draft"),
    ],
)
def test_mode_for_an_account_most_specific_wins(
    place: Place, flag: str | None, issue_mode: str | None, account_mode: str | None, expected: str
) -> None:
    options = {"mode": account_mode} if account_mode else {}
    account = Account("wechat", "main", None, {}, options)
    settings = place.load(mode=flag)
    assert settings.mode_for(account, issue_mode) == expected
    assert settings.mode_for(account, issue_mode, asked="publish") == (
        "draft" if account_mode == "draft" else "publish"
    )
    wanted = settings.mode_wanted(account, issue_mode)
    assert wanted == (flag or issue_mode or account_mode or "draft")


def test_an_account_kind_is_read_from_the_account_or_its_channel(place: Place) -> None:
    place.config(
        '[channels.wechat]\nkind = "personal"\n[channels.wechat.accounts.main]\n'
        '[channels.wechat.accounts.big]\nkind = "verified_service"\n'
        "[channels.zhihu.accounts.main]\n"
    )
    settings = place.load()
    kinds = {a.key: a.kind for a in settings.accounts}
    assert kinds == {
        "wechat:main": "personal",
        "wechat:big": "verified_service",
        "zhihu:main": None,
    }
    assert "kind" not in settings.account("wechat:main").options
    plain = Account("wechat", "main", None, {})
    assert dataclasses.replace(plain, kind="personal").fingerprint() != plain.fingerprint()


def test_unreadable_files_are_one_clear_line(place: Place) -> None:
    path = place.cwd / "crosspost.toml"
    path.write_bytes(b'theme = "\xff\xfe"\n')
    assert error_of(place) == f"{path}:1: not UTF-8 text; save it as UTF-8"
    path.write_text("")
    (place.cwd / ".env").write_bytes(b"CROSSPOST_THEME=\xff\n")
    assert error_of(place).startswith(f"{place.cwd}/.env: cannot be read")


def test_asking_for_a_setting_that_does_not_exist(place: Place) -> None:
    with pytest.raises(ConfigError, match="there is no setting called 'stat_dir'"):
        place.load().source_of("stat_dir")


# --- a ledger shared by several machines ------------------------------------------------------


def test_ledger_url_comes_from_the_config_or_the_environment_and_is_never_shown(
    place: Place,
) -> None:
    assert place.load().ledger == place.load().ledger_path  # the default: SQLite
    place.config('ledger_url = "postgresql://crosspost:s3cr3t-pass@db/newsletter"\n')
    settings = place.load()
    assert settings.ledger == "postgresql://crosspost:s3cr3t-pass@db/newsletter"
    assert settings.ledger_shown == "postgresql://crosspost:***@db/newsletter"
    assert settings.ledger_exists
    assert settings.rehearsal().ledger == settings.state_dir / "sandbox" / "ledger.sqlite3"
    place.environ["CROSSPOST_LEDGER_URL"] = "postgresql://other@db2/newsletter"
    assert place.load().ledger == "postgresql://other@db2/newsletter"
    assert place.load().source_of("ledger_url") == "environment CROSSPOST_LEDGER_URL"


def test_a_ledger_url_that_is_not_postgresql_is_one_line_without_its_password(
    place: Place,
) -> None:
    place.config('mode = "draft"\nledger_url = "mysql://root:hunter2-pass@db/x"\n')
    message = error_of(place)
    assert message.startswith(f"{place.cwd / 'crosspost.toml'}:2")
    assert "is not a PostgreSQL URL" in message and "hunter2-pass" not in message


def test_a_user_without_a_home_folder_is_told_where_to_keep_the_ledger(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A container's user with no HOME and no passwd entry: one line naming the setting
    (no traceback), and with a state dir given, the rest works as anywhere."""
    from crosspost.cli import main

    def nobody() -> Path:
        raise RuntimeError("Could not determine home directory.")

    for name in ("HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "CROSSPOST_STATE_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(Path, "home", staticmethod(nobody))
    monkeypatch.chdir(tmp_path)
    issue = tmp_path / "issue.md"
    issue.write_text("---\ntitle: T\n---\n\n正文足够长的一段文字,用来通过检查。\n", "utf-8")
    assert main(["render", str(issue), "-o", str(tmp_path / "out")]) == EXIT_BAD_INPUT
    said = capsys.readouterr()
    assert said.out == ""
    assert said.err.strip().endswith(
        "no home folder to keep the ledger in (HOME is not set and this user has no passwd "
        "entry); set CROSSPOST_STATE_DIR, or pass --state-dir"
    )
    assert "Traceback" not in said.err
    monkeypatch.setenv("CROSSPOST_STATE_DIR", str(tmp_path / "state"))
    assert main(["render", str(issue), "-o", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "wechat.html").is_file()
