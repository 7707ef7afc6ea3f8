"""test_queue_mysql: test_queue's tests on the MariaDB store (meson suite
'mysql'; CHIME_TEST_MYSQL_URL, tables prefixed chime_pyq_)."""

import os
import unittest

from test_queue import QueueTests


def url():
    base = os.environ.get("CHIME_TEST_MYSQL_URL")
    if not base:
        return None
    sep = "&" if "?" in base else "?"
    return base + sep + "auto_create=1&clear=1&prefix=chime_pyq_"


class MysqlQueueTests(QueueTests):
    URL = url()

    def setUp(self):
        if not self.URL:
            self.fail("CHIME_TEST_MYSQL_URL is not set (run ./dev test)")


del QueueTests  # run by test_queue

if __name__ == "__main__":
    unittest.main()
