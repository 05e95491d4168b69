"""How a task's box is shown on every channel: neither WeChat nor Zhihu has checkboxes,
so a box is a character, ☑ done and ☐ open, whether the task was written ``- [x]`` in
Markdown or came as HTML (``<input type="checkbox" checked>``, Evernote's ``<en-todo>``)."""

from __future__ import annotations

#: A task's box by whether it is done.
BOXES = {False: "☐", True: "☑"}
