"""idle_node: one node of the change-notice test (test_changes), with
chime's default settings (a 30 s idle wait, a 1 s check-in).

    python3 idle_node.py URL INSTANCE_ID OUT_FILE

Registers job type "ping" (each run appends
"trigger_group/trigger_name,scheduled_ms,fire_ms,instance_id,data" to
OUT_FILE, fire_ms being the store's clock when the run started), starts,
prints "ready", and runs until a line arrives on stdin (or stdin closes).
"""

import sys

import chime
from support import serve_node


def main():
    url, instance_id, out_path = sys.argv[1:4]
    sched = chime.Scheduler(url=url, name="py-changes",
                            instance_id=instance_id)

    def line_of(ctx):
        return "%s/%s,%d,%d,%s,%s\n" % (
            ctx.trigger_group, ctx.trigger_name, ctx.scheduled_ms,
            ctx.fire_ms, instance_id, ctx.data.decode("utf-8"))

    serve_node(sched, "ping", out_path, line_of)


if __name__ == "__main__":
    main()
