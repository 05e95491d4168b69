"""Allow ``python -m crosspost``."""

import sys

from crosspost.cli import main

sys.exit(main())
