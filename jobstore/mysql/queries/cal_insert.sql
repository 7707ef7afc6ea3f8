-- A new calendar (scheduler, calendar, definition).
-- Called by: calendar.c (cal_add_fn).
INSERT INTO {P}calendars (sched_name, calendar_name, definition)
VALUES (?,?,?)
