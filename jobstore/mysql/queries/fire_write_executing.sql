-- Moves the fired rows of a batch of fires to EXECUTING, with their jobs'
-- flags as they are now.  A text statement.  Parts and rows: forbid and
-- recovery (one row per fire whose job runs alone, whose job requests
-- recovery: id; each part left out when there is none), then all (one row
-- per fire: id).
-- Called by: fire.c (write_executing).
UPDATE {P}fired FORCE INDEX (PRIMARY)
SET state = 'EXECUTING',
    forbid = /*[forbid*/ fire_id IN (/*{forbid*/ /*:id*/ /*}*/) OR /*]*/ FALSE,
    requests_recovery =
      /*[recovery*/ fire_id IN (/*{recovery*/ /*:id*/ /*}*/) OR /*]*/ FALSE
WHERE fire_id IN (/*{all*/ /*:id*/ /*}*/)
