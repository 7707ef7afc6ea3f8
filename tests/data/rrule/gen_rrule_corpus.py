#!/usr/bin/python3
"""Generates rrule-dateutil.tsv: RFC 5545 recurrences whose instances are
computed by python3-dateutil's rrule (Debian), an oracle that is not chime.
Run: /usr/bin/python3 gen_rrule_corpus.py rrule-dateutil.tsv
(deterministic: a fixed seed).

Each case: id, the recurrence text (lines separated by a space, as
rrulestr reads them), after_ms, count, expected (epoch ms, space
separated; NONE when nothing follows).  DTSTART is the first instance in
RFC 5545 but not in dateutil, so every after_ms is at or past DTSTART and
the answers never include it; COUNT is used only where DTSTART is the
rule's own first instance (then both count the same set).  Wall times are
mapped to instants by Python's zoneinfo with fold=0: a time in a DST gap
takes the offset before the gap, a repeated time its first pass, as RFC
5545 3.3.5 says."""
import datetime
import random
import sys
from zoneinfo import ZoneInfo

from dateutil import rrule as R

SEED = 23
COUNT = 8
ZONES = ["UTC", "Europe/Paris", "America/New_York", "Australia/Sydney",
         "Asia/Kolkata", "America/Sao_Paulo", "Pacific/Chatham",
         "Europe/London", "Asia/Tokyo", "America/Los_Angeles"]
FREQS = ["YEARLY", "MONTHLY", "WEEKLY", "DAILY", "HOURLY", "MINUTELY"]
DAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]

FIXED = [
    "FREQ=MONTHLY;BYDAY=-1FR",
    "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU",
    "FREQ=MONTHLY;BYDAY=2MO,4MO",
    "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1",
    "FREQ=YEARLY;BYMONTH=3,6,9,12;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1",
    "FREQ=DAILY;BYHOUR=2;BYMINUTE=30",
    "FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO",
    "FREQ=YEARLY;BYYEARDAY=1,100,200,-1",
    "FREQ=MONTHLY;BYMONTHDAY=-1,-2",
    "FREQ=MONTHLY;BYMONTHDAY=31",
    "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29",
    "FREQ=WEEKLY;BYDAY=MO,WE,FR;WKST=SU",
    "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,SU;WKST=MO",
    "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,SU;WKST=SU",
    "FREQ=HOURLY;INTERVAL=3;BYMINUTE=0,30",
    "FREQ=MINUTELY;INTERVAL=20;BYHOUR=9,10,11",
    "FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13",
    "FREQ=YEARLY;BYMONTH=11;BYDAY=TU;BYMONTHDAY=2,3,4,5,6,7,8",
    "FREQ=MONTHLY;INTERVAL=3;BYDAY=1MO",
    "FREQ=DAILY;BYMONTH=1;BYDAY=SA,SU",
]

# Shapes the random rules rarely reach (appended last, so the cases above
# keep their seeds): SECONDLY with BY* filters, week numbers from other
# week starts, BYYEARDAY with BYMONTH, BYSETPOS over a year.
EXTRA = [
    "FREQ=SECONDLY;INTERVAL=17;BYMINUTE=0,1;BYHOUR=9",
    "FREQ=SECONDLY;BYSECOND=0,30;BYMINUTE=15;BYHOUR=3,15",
    "FREQ=SECONDLY;INTERVAL=90;BYDAY=SA;BYHOUR=12",
    "FREQ=MINUTELY;INTERVAL=7;BYMONTH=3,10;BYHOUR=1,2,3",
    "FREQ=YEARLY;BYWEEKNO=1,-1;BYDAY=MO,SU;WKST=SU",
    "FREQ=YEARLY;BYWEEKNO=53;BYDAY=TH",
    "FREQ=YEARLY;BYWEEKNO=52,1;WKST=TH;BYDAY=WE,TH,FR",
    "FREQ=YEARLY;BYYEARDAY=-1,1,60;BYMONTH=1,2,12",
    "FREQ=YEARLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=1,-1,100",
    "FREQ=YEARLY;BYDAY=20MO,-10FR",
    "FREQ=MONTHLY;BYMONTHDAY=-31,31,15;BYHOUR=6,18;BYSETPOS=2,-2",
    "FREQ=DAILY;INTERVAL=3;BYMONTHDAY=1,2,3,4,5",
    "FREQ=HOURLY;INTERVAL=5;BYDAY=MO;BYMINUTE=10,50",
]


