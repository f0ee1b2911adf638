"""The errors fssim-farm reports: each says which file or title it is about."""


class FarmError(Exception):
    """An error the command line reports as one message, without a trace."""


class LogError(FarmError):
    """A log that cannot be read, or segments that cannot be merged."""


class ScoreError(FarmError):
    """A segment or a title that could not be scored."""


class Interrupted(FarmError):
    """The run was interrupted (Ctrl-C); the message says what was kept and
    how to resume."""
