"""support: what the binding's tests share: waiting for a condition, and
the URL of the throwaway MariaDB (CHIME_TEST_MYSQL_URL) with a test's own
parameters."""

import os
import time

WAIT_S = 20.0


def wait_for(pred, timeout=WAIT_S):
    """Polls pred every 20 ms until it holds or timeout seconds pass;
    returns its last answer."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.02)
    return pred()


def mysql_url(params):
    """CHIME_TEST_MYSQL_URL with the URL parameters params added (text
    "a=1&b=2"), or None when it is not set."""
    base = os.environ.get("CHIME_TEST_MYSQL_URL")
    if not base:
        return None
    sep = "&" if "?" in base else "?"
    return base + sep + params
