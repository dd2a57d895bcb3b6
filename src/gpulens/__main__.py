"""``python -m gpulens …``: the same command line as the ``gpulens`` console script (:func:`gpulens.cli.main`),
for environments where the script is not on ``PATH`` (a venv not activated, a notebook's ``!python -m``)."""

import sys

from gpulens.cli import main

if __name__ == "__main__":
    sys.exit(main())
