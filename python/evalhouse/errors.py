"""User-facing errors: the CLI prints their message as one sentence and exits non-zero."""


class UserError(Exception):
    """A problem the user can fix (bad input, missing key, locked warehouse, ...)."""


class WarehouseLocked(UserError):
    pass


class BadInput(UserError):
    """Malformed input; the message names the file, row or field."""
