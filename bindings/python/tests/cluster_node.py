"""cluster_node: one Python node of the two-process cluster test.

    python3 cluster_node.py URL INSTANCE_ID OUT_FILE

Registers job type "py-cluster" (each run appends
"trigger_group/trigger_name,scheduled_ms,fire_id,instance_id" to OUT_FILE
and holds its worker a little, so the other node gets work too), starts,
prints "ready", and runs until a line arrives on stdin (or stdin closes);
then it shuts down, waiting for its running jobs, and prints "done".
"""

import sys

import chime
from support import serve_node


def main():
    url, instance_id, out_path = sys.argv[1:4]
    sched = chime.Scheduler(url=url, workers=2, name="py-cluster",
                            instance_id=instance_id, idle_wait_ms=200,
                            checkin_interval_ms=500)

    def line_of(ctx):
        return "%s/%s,%d,%d,%s\n" % (ctx.trigger_group, ctx.trigger_name,
                                     ctx.scheduled_ms, ctx.fire_id,
                                     instance_id)

    # Holds its worker a little, so the other node gets work too.
    serve_node(sched, "py-cluster", out_path, line_of, hold_s=0.05)


if __name__ == "__main__":
    main()
