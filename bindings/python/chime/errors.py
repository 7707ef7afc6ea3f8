"""errors: chime.Error and one subclass per CHIME_E* code.

Every failed call raises the subclass for its code; the exception carries
the C code (.code), its name (.name, e.g. "CHIME_EUNKNOWNZONE") and the
library's message (.message: the errbuf of a constructor, or
chime_scheduler_errmsg() for a scheduler call, else chime_strerror()).

No class shadows a built-in exception.  Two also subclass the built-in that
means the same, so code that catches the built-in catches them:
InvalidArgument is a ValueError, StoreConnectionError (CHIME_ECONNECT; and
AuthError, CHIME_EAUTH, below it) a ConnectionError.
"""

import builtins
import re

from . import _lib


class Error(Exception):
    """A chime call failed.  code: the negative CHIME_E* code."""

    code = 0

    def __init__(self, code, message=None):
        self.code = code
        self.name = _lib.dec(_lib.lib.chime_err_name(code))
        sentence = _lib.dec(_lib.lib.chime_strerror(code))
        self.message = message or sentence
        text = self.message if self.message == sentence else (
            "%s: %s" % (sentence, self.message))
        found = re.search(r"column (\d+)", self.message)
        self.column = int(found.group(1)) if found else None
        super().__init__("%s (%s)" % (text, self.name))


def _make(name, code, doc, base=Error, builtin=None):
    bases = (base,) if builtin is None else (base, builtin)
    return type(name, bases, {"code": code, "__doc__": doc})


InvalidArgument = _make("InvalidArgument", -1, "CHIME_EINVAL", Error,
                        builtins.ValueError)
OutOfMemory = _make("OutOfMemory", -2, "CHIME_ENOMEM")
NotFound = _make("NotFound", -3, "CHIME_ENOTFOUND")
AlreadyExists = _make("AlreadyExists", -4, "CHIME_EEXISTS")
ParseError = _make("ParseError", -5, "CHIME_EPARSE: the column is in .column")
UnknownZone = _make("UnknownZone", -6, "CHIME_EUNKNOWNZONE")
NeverFires = _make("NeverFires", -7, "CHIME_ENEVERFIRES")
LimitExceeded = _make("LimitExceeded", -8, "CHIME_ELIMIT")
StateError = _make("StateError", -9, "CHIME_ESTATE")
StoreError = _make("StoreError", -10, "CHIME_ESTORE")
StoreConnectionError = _make("StoreConnectionError", -11, "CHIME_ECONNECT",
                             Error, builtins.ConnectionError)
AuthError = _make("AuthError", -12, "CHIME_EAUTH", StoreConnectionError)
SchemaError = _make("SchemaError", -13, "CHIME_ESCHEMA")
NotOwner = _make("NotOwner", -14, "CHIME_ENOTOWNER")
DuplicateNode = _make("DuplicateNode", -15, "CHIME_EDUPNODE")
Unsupported = _make("Unsupported", -16, "CHIME_EUNSUPPORTED")
InputOutputError = _make("InputOutputError", -17, "CHIME_EIO")
FormatError = _make("FormatError", -18, "CHIME_EFORMAT")
ShutdownError = _make("ShutdownError", -19, "CHIME_ESHUTDOWN")
UrlError = _make("UrlError", -20, "CHIME_EURL")
Busy = _make("Busy", -21, "CHIME_EBUSY")
InternalError = _make("InternalError", -22, "CHIME_EINTERNAL")
JobFailed = _make("JobFailed", -23, "CHIME_EJOBFAILED")
TimedOut = _make("TimedOut", -24, "CHIME_ETIMEDOUT")
Cancelled = _make("Cancelled", -25, "CHIME_ECANCELLED")
Missed = _make("Missed", -26, "CHIME_EMISSED")

_BY_CODE = {cls.code: cls for cls in (
    InvalidArgument, OutOfMemory, NotFound, AlreadyExists, ParseError,
    UnknownZone, NeverFires, LimitExceeded, StateError, StoreError,
    StoreConnectionError, AuthError, SchemaError, NotOwner, DuplicateNode,
    Unsupported, InputOutputError, FormatError, ShutdownError, UrlError,
    Busy, InternalError, JobFailed, TimedOut, Cancelled, Missed)}

__all__ = ["Error"] + [cls.__name__ for cls in _BY_CODE.values()]


def error_for(code, message=None):
    """The exception object for a negative code and an optional message."""
    return _BY_CODE.get(code, Error)(code, message)


def check(code, message=None):
    """Raises the exception for code unless it is 0; returns 0."""
    if code < 0:
        raise error_for(code, message)
    return code


def check_sched(code, sched_ptr):
    """check() with the detail chime_scheduler_errmsg() keeps for this
    thread's failed call on the scheduler sched_ptr."""
    if code < 0:
        msg = _lib.dec(_lib.lib.chime_scheduler_errmsg(sched_ptr)) or None
        raise error_for(code, msg)
    return code


def check_buf(code, errbuf):
    """check() with the message a ctypes errbuf holds."""
    if code < 0:
        raise error_for(code, _lib.dec(errbuf.value) or None)
    return code