def random_rule(rnd):
    freq = rnd.choice(FREQS)
    parts = ["FREQ=" + freq]
    if rnd.random() < 0.4:
        parts.append("INTERVAL=%d" % rnd.randint(2, 4))
    if rnd.random() < 0.3:
        parts.append("BYMONTH=" + ",".join(map(str, sorted(rnd.sample(range(1, 13), rnd.randint(1, 4))))))
    k = rnd.random()
    if k < 0.3:
        days = rnd.sample(DAYS, rnd.randint(1, 3))
        if freq in ("MONTHLY", "YEARLY") and rnd.random() < 0.5:
            days = ["%d%s" % (rnd.choice([1, 2, 3, 4, -1, -2]), d) for d in days[:2]]
        parts.append("BYDAY=" + ",".join(days))
    elif k < 0.5 and freq not in ("WEEKLY",):
        parts.append("BYMONTHDAY=" + ",".join(map(str, rnd.sample(list(range(1, 29)) + [-1, -2, 30, 31], rnd.randint(1, 3)))))
    elif k < 0.55 and freq == "YEARLY":
        parts.append("BYYEARDAY=" + ",".join(map(str, rnd.sample(list(range(1, 366)) + [-1], 2))))
    elif k < 0.6 and freq == "YEARLY":
        parts.append("BYWEEKNO=" + ",".join(map(str, rnd.sample(list(range(1, 53)) + [-1], 2))))
    if freq in ("YEARLY", "MONTHLY", "WEEKLY", "DAILY") and rnd.random() < 0.5:
        parts.append("BYHOUR=" + ",".join(map(str, sorted(rnd.sample(range(24), rnd.randint(1, 2))))))
        if rnd.random() < 0.5:
            parts.append("BYMINUTE=" + ",".join(map(str, sorted(rnd.sample(range(0, 60, 5), rnd.randint(1, 2))))))
    if freq == "MINUTELY" and rnd.random() < 0.6:
        parts.append("BYHOUR=" + ",".join(map(str, sorted(rnd.sample(range(24), 2)))))
    if "BYDAY" in ";".join(parts) and freq in ("MONTHLY", "YEARLY") and rnd.random() < 0.3 \
            and not any(c.isdigit() for c in parts[-1]):
        parts.append("BYSETPOS=" + rnd.choice(["1", "-1", "2", "1,-1"]))
    if freq == "WEEKLY" and rnd.random() < 0.4:
        parts.append("WKST=" + rnd.choice(DAYS))
    return ";".join(parts)


def ms(dt):
    return int(round(dt.timestamp() * 1000))


def instances(rule_text, dtstart, exdates=(), rdates=()):
    rule = R.rrulestr("RRULE:" + rule_text, dtstart=dtstart)
    if not exdates and not rdates:
        return rule
    rs = R.rruleset()
    rs.rrule(rule)
    for d in exdates:
        rs.exdate(d)
    for d in rdates:
        rs.rdate(d)
    return rs


def first_after(it, after_ms, dtstart_ms, n):
    out = []
    for i, dt in enumerate(it):
        if i > 200000 or dt.year > 2200:
            break
        t = ms(dt)
        if t > after_ms and t != dtstart_ms:
            out.append(t)
            if len(out) == n:
                break
    return out


def stamp(dt):
    return dt.strftime("%Y%m%dT%H%M%S")


def main():
    rnd = random.Random(SEED)
    main_out = open(sys.argv[1], "w")
    out = main_out
    out.write("# Generated by gen_rrule_corpus.py with python3-dateutil; do not edit.\n"
              "# id\ttext\tafter_ms\tcount\texpected\n")
    rules = FIXED + [random_rule(rnd) for _ in range(420)] + EXTRA
    n = 0
    for i, rule_text in enumerate(rules):
        for j in range(2):
            zone = rnd.choice(ZONES)
            tz = ZoneInfo(zone)
            start = datetime.datetime(rnd.randint(2020, 2030), rnd.randint(1, 12), rnd.randint(1, 28),
                                      rnd.randint(0, 23), rnd.choice([0, 0, 15, 30, 45]), 0, tzinfo=tz)
            text_rule = rule_text
            try:
                base = list(first_after(instances(rule_text, start), -10**18, None, 1))
            except Exception:
                continue
            if not base:
                continue
            if base[0] == ms(start) and rnd.random() < 0.3:
                text_rule += ";COUNT=%d" % rnd.randint(3, 12)
            elif rnd.random() < 0.15:
                until = start + datetime.timedelta(days=rnd.randint(30, 400))
                text_rule += ";UNTIL=" + stamp(until.astimezone(datetime.timezone.utc)) + "Z"
            exd, rd = [], []
            extra = ""
            if rnd.random() < 0.15:
                seq = first_after(instances(rule_text, start), ms(start), ms(start), 6)
                if len(seq) >= 4:
                    ex = datetime.datetime.fromtimestamp(seq[rnd.randint(0, 3)] / 1000, tz)
                    exd.append(ex.replace(fold=0))
                    rdt = start + datetime.timedelta(days=rnd.randint(1, 60), hours=rnd.randint(0, 5))
                    rd.append(rdt)
                    extra = " EXDATE;TZID=%s:%s RDATE;TZID=%s:%s" % (zone, stamp(ex), zone, stamp(rdt))
            try:
                it = instances(text_rule, start, exd, rd)
                dtstart_ms = ms(start)
                after = dtstart_ms if j == 0 else dtstart_ms + rnd.randint(0, 200) * 86400000 // 3
                got = first_after(it, after, dtstart_ms, COUNT)
            except Exception:
                continue
            text = "DTSTART;TZID=%s:%s RRULE:%s%s" % (zone, stamp(start), text_rule, extra)
            out.write("r%d-%d\t%s\t%d\t%d\t%s\n" % (i, j, text, after, COUNT,
                                                   " ".join(map(str, got)) if got else "NONE"))
            n += 1
    sys.stderr.write("%d cases\n" % n)


if __name__ == "__main__":
    main()
