"""``python -m gpulens …``: the same command line as the ``gpulens`` console script (:func:`gpulens.cli.main`),
for environments where the script's directory is not on ``PATH`` (a venv not activated, ``pip install --user``)."""

from gpulens.cli import main

if __name__ == "__main__":
    main()
